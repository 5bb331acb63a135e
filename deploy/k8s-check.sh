#!/usr/bin/env bash
# `make k8s-check`: deploy/k8s rendered (both overlays), every object validated offline against
# the Kubernetes schemas (kubernetes-validate; the ScaledObjects against KEDA's, vendored in
# deploy/k8s/keda-scaledobject.schema.json) (kubectl create --dry-run=client needs a server to map kinds, so it is not run) and checked by
# checkov (its own venv: its pins would move the project's). No cluster is needed.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
CHECKOV_VERSION=3.3.30
K8S_VERSION=1.32.0
out=var/k8s
mkdir -p "$out"
for overlay in small small-hpa; do
    "$PY" -m deploy.k8s_render "$overlay" "$out/$overlay.yaml"
    # Built-in kinds against the Kubernetes schemas; the KEDA kinds by the vendored schema below.
    "$PY" -m kubernetes_validate --quiet --strict -k "$K8S_VERSION" "$out/$overlay.yaml" \
        | { grep -v "ScaledObject" || true; } | tee "$out/$overlay.validate" >&2
    "$PY" -c 'import sys, yaml, json, jsonschema
schema = json.load(open("deploy/k8s/keda-scaledobject.schema.json"))
for doc in yaml.safe_load_all(open(sys.argv[1])):
    if doc and doc["kind"] == "ScaledObject":
        jsonschema.validate(doc, schema)' "$out/$overlay.yaml"
    echo "$overlay: rendered, validated"
done
test ! -s "$out/small.validate" && test ! -s "$out/small-hpa.validate"
if [ ! -x var/checkov/bin/checkov ]; then
    python3 -m venv var/checkov
    var/checkov/bin/pip install --quiet "checkov==$CHECKOV_VERSION"
fi
# Offline (no API key) checkov gives no severities: every failed check fails this, but those in
# deploy/k8s/checkov-skip.txt, each with its reason.
skips=$(grep -o '^CKV[A-Z0-9_]*' deploy/k8s/checkov-skip.txt | paste -sd, -)
for overlay in small small-hpa; do
    var/checkov/bin/checkov --quiet --compact --skip-download --framework kubernetes --skip-check "$skips" \
        -f "$out/$overlay.yaml"
done
