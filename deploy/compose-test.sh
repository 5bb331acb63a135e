#!/usr/bin/env bash
# make compose-test: compose-up, the checks of deploy/compose_test.py over HTTP (known answers,
# a split count across workers, a worker container killed, PostgreSQL and Redis restarted),
# then compose-down whatever happened. Exits with the checks' status.
source "$(dirname "$0")/common.sh"
cd "$ROOT"

# The checks' report (its last 60 lines) is printed again after compose-down, so that it ends the output (a CI log's
# tail shows which check failed, not the teardown's lines).
REPORT="$STATE/compose-test.txt"
trap 'status=$?; "$ROOT/deploy/compose-down.sh"; [ -f "$REPORT" ] && tail -n 60 "$REPORT"; exit $status' EXIT
"$ROOT/deploy/compose-up.sh"
rm -f "$REPORT"
python3 -u "$ROOT/deploy/compose_test.py" | tee "$REPORT"
