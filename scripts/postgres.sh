#!/usr/bin/env bash
# Set up a local PostgreSQL for the test suite's PostgreSQL pass, from Debian:
# install `postgresql` when missing, start (or create) a cluster, and create
# the role `tracker` (password `tracker`, LOGIN CREATEDB) and the database
# `tracker`. Every step is idempotent: run it as often as you like.
#
# On success prints the DATABASE_URL to use on stdout, e.g.
#   postgres://tracker:tracker@127.0.0.1:5432/tracker
# Otherwise prints "SKIP: <reason>" on stdout and exits 1. Progress and
# errors go to stderr.
set -uo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

ROLE=tracker
PASSWORD=tracker
DB=tracker

skip() {
    echo "SKIP: $*"
    exit 1
}

reason=$(apt_unavailable_reason)
[ -z "$reason" ] || skip "PostgreSQL not set up: $reason"

server_version() {  # the newest PostgreSQL server installed, e.g. 15
    local bin
    for bin in /usr/lib/postgresql/*/bin/postgres; do
        [ -x "$bin" ] && basename "$(dirname "$(dirname "$bin")")"
    done | sort -n | tail -n 1
}

if [ -z "$(server_version)" ] || ! command -v pg_lsclusters >/dev/null 2>&1; then
    say "PostgreSQL is missing: installing Debian's postgresql."
    apt_install postgresql || skip "apt-get could not install postgresql"
fi
version=$(server_version)
[ -n "$version" ] || skip "no PostgreSQL server found after installing postgresql"

as_postgres() { (cd / && runuser -u postgres -- "$@"); }

# "15 main 5432 online postgres /var/lib/... /var/log/..."
cluster_field() {  # cluster_field N: field N of cluster $version/main, if it exists
    pg_lsclusters -h 2>/dev/null | awk -v v="$version" -v n="$1" '$1 == v && $2 == "main" {print $n}'
}

if [ -z "$(cluster_field 3)" ]; then
    say "+ pg_createcluster $version main"
    # Takes 5432, or the next free port when another server has it.
    pg_createcluster "$version" main >&2 || skip "pg_createcluster $version main failed"
fi
port=$(cluster_field 3)
case "$(cluster_field 4)" in
    online*) ;;
    *)
        say "+ pg_ctlcluster $version main start (port $port)"
        if ! pg_ctlcluster "$version" main start >&2; then
            # Started meanwhile by someone else? Then all is well.
            case "$(cluster_field 4)" in
                online*) ;;
                *)
                    tail -n 20 "$(cluster_field 7)" >&2 2>/dev/null
                    skip "pg_ctlcluster $version main start failed (see the log above)"
                    ;;
            esac
        fi
        ;;
esac

for _ in $(seq 60); do
    pg_isready -q -h 127.0.0.1 -p "$port" && break
    sleep 0.5
done
pg_isready -q -h 127.0.0.1 -p "$port" || skip "PostgreSQL $version does not answer on 127.0.0.1:$port"

psql_admin() { as_postgres psql -X -q -v ON_ERROR_STOP=1 -p "$port" -d postgres "$@"; }

psql_admin >&2 <<SQL || skip "could not create the role $ROLE"
DO \$\$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$ROLE') THEN
        CREATE ROLE $ROLE LOGIN PASSWORD '$PASSWORD' CREATEDB;
    ELSE
        ALTER ROLE $ROLE LOGIN PASSWORD '$PASSWORD' CREATEDB;
    END IF;
END
\$\$;
SQL
if [ "$(psql_admin -tA -c "SELECT 1 FROM pg_database WHERE datname = '$DB'")" != 1 ]; then
    say "+ createdb -O $ROLE $DB"
    as_postgres createdb -p "$port" -O "$ROLE" "$DB" >&2 \
        || [ "$(psql_admin -tA -c "SELECT 1 FROM pg_database WHERE datname = '$DB'")" = 1 ] \
        || skip "could not create the database $DB"
fi

url="postgres://$ROLE:$PASSWORD@127.0.0.1:$port/$DB"
PGPASSWORD=$PASSWORD PGCONNECT_TIMEOUT=5 psql -X -q -h 127.0.0.1 -p "$port" -U "$ROLE" -d "$DB" \
    -c "SELECT 1" >/dev/null || skip "cannot log in as $ROLE on 127.0.0.1:$port with a password"
say "PostgreSQL $version is ready on 127.0.0.1:$port (role $ROLE, database $DB)."
echo "$url"
