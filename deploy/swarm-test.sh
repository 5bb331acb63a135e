#!/usr/bin/env bash
# make swarm-test: swarm-up, the checks of deploy/swarm_test.py (a mixed batch, workers scaled
# and updated under running jobs, PgBouncer's pool under 32 worker processes), then swarm-down
# whatever happened, which fails if anything of the stack is left. Exits 1 if either failed.
source "$(dirname "$0")/common.sh"
cd "$ROOT"

# The checks' report (its last 60 lines) is printed again after swarm-down, so that it ends the output (a CI log's
# tail shows which check failed, not the teardown's lines).
REPORT="$ROOT/var/swarm-test.txt"
trap 'status=$?; "$ROOT/deploy/swarm-down.sh" || status=1; [ -f "$REPORT" ] && tail -n 60 "$REPORT"; exit $status' EXIT
# The checks' dear puzzles (15-puzzles by A*, swarm_test.dear_cases) are predicted at milliseconds:
# the stack under test sends such tasks to the dear lane.
export DEAR_SECONDS="${DEAR_SECONDS:-0.001}"
"$ROOT/deploy/swarm-up.sh"
rm -f "$REPORT"
python3 -u "$ROOT/deploy/swarm_test.py" | tee "$REPORT"
