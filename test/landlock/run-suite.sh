#!/usr/bin/env bash
# The sandbox suites once more with bubblewrap made unusable (WARDEN_BWRAP names no file), so that
# Warden falls back to the Landlock backend by itself: as the current user and, when run as root
# with WARDEN_TEST_USER set, as that unprivileged user too. Then the packaging scripts' test,
# with shellcheck (installed from Debian when missing).
#
# Landlock is expected wherever the kernel's Landlock ABI is 6 or more (Linux 6.12+ with landlock
# in the LSM list): there a skip is a failure (WARDEN_REQUIRE_SANDBOX=1). On an older kernel the
# backend refuses every launch (covered by its unit tests), so the run says why and stops.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -x out/landlock/landlock-exec ] || { echo "out/landlock/landlock-exec is missing: run npm run build (it needs a C compiler)" >&2; exit 1; }
abi=$(out/landlock/landlock-exec --abi)
if [ "$abi" -lt 6 ]; then
  echo "Landlock suite not run: this kernel's Landlock ABI is $abi (6 needed: Linux 6.12+ with landlock in lsm=)"
else
  export WARDEN_BWRAP=/nonexistent/bwrap WARDEN_REQUIRE_SANDBOX=1
  suites=(test/sandbox test/gateway/sandboxed-gateway.test.ts)
  echo "Running the sandbox suites under Landlock (ABI $abi), bubblewrap unusable"
  npx vitest run "${suites[@]}"
  user=${WARDEN_TEST_USER:-}
  if [ "$(id -u)" = 0 ] && [ -n "$user" ]; then
    dir=$(pwd)
    if ! setpriv --reuid="$user" --regid="$user" --init-groups test -r "$dir/package.json"; then
      dir=$(mktemp -d /tmp/warden-landlock-XXXXXX)
      cp -a . "$dir"
      chmod -R a+rX "$dir"
    fi
    echo "Running the sandbox suites under Landlock as $user"
    (cd "$dir" && setpriv --reuid="$user" --regid="$user" --init-groups \
      env HOME="/home/$user" USER="$user" LOGNAME="$user" PATH="$PATH" CI=true \
      WARDEN_REQUIRE_SANDBOX=1 WARDEN_BWRAP=/nonexistent/bwrap WARDEN_TEST_USER="$user" \
      npx vitest run --configLoader runner "${suites[@]}")
  fi
fi
if ! command -v shellcheck >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq shellcheck >/dev/null
fi
WARDEN_REQUIRE_SHELLCHECK=1 npx vitest run test/packaging/apparmor-profile.test.ts
