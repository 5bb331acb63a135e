#!/usr/bin/env bash
# make swarm-test: swarm-up, the checks of deploy/swarm_test.py (a mixed batch, workers scaled
# and updated under running jobs, PgBouncer's pool under 32 worker processes), then swarm-down
# whatever happened, which fails if anything of the stack is left. Exits 1 if either failed.
source "$(dirname "$0")/common.sh"
cd "$ROOT"

trap 'status=$?; "$ROOT/deploy/swarm-down.sh" || status=1; exit $status' EXIT
# The checks' dear puzzles (15-puzzles by A*, swarm_test.dear_cases) are predicted at milliseconds:
# the stack under test sends such tasks to the dear lane.
export DEAR_SECONDS="${DEAR_SECONDS:-0.001}"
"$ROOT/deploy/swarm-up.sh"
python3 "$ROOT/deploy/swarm_test.py"
