#!/usr/bin/env bash
# Install Debian's gettext (msgfmt, xgettext) for `manage.py compilemessages`
# and `makemessages`. Fails with the reason where it cannot be installed.
set -uo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

if command -v msgfmt >/dev/null 2>&1; then
    exit 0
fi
reason=$(apt_unavailable_reason)
if [ -n "$reason" ]; then
    say "msgfmt (Debian's gettext) is missing and $reason."
    say "  To build the translations: apt-get install gettext, then make run or make test."
    exit 1
fi
say "msgfmt is missing: installing Debian's gettext for the translations."
apt_install gettext && command -v msgfmt >/dev/null 2>&1
