#!/bin/sh
# The official image's contract: `redis-server ARGS` runs as redis, listening on every address.
set -e
if [ "$1" = redis-server ]; then
    shift
    exec setpriv --reuid=redis --regid=redis --init-groups \
        redis-server --bind '* -::*' --protected-mode no "$@"
fi
exec "$@"
