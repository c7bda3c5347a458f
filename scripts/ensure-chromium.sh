#!/usr/bin/env bash
# Installs Debian's Chromium for the USSD simulator's end-to-end test (apps/ussd-gateway/test/
# simulator.e2e.test.ts drives it through playwright-core). Idempotent: does nothing when
# /usr/bin/chromium exists. Without Chromium that test is skipped, not failed.
set -euo pipefail

if [ -x /usr/bin/chromium ]; then
  echo "chromium: present ($(/usr/bin/chromium --version 2>/dev/null | tail -n1 || echo 'version unknown'))"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO=sudo
  else
    echo "chromium: missing and not root (no passwordless sudo); the simulator e2e test will be skipped" >&2
    exit 0
  fi
else
  SUDO=
fi

echo "chromium: installing Debian's chromium package"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q chromium
/usr/bin/chromium --version 2>/dev/null | tail -n1
