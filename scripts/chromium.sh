#!/usr/bin/env bash
# Make sure Debian's chromium is installed for the browser tests (tests/browser).
# Never fails: where chromium cannot be installed the browser tests skip and
# say why (with CI=true they fail, saying why: tests/conftest.py). Playwright drives this chromium; `playwright install` is never run
# (it downloads a browser build, which these machines cannot fetch).
set -uo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

# A Devanagari font, so the Hindi pages' screenshots show letters, not boxes
# (a phone has one; a bare Debian server may not).
if ! fc-list 2>/dev/null | grep -qi devanagari && [ -z "$(apt_unavailable_reason)" ]; then
    say "No Devanagari font: installing Debian's fonts-lohit-deva for the Hindi screenshots."
    apt_install fonts-lohit-deva || say "WARNING: fonts-lohit-deva could not be installed."
fi

if command -v chromium >/dev/null 2>&1; then
    exit 0
fi
reason=$(apt_unavailable_reason)
case "${CI:-}" in
    [Tt][Rr][Uu][Ee] | 1 | [Yy][Ee][Ss]) outcome="fail (CI=true: they must run)" ;;
    *) outcome="be skipped" ;;
esac
if [ -n "$reason" ]; then
    say "chromium is missing and $reason: the browser tests will $outcome."
    say "  To run them: apt-get install chromium (Debian), then make test."
    exit 0
fi
say "chromium is missing: installing Debian's chromium for the browser tests."
if ! apt_install chromium || ! command -v chromium >/dev/null 2>&1; then
    say "WARNING: apt-get could not install chromium: the browser tests will $outcome."
fi
exit 0
