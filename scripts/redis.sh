#!/usr/bin/env bash
# Make sure Debian's redis-server is installed for the shared-cache tests
# (tests/servers/redis.py starts its own on a free port, nothing on disk).
# Never fails: where it cannot be installed those tests skip and say why.
set -uo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

if command -v redis-server >/dev/null 2>&1; then
    exit 0
fi
reason=$(apt_unavailable_reason)
if [ -n "$reason" ]; then
    say "redis-server is missing and $reason: the Redis cache tests will be skipped."
    say "  To run them: apt-get install redis-server (Debian), then make test."
    exit 0
fi
say "redis-server is missing: installing Debian's redis-server for the shared-cache tests."
if ! apt_install redis-server || ! command -v redis-server >/dev/null 2>&1; then
    say "WARNING: apt-get could not install redis-server: the Redis cache tests will be skipped."
fi
exit 0
