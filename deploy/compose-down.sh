#!/usr/bin/env bash
# make compose-down: removes what compose-up made (containers, volumes, networks) and stops
# the engine if compose-up started it. Images stay in the engine's data root as a build cache.
source "$(dirname "$0")/common.sh"
cd "$ROOT"

if docker version --format '{{.Server.Version}}' >/dev/null 2>&1 && docker compose version >/dev/null 2>&1; then
    env_file="$STATE/compose.env"
    [ -f "$env_file" ] || env_file=/dev/null
    docker compose --project-name "$COMPOSE_PROJECT" --env-file "$env_file" \
        down --volumes --remove-orphans --timeout 10
else
    log "no engine answers: no containers to remove"
fi
"$ROOT/deploy/engine.sh" stop
rm -f "$STATE/compose.env" "$STATE/timings"
