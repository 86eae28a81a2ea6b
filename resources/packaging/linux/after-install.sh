#!/bin/sh
# deb/rpm post-install: put `mcp-warden` (the app) and `warden` (the CLI) on the PATH, make
# Chromium's setuid sandbox helper usable where unprivileged user namespaces are off, and refresh
# the desktop and icon caches.
set -e
dir='/opt/MCP Warden'
ln -sf "$dir/mcp-warden" /usr/bin/mcp-warden
ln -sf "$dir/resources/bin/warden" /usr/bin/warden
if ! { [ -L /proc/self/ns/user ] && unshare --user true 2>/dev/null; }; then
  chmod 4755 "$dir/chrome-sandbox" || true
else
  chmod 0755 "$dir/chrome-sandbox" || true
fi
if command -v update-mime-database >/dev/null 2>&1; then
  update-mime-database /usr/share/mime || true
fi
if command -v update-desktop-database >/dev/null 2>&1; then
  update-desktop-database /usr/share/applications || true
fi
