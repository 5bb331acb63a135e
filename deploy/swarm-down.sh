#!/usr/bin/env bash
# make swarm-down: removes the stack, its secrets and volumes; leaves the swarm if swarm-up
# initialised it (`docker swarm leave --force`), and stops the engine if compose-up or swarm-up
# started it. Images stay as a build cache.
source "$(dirname "$0")/common.sh"
cd "$ROOT"

SWARM_STATE="$ROOT/var/swarm"
STACK="${STACK_NAME:-puzzle}"
status=0

if docker version --format '{{.Server.Version}}' >/dev/null 2>&1; then
    if [ "$(docker info --format '{{.Swarm.LocalNodeState}}')" = active ]; then
        docker stack rm "$STACK" >/dev/null 2>&1 || true
        # Its containers gone before its volumes and network can go.
        for _ in $(seq 1 180); do
            [ -z "$(docker ps -aq --filter "label=com.docker.stack.namespace=$STACK")" ] && break
            sleep 1
        done
        docker secret rm puzzle_api_tokens puzzle_metrics_token puzzle_admin_tokens >/dev/null 2>&1 || true
        if [ -f "$SWARM_STATE/initialised-here" ]; then
            log "docker swarm leave --force"
            docker swarm leave --force >/dev/null
            # The bridge the node made for its tasks' outside traffic when it joined.
            docker network rm docker_gwbridge >/dev/null 2>&1 || true
            rm -f "$SWARM_STATE/initialised-here"
        fi
    fi
    for _ in $(seq 1 30); do
        [ -z "$(docker network ls -q --filter "label=com.docker.stack.namespace=$STACK")" ] && break
        sleep 1
    done
    volumes=$(docker volume ls -q --filter "label=com.docker.stack.namespace=$STACK")
    [ -z "$volumes" ] || docker volume rm $volumes >/dev/null
    # Nothing of the stack may be left: containers, volumes, networks, secrets.
    left="$(docker ps -aq --filter "label=com.docker.stack.namespace=$STACK")"
    left+="$(docker volume ls -q --filter "label=com.docker.stack.namespace=$STACK")"
    left+="$(docker network ls -q --filter "label=com.docker.stack.namespace=$STACK")"
    if [ "$(docker info --format '{{.Swarm.LocalNodeState}}')" = active ]; then
        left+="$(docker secret ls -q --filter name=puzzle_)"
    fi
    if [ -n "$left" ]; then log "left behind: $(echo $left)"; status=1; else log "nothing of stack $STACK left"; fi
else
    log "no engine answers: nothing to remove"
fi
"$ROOT/deploy/engine.sh" stop
rm -f "$SWARM_STATE/timings"
exit $status
