#!/usr/bin/env bash
# The test passes behind `make test`, after ruff:
#   1. the whole pytest suite on SQLite (the default settings);
#   2. on PostgreSQL, the tests where PostgreSQL may behave otherwise than
#      SQLite: DATABASE_URL when it names a reachable PostgreSQL, else a local
#      server that scripts/postgres.sh sets up (root on Debian). Where neither
#      can be had, the tests marked `postgres` run and report SKIPPED with the
#      reason.
# Pass 2 sets TRACKER_ONLY_DATABASE_TESTS, and tests/conftest.py then keeps the
# tests marked `postgres` (they need it: live servers on PostgreSQL, its
# NOTIFY streams, concurrent saves through its locks) and those of the modules
# marked `both_databases` that touch the database: versions and locks, query
# counts, amounts and JSON stored and read back, imports, backups, limits,
# fuzzed input (a NUL byte or a huge number that SQLite stores and PostgreSQL
# refuses). Pages, forms, languages and the browser tests run once, in pass 1:
# what they show does not depend on the database that stored the rows. So do
# the tests that need no database (the rules engine, the hand calculator, the
# scripts' checks, live gunicorn servers on a SQLite file of their own).
# Each pass runs on TEST_WORKERS pytest-xdist workers (default 2, the cores
# of CI's machine; 0 runs in one process), a test file on one worker
# (--dist loadfile: a module's live servers start once), each worker with its
# own test database; many tests wait on servers, subprocesses and chromium,
# so two workers keep both cores busy. The summary adds up both passes.
# Chromium for the browser tests comes from scripts/chromium.sh first, and
# redis-server for the shared-cache tests from scripts/redis.sh.
#
# With CI=true nothing that matters may skip: a browser test that skips
# (chromium missing or not starting) or a PostgreSQL test that skips fails,
# with the reason (tests/conftest.py), and a PostgreSQL pass without a server
# is FAILED. The SQLite pass leaves the `postgres` tests to the PostgreSQL pass
# (TRACKER_POSTGRES_LATER).
#
# Usage: scripts/test.sh [all|sqlite|postgres]
#   BIN          the virtualenv's bin directory (default .venv/bin)
#   PYTEST_ARGS  extra pytest arguments for every pass, e.g. "-x -k smoke" or
#                "-m 'not slow'" (the quick loop of `make test-fast`)
#   TEST_OUTPUT  where the logs go (default test-output)
#   TEST_WORKERS pytest-xdist workers per pass (default 2; 0: one process)
# Exits non-zero when a test fails in either pass.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

BIN=${BIN:-.venv/bin}
MODE=${1:-all}
OUT=${TEST_OUTPUT:-test-output}
WORKERS=${TEST_WORKERS:-2}
mkdir -p "$OUT"
# PYTEST_ARGS split into words as the shell splits them, quotes honoured:
# PYTEST_ARGS="-m 'not slow'" is two arguments, -m and "not slow".
EXTRA=()
if [[ -n ${PYTEST_ARGS:-} && ${PYTEST_ARGS} =~ [^[:space:]] ]]; then
    words=$(xargs printf '%s\n' <<<"$PYTEST_ARGS") || {
        echo "PYTEST_ARGS: cannot split into arguments (a quote left open?): $PYTEST_ARGS" >&2
        exit 2
    }
    mapfile -t EXTRA <<<"$words"
fi

case "$MODE" in
    all | sqlite | postgres) ;;
    *)
        echo "usage: $0 [all|sqlite|postgres]" >&2
        exit 2
        ;;
esac

# A pytest base temp of our own: pytest deletes all but its 3 newest
# /tmp/pytest-of-$USER/pytest-N, which breaks a run while other test runs
# on the machine start. Kept when a test failed, to look at.
TMP=$(mktemp -d "${TMPDIR:-/tmp}/rummy-tracker-pytest.XXXXXX")

summary=()
failed=0
total_passed=0
total_failed=0
total_skipped=0
total_deselected=0
only_database_tests=0  # 1 once a PostgreSQL pass ran on a server
fail_status=""  # the status of a failed pass, when not pytest's exit code
case "${CI:-}" in
    [Tt][Rr][Uu][Ee] | 1 | [Yy][Ee][Ss]) in_ci=1 ;;
    *) in_ci=0 ;;
esac

banner() { printf '\n===== %s =====\n' "$*"; }

count() {  # count WORD LINE: the number before WORD in pytest's last line
    grep -oE "[0-9]+ $1" <<<"$2" | grep -oE '^[0-9]+' || echo 0
}

# run_pass NAME LOG OK_CODES OK_STATUS ENV... -- PYTEST_ARGS...: one pytest
# run, logged to test-output/pytest-LOG.log; OK_CODES are the exit codes that
# count as a success, shown as OK_STATUS.
run_pass() {
    local name=$1 log="$OUT/pytest-$2.log" basetemp="$TMP/$2" ok_codes=$3 ok_status=$4
    shift 4
    local envs=()
    while [ "$1" != -- ]; do
        envs+=("$1")
        shift
    done
    shift
    local start end rc last status
    start=$EPOCHREALTIME
    env "${envs[@]}" "$BIN/python" -m pytest --basetemp "$basetemp" -n "$WORKERS" --dist loadfile \
        "$@" "${EXTRA[@]}" 2>&1 \
        | tee "$log"
    rc=${PIPESTATUS[0]}
    end=$EPOCHREALTIME
    # pytest's closing line, "==== 3 passed, 1 skipped in 2.10s ====" (no = with -q).
    last=$(grep -E '([0-9]+ (passed|failed|skipped|errors?|deselected)|no tests ran).* in [0-9.]+s' "$log" \
        | tail -n 1 | sed -E 's/^=+ //; s/ =+$//')
    if [[ " $ok_codes " == *" $rc "* ]]; then
        status=$ok_status
    else
        status=${fail_status:-"FAILED (pytest exit $rc)"}
        failed=1
    fi
    total_passed=$((total_passed + $(count passed "$last")))
    total_failed=$((total_failed + $(count failed "$last") + $(count error "$last")))
    total_skipped=$((total_skipped + $(count skipped "$last")))
    total_deselected=$((total_deselected + $(count deselected "$last")))
    summary+=("$(printf '%-11s %-31s %6.1fs  %s' "$name" "$status" \
        "$(awk -v a="$start" -v b="$end" 'BEGIN {print b - a}')" "${last:-no pytest summary}")")
}

sqlite_pass() {
    banner "pass 1: SQLite (default settings)"
    run_pass sqlite sqlite "0" passed -u DATABASE_URL -u TRACKER_POSTGRES_SKIP \
        -u TRACKER_ONLY_DATABASE_TESTS TRACKER_POSTGRES_LATER="the PostgreSQL pass runs them" --
}

# A DATABASE_URL that names a PostgreSQL server that answers, or nothing.
reachable_postgres_url() {
    [[ ${DATABASE_URL:-} =~ ^(postgres|postgresql|pgsql):// ]] || return 1
    "$BIN/python" - <<'PY' >&2
import os
import sys

import dj_database_url
import psycopg

db = dj_database_url.parse(os.environ["DATABASE_URL"])
try:
    psycopg.connect(
        dbname=db["NAME"],
        user=db["USER"] or None,
        password=db["PASSWORD"] or None,
        host=db["HOST"] or None,
        port=db["PORT"] or None,
        connect_timeout=5,
    ).close()
except psycopg.Error as error:
    print(f"DATABASE_URL names a PostgreSQL that does not answer: {error}".strip())
    sys.exit(1)
PY
}

postgres_pass() {
    banner "pass 2: PostgreSQL"
    local url="" out reason
    if [ -n "${DATABASE_URL:-}" ] && reachable_postgres_url; then
        url=$DATABASE_URL
        echo "Using the PostgreSQL that DATABASE_URL names."
    else
        [ -z "${DATABASE_URL:-}" ] \
            || echo "DATABASE_URL does not name a reachable PostgreSQL: trying a local one."
        out=$(bash scripts/postgres.sh)
        case "$out" in
            postgres*) url=$out ;;
            *) reason=${out#SKIP: } ;;
        esac
    fi
    if [ -n "$url" ]; then
        echo "DATABASE_URL=$(sed -E 's#(://[^:/@]*):[^@]*@#\1:***@#' <<<"$url")"
        only_database_tests=1
        run_pass postgresql postgresql "0" passed -u TRACKER_POSTGRES_SKIP -u TRACKER_POSTGRES_LATER \
            TRACKER_ONLY_DATABASE_TESTS=1 DATABASE_URL="$url" --
        return
    fi
    reason=${reason:-PostgreSQL could not be set up}
    cat <<EOF_HELP

PostgreSQL pass not run: $reason.
  To run it, either run \`make test\` as root on Debian 12 (it installs and
  starts Debian's postgresql and creates the role and database), or start a
  PostgreSQL server yourself and run, as its superuser:
      CREATE ROLE tracker LOGIN PASSWORD 'tracker' CREATEDB;
      CREATE DATABASE tracker OWNER tracker;
  then: DATABASE_URL=postgres://tracker:tracker@127.0.0.1:5432/tracker make test-postgres

EOF_HELP
    if [ "$in_ci" = 1 ]; then
        # Run them all the same: each fails, saying why (tests/conftest.py).
        printf 'CI=true: the PostgreSQL pass must run, and it cannot: %s.\n\n' "$reason"
        fail_status="FAILED (CI=true, no PostgreSQL)"
        run_pass postgresql postgresql "" "" \
            -u DATABASE_URL -u TRACKER_POSTGRES_LATER -u TRACKER_ONLY_DATABASE_TESTS \
            TRACKER_POSTGRES_SKIP="$reason" -- -m postgres
        fail_status=""
        return
    fi
    printf '  Now running the tests marked `postgres` so that they report SKIPPED.\n\n'
    # Exit 5 (nothing collected) is fine here: no test needs PostgreSQL then.
    run_pass postgresql postgresql "0 5" "SKIPPED (no server)" \
        -u DATABASE_URL -u TRACKER_POSTGRES_LATER -u TRACKER_ONLY_DATABASE_TESTS \
        TRACKER_POSTGRES_SKIP="$reason" -- -m postgres
}

total_start=$EPOCHREALTIME
bash scripts/chromium.sh
bash scripts/redis.sh
# The live gunicorn servers serve static files by their hashed names
# (staticfiles/, as `make run` makes it). Made here when missing or older than
# static/, before the workers start, so that two never write it at once
# (tests/servers/gunicorn.py would, each in its worker).
manifest=staticfiles/staticfiles.json
if [ ! -e "$manifest" ] || [ -n "$(find static -type f -newer "$manifest" | head -n 1)" ]; then
    "$BIN/python" manage.py collectstatic --noinput -v 0 || exit 2
fi
case "$MODE" in
    all)
        sqlite_pass
        postgres_pass
        ;;
    sqlite) sqlite_pass ;;
    postgres) postgres_pass ;;
esac

banner "summary"
printf '%s\n' "${summary[@]}"
printf 'total %.1fs; screenshots and logs in %s/\n' \
    "$(awk -v a="$total_start" -v b="$EPOCHREALTIME" 'BEGIN {print b - a}')" "$OUT"
if [ "$failed" = 0 ]; then
    rm -rf "$TMP"
else
    echo "pytest's temporary files: $TMP/"
fi
# pytest-xdist's workers deselect without telling the count: shown when known.
deselected=""
[ "$total_deselected" = 0 ] || deselected=", $total_deselected deselected"
echo "tests: $total_passed passed, $total_failed failed, $total_skipped skipped$deselected"
[ "$only_database_tests" = 0 ] \
    || echo "(pass 2 runs the tests marked postgres, and those marked both_databases that touch the database: pass 1 runs every test)"
exit "$failed"
