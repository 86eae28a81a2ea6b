#!/bin/sh
# deb/rpm post-install: put `mcp-warden` (the app) and `warden` (the CLI) on the PATH, make
# Chromium's setuid sandbox helper usable where unprivileged user namespaces are off, let
# bubblewrap create its namespaces where AppArmor restricts them, and refresh the desktop and
# icon caches. WARDEN_PACKAGE_ROOT (tests only) prefixes every path, for a dry run in a folder.
set -e
root=${WARDEN_PACKAGE_ROOT:-}
dir='/opt/MCP Warden'
ln -sf "$dir/mcp-warden" "$root/usr/bin/mcp-warden"
ln -sf "$dir/resources/bin/warden" "$root/usr/bin/warden"
if ! { [ -L /proc/self/ns/user ] && unshare --user true 2>/dev/null; }; then
  chmod 4755 "$root$dir/chrome-sandbox" || true
else
  chmod 0755 "$root$dir/chrome-sandbox" || true
fi
# AppArmor 4 with the user-namespace restriction (Ubuntu 23.10+): the profile grants `userns` to
# bubblewrap. Loaded now when AppArmor is active; otherwise at the next boot with the others.
if [ -e "$root/proc/sys/kernel/apparmor_restrict_unprivileged_userns" ] && [ -d "$root/etc/apparmor.d" ]; then
  profile="$root/etc/apparmor.d/mcp-warden-bwrap"
  cp "$root$dir/resources/apparmor/mcp-warden-bwrap" "$profile"
  chmod 0644 "$profile"
  parser=${APPARMOR_PARSER:-apparmor_parser}
  if [ -d "$root/sys/kernel/security/apparmor" ] && command -v "$parser" >/dev/null 2>&1; then
    "$parser" -r -W "$profile" ||
      echo "MCP Warden: could not load $profile; run: sudo apparmor_parser -r $profile" >&2
  fi
fi
if [ -n "$root" ]; then exit 0; fi
if command -v update-mime-database >/dev/null 2>&1; then
  update-mime-database /usr/share/mime || true
fi
if command -v update-desktop-database >/dev/null 2>&1; then
  update-desktop-database /usr/share/applications || true
fi
