#!/usr/bin/env bash
# make swarm-up: deploy/stack.yml as stack `puzzle` on a single-node swarm of the local engine,
# the API on $API_PORT. The images are built as compose-up builds them (a stack deploy builds
# nothing); the swarm is initialised here unless the engine is in one already (then left so by
# swarm-down); the tokens become Docker secrets, made once under var/swarm/ (mode 600).
source "$(dirname "$0")/common.sh"
cd "$ROOT"

SWARM_STATE="$ROOT/var/swarm"
STACK="${STACK_NAME:-puzzle}"
started=$(now_ms)
mkdir -p "$SWARM_STATE" "$STATE"

"$ROOT/deploy/engine.sh" start
"$ROOT/deploy/compose-plugin.sh"
"$ROOT/deploy/base-images.sh"

log "building the images"
docker compose --project-name "$COMPOSE_PROJECT" --env-file "$(images_env)" \
    build --quiet migrate proxy pgbouncer
built=$(now_ms)

if [ "$(docker info --format '{{.Swarm.LocalNodeState}}')" != active ]; then
    log "docker swarm init (this node alone, on loopback)"
    docker swarm init --advertise-addr 127.0.0.1 >/dev/null
    touch "$SWARM_STATE/initialised-here"
fi

# The tokens: a client `swarm`, the token of /metrics and an operator's (the fleet view), made once and kept.
secret() {  # name file content-command
    [ -s "$SWARM_STATE/$2" ] || (umask 077; eval "$3" > "$SWARM_STATE/$2")
    docker secret inspect "$1" >/dev/null 2>&1 || docker secret create "$1" "$SWARM_STATE/$2" >/dev/null
}
token() { head -c 24 /dev/urandom | base64 | tr '+/' '-_'; }
secret puzzle_api_tokens api_tokens 'echo "swarm:$(token)"'
secret puzzle_metrics_token metrics_token 'token'
secret puzzle_admin_tokens admin_tokens 'token'

log "docker stack deploy $STACK"
set -a; source "$(images_env)"; set +a
export API_PORT="${API_PORT:-8000}" WORKERS="${WORKERS:-2}"
docker stack deploy --compose-file deploy/stack.yml --resolve-image never --prune "$STACK" >/dev/null

# Converged: the migration done, every service at its replicas (running and healthy), and the API
# answering through the proxy.
deadline=$(( $(date +%s) + 600 ))
until [ "$(docker service ps "${STACK}_migrate" --format '{{.CurrentState}}' | grep -c '^Complete')" -ge 1 ]; do
    [ "$(date +%s)" -lt "$deadline" ] || { docker service ps --no-trunc "${STACK}_migrate" >&2; die "the migration did not complete"; }
    sleep 2
done
for service in postgres redis pgbouncer api proxy worker worker-cheap scheduler; do
    want=$(docker service inspect "${STACK}_$service" --format '{{.Spec.Mode.Replicated.Replicas}}')
    while true; do
        healthy=$(docker ps --filter "label=com.docker.swarm.service.name=${STACK}_$service" \
            --filter health=healthy --format '{{.ID}}' | wc -l)
        [ "$healthy" -ge "$want" ] && break
        [ "$(date +%s)" -lt "$deadline" ] || { docker service ps --no-trunc "${STACK}_$service" >&2; die "$service: $healthy of $want healthy"; }
        sleep 2
    done
done
until curl -fsS "http://127.0.0.1:$API_PORT/readyz" >/dev/null 2>&1; do
    [ "$(date +%s)" -lt "$deadline" ] || die "the API does not answer on port $API_PORT"
    sleep 1
done
done_at=$(now_ms)
printf 'build_seconds=%s\ndeploy_seconds=%s\nswarm_up_seconds=%s\n' "$(seconds "$started" "$built")" \
    "$(seconds "$built" "$done_at")" "$(seconds "$started" "$done_at")" > "$SWARM_STATE/timings"
docker stack services "$STACK" --format 'table {{.Name}}\t{{.Replicas}}\t{{.Image}}'
cat >&2 <<MSG

The API:   http://127.0.0.1:$API_PORT/   token: the part after "swarm:" in $SWARM_STATE/api_tokens
Swarm:     docker stack services $STACK; docker service scale ${STACK}_worker=N
Up in $(seconds "$started" "$done_at") s. Stop with: make swarm-down
MSG
