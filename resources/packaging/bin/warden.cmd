@echo off
rem The `warden` command of an installed MCP Warden: the app runtime in Node mode runs the bundled CLI.
setlocal
set ELECTRON_RUN_AS_NODE=1
"%~dp0..\..\MCP Warden.exe" "%~dp0..\app.asar\out\cli\warden.mjs" %*
