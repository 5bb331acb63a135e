#!/usr/bin/env bash
# The base images the compose file and the Dockerfile start from. Where a registry answers,
# the official images are pulled; where none can be reached (these machines), stand-ins are
# built from Debian's packages: debootstrap + docker import gives a Debian base that trusts
# the host's CA certificates (downloads from inside a build pass a TLS-intercepting proxy),
# and deploy/base/*.Dockerfile add PostgreSQL, Redis and Python to it. The chosen names are
# written to $STATE/images.env for compose-up.
source "$(dirname "$0")/common.sh"

OFFICIAL=(postgres:16 redis:7 python:3.11-slim)
DEBIAN_IMAGE=puzzle-queue-base/debian:bookworm
SUITE=bookworm
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"

write_env() {  # postgres redis python
    mkdir -p "$STATE"
    printf 'POSTGRES_IMAGE=%s\nREDIS_IMAGE=%s\nPYTHON_IMAGE=%s\n' "$1" "$2" "$3" > "$(images_env)"
}

pull_official() {
    for image in "${OFFICIAL[@]}"; do
        docker image inspect "$image" >/dev/null 2>&1 && continue
        timeout 300 docker pull --quiet "$image" >/dev/null 2>&1 || return 1
    done
}

# A minimal Debian root that trusts what the host trusts, imported as an image once; the
# tarball is kept under $CACHE so that a new engine data root does not pay debootstrap again.
debian_base() {
    docker image inspect "$DEBIAN_IMAGE" >/dev/null 2>&1 && return
    local tarball="$CACHE/base/debian-$SUITE-minbase.tar"
    if [ ! -f "$tarball" ]; then
        command -v debootstrap >/dev/null || DEBIAN_FRONTEND=noninteractive \
            apt-get install -y --no-install-recommends debootstrap >&2
        local root="$CACHE/base/rootfs"
        rm -rf "$root" && mkdir -p "$root"
        log "debootstrap $SUITE into $root (about a minute)"
        debootstrap --variant=minbase --include=ca-certificates "$SUITE" "$root" "$MIRROR" >&2
        cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/" 2>/dev/null || true
        chroot "$root" update-ca-certificates >&2
        # The host's whole bundle too: it may trust a proxy CA kept elsewhere than /usr/local.
        cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
        printf 'deb %s %s main\ndeb %s %s-updates main\ndeb http://deb.debian.org/debian-security %s-security main\n' \
            "$MIRROR" "$SUITE" "$MIRROR" "$SUITE" "$SUITE" > "$root/etc/apt/sources.list"
        chroot "$root" apt-get clean
        rm -rf "$root/var/lib/apt/lists/"*
        tar -C "$root" -cf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball"
        rm -rf "$root"
    fi
    log "importing $tarball as $DEBIAN_IMAGE"
    docker import --change 'CMD ["bash"]' --change 'ENV LANG=C.UTF-8' "$tarball" "$DEBIAN_IMAGE" >&2
}

stand_in() {  # name dockerfile; the log is shown only when the build fails
    log "building $1 from Debian's packages"
    local out="$STATE/build-${2%.Dockerfile}.log"
    docker build --network host --build-arg "BASE=$DEBIAN_IMAGE" \
        -t "$1" -f "$ROOT/deploy/base/$2" "$ROOT/deploy/base" >"$out" 2>&1 \
        || { tail -30 "$out" >&2; die "building $1 failed (log: $out)"; }
}

if pull_official; then
    log "a registry answered: using the official images"
    write_env "${OFFICIAL[@]}"
    exit 0
fi
log "no registry answers: building stand-ins from Debian's packages"
debian_base
stand_in puzzle-queue-base/postgres:15 postgres.Dockerfile
stand_in puzzle-queue-base/redis:7.0 redis.Dockerfile
stand_in puzzle-queue-base/python:3.11 python.Dockerfile
write_env puzzle-queue-base/postgres:15 puzzle-queue-base/redis:7.0 puzzle-queue-base/python:3.11
