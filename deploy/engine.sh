#!/usr/bin/env bash
# A Docker engine on the default socket: `engine.sh start` starts one if none answers
# (installing Debian's docker.io where dockerd is missing), `engine.sh stop` stops it
# only if start started it. The flags are the ones a machine without iptables needs;
# published ports still work through docker-proxy.
source "$(dirname "$0")/common.sh"

PIDFILE="$STATE/dockerd.pid"

engine_answers() { docker version --format '{{.Server.Version}}' >/dev/null 2>&1; }

install_engine() {
    command -v apt-get >/dev/null || die "no dockerd and no apt-get: install a Docker engine"
    log "installing Debian's docker.io"
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends docker.io >&2 \
        || { apt-get update >&2 && DEBIAN_FRONTEND=noninteractive \
             apt-get install -y --no-install-recommends docker.io >&2; }
}

start() {
    mkdir -p "$STATE"
    if engine_answers; then
        log "a Docker engine already runs: using it"
        return
    fi
    command -v dockerd >/dev/null || install_engine
    mkdir -p "$DOCKER_DATA_ROOT"
    log "starting dockerd (data root $DOCKER_DATA_ROOT, log $STATE/dockerd.log)"
    setsid dockerd --data-root "$DOCKER_DATA_ROOT" \
        --iptables=false --ip6tables=false --ip-forward=false --ip-masq=false \
        --storage-driver=overlay2 >"$STATE/dockerd.log" 2>&1 < /dev/null &
    echo $! > "$PIDFILE"
    for _ in $(seq 1 60); do
        engine_answers && { log "engine ready"; return; }
        kill -0 "$(cat "$PIDFILE")" 2>/dev/null || break
        sleep 1
    done
    tail -20 "$STATE/dockerd.log" >&2
    die "dockerd did not answer"
}

stop() {
    [ -f "$PIDFILE" ] || { log "the engine was not started by compose-up: left running"; return; }
    local pid; pid="$(cat "$PIDFILE")"
    if kill -0 "$pid" 2>/dev/null; then
        log "stopping the dockerd compose-up started (pid $pid)"
        kill -TERM "$pid"
        for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
    fi
    rm -f "$PIDFILE"
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    *) die "usage: $0 start|stop" ;;
esac
