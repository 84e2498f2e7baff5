#!/usr/bin/env bash
# Make sure Debian's wrk is installed for `make bench` (the load figures,
# bench/load.py). Exits non-zero, saying why, when it is missing and cannot be
# installed here (not root, not Debian).
set -uo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

need_command wrk wrk "the load figures of make bench"
