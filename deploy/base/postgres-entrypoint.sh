#!/bin/sh
# First start: initdb with the superuser and database the environment names, password
# authentication from other hosts. Then PostgreSQL runs as postgres, listening everywhere.
set -e
as_postgres() { setpriv --reuid=postgres --regid=postgres --init-groups "$@"; }
if [ "$1" = postgres ]; then
    chown postgres:postgres "$PGDATA"
    if [ ! -s "$PGDATA/PG_VERSION" ]; then
        user="${POSTGRES_USER:-postgres}"
        pwfile="$(mktemp)"
        printf '%s\n' "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is required}" > "$pwfile"
        chown postgres "$pwfile"
        as_postgres initdb --username="$user" --pwfile="$pwfile" --auth-local=trust \
            --auth-host=scram-sha-256 --encoding=UTF8 >/dev/null
        rm -f "$pwfile"
        echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
        db="${POSTGRES_DB:-$user}"
        if [ "$db" != postgres ]; then
            as_postgres postgres --single -D "$PGDATA" -c listen_addresses='' postgres \
                <<SQL >/dev/null
CREATE DATABASE "$db" OWNER "$user";
SQL
        fi
    fi
    shift
    exec setpriv --reuid=postgres --regid=postgres --init-groups postgres -c listen_addresses='*' "$@"
fi
exec "$@"
