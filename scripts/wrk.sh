#!/usr/bin/env bash
# Make sure Debian's wrk is installed for `make bench` (the load figures,
# bench/load.py). Exits non-zero, saying why, when it is missing and cannot be
# installed here (not root, not Debian).
set -uo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

if command -v wrk >/dev/null 2>&1; then
    exit 0
fi
reason=$(apt_unavailable_reason)
if [ -n "$reason" ]; then
    say "wrk is missing and $reason: apt-get install wrk, then make bench."
    exit 1
fi
say "wrk is missing: installing Debian's wrk for the load figures."
apt_install wrk && command -v wrk >/dev/null 2>&1
