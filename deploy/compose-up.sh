#!/usr/bin/env bash
# make compose-up: the stack on a local engine with $WORKERS workers, the API on $API_PORT.
# Each step is skipped when already done: a running engine, Compose v2, the base images
# (pulled, or built from Debian's packages offline), the project image (layer cache).
source "$(dirname "$0")/common.sh"
cd "$ROOT"

WORKERS="${WORKERS:-3}"
started=$(now_ms)

"$ROOT/deploy/engine.sh" start
"$ROOT/deploy/compose-plugin.sh"
"$ROOT/deploy/base-images.sh"

# Flower's password: from the environment, else one made here once and kept (mode 600).
auth_file="$STATE/flower-auth"
if [ -z "${FLOWER_BASIC_AUTH:-}" ]; then
    [ -s "$auth_file" ] || (umask 077; echo "admin:$(head -c 18 /dev/urandom | base64 | tr '+/' '-_')" > "$auth_file")
    FLOWER_BASIC_AUTH="$(cat "$auth_file")"
fi
(umask 077; { cat "$(images_env)"; echo "FLOWER_BASIC_AUTH=$FLOWER_BASIC_AUTH"; } > "$STATE/compose.env")

compose() { docker compose --project-name "$COMPOSE_PROJECT" --env-file "$STATE/compose.env" "$@"; }

log "building the project image"
build_started=$(now_ms)
compose build --quiet
build_done=$(now_ms)
log "starting the stack with $WORKERS workers"
compose up --detach --no-build --scale "worker=$WORKERS" --wait --wait-timeout 300
done_at=$(now_ms)

printf 'build_seconds=%s\nup_seconds=%s\ncompose_up_seconds=%s\n' "$(seconds "$build_started" "$build_done")" \
    "$(seconds "$build_done" "$done_at")" "$(seconds "$started" "$done_at")" > "$STATE/timings"
compose ps --format 'table {{.Service}}\t{{.Name}}\t{{.Status}}'
cat >&2 <<MSG

The API:   http://127.0.0.1:${API_PORT:-8000}/   (curl http://127.0.0.1:${API_PORT:-8000}/readyz)
Flower:    http://127.0.0.1:${FLOWER_PORT:-5555}/   user:password in $auth_file (or your FLOWER_BASIC_AUTH)
Compose:   docker compose --env-file var/compose/compose.env ps|logs|up --scale worker=N ...
Up in $(seconds "$started" "$done_at") s. Stop with: make compose-down
MSG
