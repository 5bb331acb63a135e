#!/usr/bin/env bash
# make compose-test: compose-up, the checks of deploy/compose_test.py over HTTP (known answers,
# a split count across workers, a worker container killed, PostgreSQL and Redis restarted),
# then compose-down whatever happened. Exits with the checks' status.
source "$(dirname "$0")/common.sh"
cd "$ROOT"

trap '"$ROOT/deploy/compose-down.sh"' EXIT
"$ROOT/deploy/compose-up.sh"
python3 "$ROOT/deploy/compose_test.py"
