#!/bin/sh
# deb/rpm post-remove: take the links off the PATH again and unload and remove the AppArmor
# profile for bubblewrap. On an upgrade the new version's files are already in place, so nothing
# is taken away. WARDEN_PACKAGE_ROOT (tests only) prefixes every path, for a dry run in a folder.
set -e
root=${WARDEN_PACKAGE_ROOT:-}
for link in "$root/usr/bin/mcp-warden" "$root/usr/bin/warden"; do
  if [ -L "$link" ] && [ ! -e "$link" ]; then rm -f "$link"; fi
done
profile="$root/etc/apparmor.d/mcp-warden-bwrap"
if [ -f "$profile" ] && [ ! -e "$root/opt/MCP Warden/resources/apparmor/mcp-warden-bwrap" ]; then
  parser=${APPARMOR_PARSER:-apparmor_parser}
  if [ -d "$root/sys/kernel/security/apparmor" ] && command -v "$parser" >/dev/null 2>&1; then
    "$parser" -R "$profile" || true
  fi
  rm -f "$profile"
fi
