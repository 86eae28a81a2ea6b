@echo off
rem The `warden` command of an installed MCP Warden: the app runtime in Node mode runs the bundled CLI.
rem `warden connect`, which an AI client waits for at each start, and `warden servers list` have
rem entries of their own.
setlocal
set ELECTRON_RUN_AS_NODE=1
set "entry=warden.mjs"
if "%~1"=="connect" set "entry=connect.mjs"
if "%~1"=="servers" if "%~2"=="list" set "entry=list.mjs"
"%~dp0..\..\MCP Warden.exe" "%~dp0..\app.asar\out\cli\%entry%" %*
