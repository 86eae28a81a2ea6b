#!/bin/sh
# deb/rpm post-remove: take the links off the PATH again.
set -e
for link in /usr/bin/mcp-warden /usr/bin/warden; do
  if [ -L "$link" ] && [ ! -e "$link" ]; then rm -f "$link"; fi
done
