#!/usr/bin/env bash
# Make sure Lighthouse is installed for `make bench` (bench/lighthouse.py): the
# version bench/package.json pins, from npm (`npm ci`, by bench/package-lock.json)
# into bench/node_modules (git-ignored). Installs Debian's npm (and Node) when
# missing, as root. Chromium comes from scripts/chromium.sh. Exits non-zero,
# saying why, when Lighthouse cannot be had.
set -uo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

bench=$(cd "$(dirname "$0")/../bench" && pwd)
want=$(sed -n 's/.*"lighthouse": "\([^"]*\)".*/\1/p' "$bench/package.json")
binary=$bench/node_modules/.bin/lighthouse

if [ -x "$binary" ] && [ "$("$binary" --version 2>/dev/null)" = "$want" ]; then
    exit 0
fi
need_command npm npm "Lighthouse in make bench" || exit 1
say "Installing lighthouse@$want (npm ci, into bench/node_modules)."
log=$(mktemp "${TMPDIR:-/tmp}/rummy-tracker-npm.XXXXXX.log")
(cd "$bench" && run_logged "$log" npm ci --no-audit --no-fund --loglevel=error) || exit 1
if [ "$("$binary" --version 2>/dev/null)" != "$want" ]; then
    say "npm ci did not leave lighthouse $want in bench/node_modules (see $log)."
    exit 1
fi
