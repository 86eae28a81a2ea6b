@echo off
rem The `warden` command of an installed MCP Warden: the app runtime in Node mode runs the bundled CLI.
rem `warden connect`, which an AI client waits for at each start, has an entry of its own.
setlocal
set ELECTRON_RUN_AS_NODE=1
set "entry=warden.mjs"
if "%~1"=="connect" set "entry=connect.mjs"
"%~dp0..\..\MCP Warden.exe" "%~dp0..\app.asar\out\cli\%entry%" %*
