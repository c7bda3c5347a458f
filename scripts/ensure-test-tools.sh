#!/usr/bin/env bash
# Installs the Debian packages that some tests drive, so CI runs them on a fresh machine too:
#   chromium     end-to-end tests of the USSD simulator and the oracle chat example (playwright-core)
#   nginx-light  the deploy checks run the local stack's ingress configuration in a real nginx
# Idempotent: installs only what is missing. Without them those tests are skipped, not failed,
# so `npm test` still passes on a machine where nothing can be installed.
set -euo pipefail

missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing+=(nginx-light)

if [ ${#missing[@]} -eq 0 ]; then
  echo "test tools: present ($(/usr/bin/chromium --version 2>/dev/null | tail -n1 || echo chromium); $(/usr/sbin/nginx -v 2>&1 || echo nginx))"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO=sudo
  else
    echo "test tools: missing ${missing[*]} and not root (no passwordless sudo); the tests that need them will be skipped" >&2
    exit 0
  fi
else
  SUDO=
fi

echo "test tools: installing ${missing[*]} from Debian"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
# nginx-light must not start a daemon on port 80 here: the tests run their own nginx.
RUNLEVEL=1 $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
if command -v systemctl >/dev/null 2>&1; then $SUDO systemctl stop nginx >/dev/null 2>&1 || true; fi
