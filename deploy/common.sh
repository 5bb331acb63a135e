# Shared settings for the deploy/ scripts (sourced, not run).
# Everything that outlives one clone (the engine's data, base-image tarballs, the Compose
# plugin's archive) lives under CACHE; what one compose-up made is recorded under STATE.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${PUZZLE_DEPLOY_CACHE:-/var/cache/puzzle-queue}"
STATE="$ROOT/var/compose"
DOCKER_DATA_ROOT="${DOCKER_DATA_ROOT:-$CACHE/docker}"
COMPOSE_PROJECT="${COMPOSE_PROJECT_NAME:-puzzle-queue}"

log() { printf '[%s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { log "error: $*"; exit 1; }

# The images the compose file runs; base-images.sh writes the local stand-ins' names here.
images_env() { echo "$STATE/images.env"; }

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
# Seconds between two now_ms readings, one decimal.
seconds() { local ms=$(( $2 - $1 )); printf '%d.%d' $(( ms / 1000 )) $(( ms % 1000 / 100 )); }
