#!/usr/bin/env bash
# make k8s-play-test: deploy/k8s (overlay small) run for real by `podman kube play` on this machine.
# The images are built on the local Docker engine as compose-up builds them, then copied into
# podman's storage (docker save | podman load); the rendered objects are made runnable by
# `deploy/k8s_play_test.py transform` (what podman does not run is dropped, and said so), played in
# three stages on a podman network of their own, where pod names resolve as Service names do:
# PostgreSQL, Redis and PgBouncer; the migration Job's pod, once, to completion; the API, workers,
# scheduler and proxy, the proxy's port published on K8S_PLAY_PORT. Then the checks of
# `k8s_play_test.py check`, and whatever happened, `podman kube down` and the removal of every pod,
# volume, the network and the images loaded here; exits 1 if a check failed or anything is left.
source "$(dirname "$0")/common.sh"
cd "$ROOT"

PY="${PY:-$ROOT/.venv/bin/python}"
PLAY="$ROOT/var/k8s-play"
NETWORK="${K8S_PLAY_NETWORK:-puzzle-queue-k8s-play}"
PORT="${K8S_PLAY_PORT:-18000}"
# Podman's default rlimits for rootful containers (nofile and nproc at their highest) are more than
# runc may set inside this machine's own container: lower ones (nginx asks for 16384 files),
# read from this file only. The runtime is runc, as Docker's here: crun refuses a machine whose
# cgroups are mounted in hybrid mode with a controller in the v2 hierarchy.
export CONTAINERS_CONF="$PLAY/containers.conf"

# The CNI plugin that resolves a pod's name on its network (Services by name): podman's network
# has no DNS without it.
DNSNAME=golang-github-containernetworking-plugin-dnsname

install_podman() {
    command -v apt-get >/dev/null || die "no podman and no apt-get: install podman"
    log "installing Debian's podman (with catatonit, the init of its pause image, and $DNSNAME)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends podman catatonit $DNSNAME >&2 \
        || { apt-get update >&2 && DEBIAN_FRONTEND=noninteractive \
             apt-get install -y --no-install-recommends podman catatonit $DNSNAME >&2; }
}

# Volumes mounted by the containers of our pods (the PVCs' and emptyDir's), read before they go.
pod_volumes() {
    local pod ids
    while read -r pod; do
        ids=$(podman ps -aq --filter "pod=$pod" 2>/dev/null) || continue
        [ -z "$ids" ] || podman inspect --format '{{range .Mounts}}{{if eq .Type "volume"}}{{.Name}} {{end}}{{end}}' $ids
    done < "$PLAY/pods.txt"
}

teardown() {
    local status=0 volumes="" left="" image
    if [ -f "$PLAY/pods.txt" ]; then
        volumes="$(pod_volumes) $(cat "$PLAY/pvcs.txt")"
        # The stages played, last first.
        for stage in $(tac "$PLAY/played" 2>/dev/null); do podman kube down "$PLAY/$stage.yaml" >/dev/null 2>&1; done
        # What kube down could not take down (a pod in a bad state), by its name.
        while read -r pod; do podman pod exists "$pod" && podman pod rm -f -t 10 "$pod" >/dev/null; done < "$PLAY/pods.txt"
        for volume in $volumes; do podman volume rm -f "$volume" >/dev/null 2>&1; done
        left="$(while read -r pod; do podman pod exists "$pod" && echo "pod:$pod"; done < "$PLAY/pods.txt")"
        left+="$(for volume in $volumes; do podman volume exists "$volume" && echo " volume:$volume"; done)"
    fi
    if [ -f "$PLAY/network-made" ]; then
        podman network rm -f "$NETWORK" >/dev/null
        podman network exists "$NETWORK" && left+=" network:$NETWORK"
    fi
    [ -f "$PLAY/new-pause" ] && podman images --format '{{.Repository}}:{{.Tag}}' | grep podman-pause >> "$PLAY/loaded-images"
    if [ -f "$PLAY/loaded-images" ]; then
        while read -r image; do
            podman rmi -f "$image" >/dev/null 2>&1
            podman image exists "$image" && left+=" image:$image"
        done < "$PLAY/loaded-images"
    fi
    if [ -n "${left// /}" ]; then log "left behind:$(echo " $left")"; status=1; else log "nothing of the play left"; fi
    rm -rf "$PLAY/secrets" "$PLAY/loaded-images" "$PLAY/new-pause" "$PLAY/played" "$PLAY/network-made"
    # The engine stopped if this test started it, unless containers of others run on it.
    if [ -z "$(docker ps -q 2>/dev/null)" ]; then "$ROOT/deploy/engine.sh" stop; else log "the engine runs containers: left running"; fi
    return $status
}

command -v podman >/dev/null && command -v catatonit >/dev/null && [ -x /usr/lib/cni/dnsname ] || install_podman
rm -rf "$PLAY" && mkdir -p "$PLAY"
printf '[containers]\ndefault_ulimits = ["nofile=16384:16384", "nproc=8192:8192"]\n[engine]\nruntime = "runc"\n' \
    > "$CONTAINERS_CONF"
trap 'status=$?; teardown || status=1; exit $status' EXIT
started=$(now_ms)

"$ROOT/deploy/engine.sh" start
"$ROOT/deploy/compose-plugin.sh"
"$ROOT/deploy/base-images.sh"
log "building the images (as compose-up does)"
docker compose --project-name "$COMPOSE_PROJECT" --env-file "$(images_env)" \
    build --quiet migrate proxy pgbouncer
source "$(images_env)"
images=(puzzle-queue:latest puzzle-queue-proxy:latest puzzle-queue-pgbouncer:latest "$POSTGRES_IMAGE" "$REDIS_IMAGE")
# podman builds its pause image on the first pod: removed with the loaded ones if it is new.
podman images --format '{{.Repository}}:{{.Tag}}' | grep -q podman-pause || touch "$PLAY/new-pause"

log "docker save | podman load: ${images[*]}"
loading=$(now_ms)
for image in "${images[@]}"; do
    podman image exists "$image" && continue
    docker save "$image" | podman load --quiet >/dev/null
    echo "$image" >> "$PLAY/loaded-images"
done
loaded=$(now_ms)

log "rendering overlay small (kubectl kustomize) and making it runnable by podman"
"$PY" -m deploy.k8s_render small "$PLAY/small.yaml"
"$PY" deploy/k8s_play_test.py transform "$PLAY/small.yaml" "$PLAY" --publish "proxy=$PORT" \
    --image "puzzle-queue=puzzle-queue:latest" --image "puzzle-queue-proxy=puzzle-queue-proxy:latest" \
    --image "puzzle-queue-pgbouncer=puzzle-queue-pgbouncer:latest" \
    --image "postgres=$POSTGRES_IMAGE" --image "redis=$REDIS_IMAGE"

# Pods and claims of these names that are not this run's are left alone: the run stops instead.
taken=""
while read -r pod; do if podman pod exists "$pod"; then taken+=" pod:$pod"; fi; done < "$PLAY/pods.txt"
while read -r claim; do if podman volume exists "$claim"; then taken+=" volume:$claim"; fi; done < "$PLAY/pvcs.txt"
if podman network exists "$NETWORK"; then taken+=" network:$NETWORK"; fi
if [ -n "$taken" ]; then
    rm -f "$PLAY/pods.txt" "$PLAY/pvcs.txt"
    die "already in podman, not made by this run:$taken (podman kube down, podman volume rm, podman network rm)"
fi
podman network create "$NETWORK" >/dev/null && touch "$PLAY/network-made"
play() {
    echo "$1" >> "$PLAY/played"
    podman kube play --network "$NETWORK" "$PLAY/$1.yaml" >"$PLAY/$1.log" 2>&1 || { cat "$PLAY/$1.log" >&2; die "kube play $1 failed"; }
}
until_true() {  # seconds what command...
    local deadline=$(( $(date +%s) + $1 )) what=$2; shift 2
    until "$@" >/dev/null 2>&1; do
        [ "$(date +%s)" -lt "$deadline" ] || die "$what: not within the time allowed"
        sleep 2
    done
}
log "kube play 1-data: PostgreSQL, Redis, PgBouncer"
play 1-data
until_true 300 "PostgreSQL ready" podman exec postgres-postgres pg_isready -h 127.0.0.1 -U puzzle -d puzzle
until_true 120 "Redis ready" podman exec redis-redis redis-cli ping
log "kube play 2-migrate: the migration Job's pod, once"
play 2-migrate
code=$(podman wait migrate-migrate)
applied=$(podman logs migrate-migrate 2>&1 | grep -c "Running upgrade" || true)
log "the migration exited $code, $applied revisions applied"
[ "$code" = 0 ] || { podman logs migrate-migrate >&2; die "the migration exited $code"; }
log "kube play 3-app: API, workers, scheduler, proxy on port $PORT"
play 3-app
until_true 600 "/readyz through port $PORT" curl -fsS "http://127.0.0.1:$PORT/readyz"
ready=$(now_ms)
printf 'start_seconds=%s\nload_seconds=%s\nplay_seconds=%s\n' "$(seconds "$started" "$ready")" \
    "$(seconds "$loading" "$loaded")" "$(seconds "$loaded" "$ready")" > "$PLAY/timings"
podman pod ps --format 'table {{.Name}}\t{{.Status}}\t{{.NumberOfContainers}}'
"$PY" deploy/k8s_play_test.py check --api "http://127.0.0.1:$PORT" \
    --token-file "$(ls -d "$PLAY"/secrets/puzzle-tokens-*)/api_tokens"
