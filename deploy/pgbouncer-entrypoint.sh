#!/bin/sh
# The one user PgBouncer lets in and logs in as: DB_USER with the password of DB_PASSWORD or of the
# file DB_PASSWORD_FILE (a Docker secret). PgBouncer keeps it in plain text, which lets it answer
# the client's SCRAM and make its own to PostgreSQL.
set -e
user="${DB_USER:?DB_USER is required}"
if [ -n "${DB_PASSWORD_FILE:-}" ]; then password="$(cat "$DB_PASSWORD_FILE")"; else password="${DB_PASSWORD:?DB_PASSWORD is required}"; fi
umask 077
printf '"%s" "%s"\n' "$user" "$password" > /etc/pgbouncer/userlist.txt
exec "$@"
