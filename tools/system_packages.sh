#!/usr/bin/env bash
# Install the Debian packages listed in tools/debian-packages.txt when any is missing.
#
#   tools/system_packages.sh           install what is missing (apt-get, as root); otherwise say
#                                      exactly what to run and exit 1
#   tools/system_packages.sh --test    the same, with tools/debian-packages-test.txt too (what only the
#                                      tests need: `make test`)
#   tools/system_packages.sh --check   only report; exit 1 when something is missing
#
# `make sample` and `make test` run it on every call (a dpkg query: milliseconds when all is there),
# so a fresh machine gets the packages by itself; the Dockerfile runs it too.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
lists=("$here/debian-packages.txt")
if [ "${1:-}" = "--test" ]; then
  lists+=("$here/debian-packages-test.txt")
  shift
fi
mapfile -t wanted < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' "${lists[@]}" | grep -v '^$')
if ! command -v dpkg-query >/dev/null 2>&1; then
  echo "rewrite-mining: this is not a Debian/Ubuntu system (no dpkg-query); install the equivalents of:" \
       "${wanted[*]} (see tools/debian-packages.txt)" >&2
  exit 1
fi
missing=()
for pkg in "${wanted[@]}"; do
  status="$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)"
  [ "$status" = "installed" ] || missing+=("$pkg")
done
[ "${#missing[@]}" -eq 0 ] && exit 0
if [ "${1:-}" = "--check" ]; then
  echo "rewrite-mining: missing Debian packages: ${missing[*]}" >&2
  exit 1
fi
if [ "$(id -u)" -eq 0 ]; then
  echo "rewrite-mining: installing Debian packages: ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  exit 0
fi
if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  echo "rewrite-mining: installing Debian packages with sudo: ${missing[*]}" >&2
  sudo -n env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  sudo -n env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  exit 0
fi
echo "rewrite-mining needs Debian packages that are not installed: ${missing[*]}" >&2
echo "Run this once (as root), then the same make command again:" >&2
echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
exit 1
