#!/usr/bin/env bash
# Make sure Debian's chromium is installed for the browser tests (tests/browser).
# Never fails: where chromium cannot be installed the browser tests skip and
# say why (with CI=true they fail, saying why: tests/conftest.py). Playwright drives this chromium; `playwright install` is never run
# (it downloads a browser build, which these machines cannot fetch).
set -uo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

# A font for each script the pages are written in (a phone has one; a bare
# Debian server may not), so the Hindi, Tamil and Telugu pages show letters,
# not boxes, and the browser tests measure their words at the width a phone
# draws them (tests/browser/test_languages.py).
for wanted in "hi fonts-lohit-deva" "ta fonts-lohit-taml" "te fonts-lohit-telu"; do
    read -r lang package <<<"$wanted"
    if [ -z "$(fc-list ":lang=$lang" 2>/dev/null)" ] && [ -z "$(apt_unavailable_reason)" ]; then
        say "No font for the $lang pages: installing Debian's $package."
        apt_install "$package" || say "WARNING: $package could not be installed."
    fi
done

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
