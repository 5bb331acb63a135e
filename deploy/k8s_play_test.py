"""make k8s-play-test's halves: deploy/k8s (overlay small) made runnable by `podman kube play`,
and the checks over HTTP once it runs.

    python deploy/k8s_play_test.py transform RENDERED OUT --image NAME=LOCAL ... --publish proxy=PORT
    python deploy/k8s_play_test.py check --api http://127.0.0.1:PORT --token-file FILE

`transform` writes three files under OUT, played in this order: 1-data.yaml (PostgreSQL, Redis,
PgBouncer), 2-migrate.yaml (the migration Job's pod, run once), 3-app.yaml (API, workers,
scheduler, proxy last), each with the ConfigMaps its pods read; pvcs.txt names the claims (podman
volumes) and pods.txt the pods, for the teardown. What podman cannot run is said on stdout. The
app pods' init containers, which wait for the migration, are left out: stage 2 has completed it.

`check` waits for /readyz through the published port, answers a mixed batch with known answers
(compose_test's cases, and swarm_test's dear 15-puzzles for the dear lane), sees that both lanes'
worker pods ran tasks, and prints a table; exits 1 if any check failed.

Glossary
  stand-in    an image of deploy/base-images.sh (puzzle-queue-base/...): Debian's PostgreSQL or
              Redis behind an entrypoint that starts as root and drops to its own user (setpriv)
  pod name    the name of the Deployment or StatefulSet, which here is its Service's name too:
              on a named podman network, aardvark-dns answers pod names, so `postgres`, `redis`,
              `pgbouncer` and `api` resolve as they do through Services in a cluster
"""

from __future__ import annotations

import argparse
import base64
import copy
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import yaml
from compose_test import (  # run as a script: deploy/ is on the path
    Report,
    Stack,
    eight_puzzle_cases,
    finish,
    machine_row,
    nqueens_cases,
    start_up_rows,
    sudoku_cases,
    timed_job,
)
from swarm_test import dear_cases

ROOT = Path(__file__).resolve().parents[1]
PLAY_STATE = ROOT / "var" / "k8s-play"
Doc = dict[str, Any]
# Kinds made into files or pods (ConfigMaps as they are, Secrets as files, Services as pod names);
# every other kind (PodDisruptionBudget, ScaledObject, HorizontalPodAutoscaler, Namespace) is dropped.
USED = {"ConfigMap", "Secret", "Service"}
# The play's settings beside the manifests' own: the dear cases (15-puzzles by A*,
# swarm_test.dear_cases) are predicted at milliseconds, and must reach the dear lane's pods.
TEST_SETTINGS = {"DEAR_SECONDS": "0.001"}
STAND_IN = "puzzle-queue-base/"
# The stand-in PostgreSQL reads POSTGRES_PASSWORD only; its PGDATA directory must exist, and the
# socket directory (an emptyDir) be postgres's.
POSTGRES_STAND_IN = ('export POSTGRES_PASSWORD="$(cat "$POSTGRES_PASSWORD_FILE")"; mkdir -p "$PGDATA"; '
                     'chown postgres:postgres /var/run/postgresql; exec postgres-entrypoint.sh postgres')


# -- transform

def local_image(image: str, images: dict[str, str]) -> str:
    """The local image for a rendered one (registry.example/puzzle-queue:1 -> images['puzzle-queue'])."""
    name = image.rsplit("/", 1)[-1].split(":")[0]
    if name not in images:
        raise SystemExit(f"no local image given for {image} (--image {name}=...)")
    return images[name]


def unpublished(container: Doc) -> None:
    """Only ports with a hostPort kept (podman 4.3 publishes every containerPort on the host, where
    PostgreSQL's and Redis's would meet the machine's own); probes name the others by number."""
    numbers = {port.get("name"): port["containerPort"] for port in container.get("ports", [])}
    for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
        for action in ("httpGet", "tcpSocket"):
            target = container.get(probe, {}).get(action)
            if target and target["port"] in numbers:
                target["port"] = numbers[target["port"]]
    container["ports"] = [port for port in container.get("ports", []) if "hostPort" in port]
    if not container["ports"]:
        del container["ports"]


def fit_containers(spec: Doc, images: dict[str, str], secrets: dict[str, Path]) -> None:
    """Local images never pulled; Secret volumes as host directories of their files (podman 4.3's
    Secret volumes crash kube play); stand-ins started as root, as their entrypoints need."""
    stand_in = False
    # The gates (`migrated`) wait for what stage 2 has done; podman 4.3 would restart them under
    # the pod's restartPolicy Always once they exit, and never start the pod.
    spec.pop("initContainers", None)
    for container in spec["containers"]:
        container["image"] = local_image(container["image"], images)
        container["imagePullPolicy"] = "Never"
        unpublished(container)
        if container["image"].startswith(STAND_IN):
            stand_in = True
            container.pop("securityContext", None)
            # `command` replaces an image's entrypoint, which the stand-ins need (root, setpriv).
            if "postgres" in container["image"]:
                container["command"] = ["sh", "-c", POSTGRES_STAND_IN]
            elif "redis" in container["image"]:
                container["command"] = ["redis-entrypoint.sh", *container["command"]]
    for volume in spec.get("volumes", []):
        if "secret" in volume:
            path = secrets[volume.pop("secret")["secretName"]]
            volume["hostPath"] = {"path": str(path), "type": "Directory"}
    if stand_in:
        spec.pop("securityContext", None)


def pod(name: str, template: Doc) -> Doc:
    """One pod of a workload's template, named after the workload."""
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "labels": template["metadata"].get("labels", {})},
            "spec": copy.deepcopy(template["spec"])}


def claims(statefulset: Doc, spec: Doc) -> list[Doc]:
    """A StatefulSet's volumeClaimTemplates as claims named as a cluster names them (data-postgres-0),
    mounted by the pod."""
    made = []
    for template in statefulset["spec"].get("volumeClaimTemplates", []):
        claim = f"{template['metadata']['name']}-{statefulset['metadata']['name']}-0"
        made.append({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": claim},
                     "spec": template["spec"]})
        spec.setdefault("volumes", []).append(
            {"name": template["metadata"]["name"], "persistentVolumeClaim": {"claimName": claim}})
    return made


def write_secrets(docs: list[Doc], out: Path) -> dict[str, Path]:
    """Each Secret's keys as files under out/secrets/NAME/ (readable by the pods' users)."""
    paths = {}
    for doc in docs:
        if doc["kind"] == "Secret":
            folder = out.resolve() / "secrets" / doc["metadata"]["name"]
            folder.mkdir(parents=True, exist_ok=True)
            for key, value in doc.get("data", {}).items():
                (folder / key).write_bytes(base64.b64decode(value))
                (folder / key).chmod(0o644)
            paths[doc["metadata"]["name"]] = folder
    return paths


def check_services(docs: list[Doc], pods: dict[str, Doc]) -> None:
    """Pod names stand for Services: each Service must name a pod its selector selects."""
    for service in (d for d in docs if d["kind"] == "Service"):
        name, selector = service["metadata"]["name"], service["spec"]["selector"]
        labels = pods[name]["metadata"]["labels"] if name in pods else {}
        if any(labels.get(k) != v for k, v in selector.items()):
            raise SystemExit(f"Service {name} selects no pod named {name}: its name would not resolve")


def publish(pods: dict[str, Doc], docs: list[Doc], published: dict[str, int]) -> None:
    """A Service's port on the host (hostPort), the one thing podman makes of a Service."""
    for service in (d for d in docs if d["kind"] == "Service" and d["metadata"]["name"] in published):
        name = service["metadata"]["name"]
        target = service["spec"]["ports"][0]["targetPort"]
        for container in pods[name]["spec"]["containers"]:
            for port in container.get("ports", []):
                if target in (port.get("name"), port["containerPort"]):
                    port["hostPort"] = published[name]


def published_pod(spec: Doc) -> bool:
    """Whether a pod has a port on the host."""
    return any("hostPort" in port for c in spec["spec"]["containers"] for port in c.get("ports", []))


def workloads(docs: list[Doc]) -> tuple[dict[str, Doc], list[Doc], list[Doc]]:
    """Pods by name (a Deployment's or StatefulSet's), the StatefulSets' claims, the Jobs' pods;
    what becomes of each object is said on stdout."""
    pods: dict[str, Doc] = {}
    pvcs: list[Doc] = []
    jobs: list[Doc] = []
    for doc in docs:
        kind, name = doc["kind"], doc["metadata"]["name"]
        if kind in ("Deployment", "StatefulSet"):
            pods[name] = pod(name, doc["spec"]["template"])
            if kind == "StatefulSet":
                pvcs += claims(doc, pods[name]["spec"])
            if doc["spec"].get("replicas", 1) != 1:
                print(f"{kind} {name}: one pod (replicas {doc['spec'].get('replicas', 1)} in the manifest)")
        elif kind == "Job":
            job = pod(name, doc["spec"]["template"])
            job["spec"]["restartPolicy"] = "Never"
            jobs.append(job)
            print(f"Job {name}: its pod, run once before the app (podman runs no Jobs)")
        elif kind not in USED:
            print(f"{kind} {name}: dropped (podman kube play does not run it)")
    return pods, pvcs, jobs


def transform(docs: list[Doc], out: Path, images: dict[str, str], published: dict[str, int]) -> None:
    """The rendered objects as the three stage files, pvcs.txt and pods.txt under out."""
    out.mkdir(parents=True, exist_ok=True)
    secrets = write_secrets(docs, out)
    config_maps = [d for d in docs if d["kind"] == "ConfigMap"]
    for config in config_maps:
        if config["metadata"]["name"].startswith("app-env"):
            config["data"].update(TEST_SETTINGS)
    pods, pvcs, jobs = workloads(docs)
    check_services(docs, pods)
    publish(pods, docs, published)
    for each in [*pods.values(), *jobs]:
        fit_containers(each["spec"], images, secrets)
    app_images = {local_image(i, images) for i in ("puzzle-queue", "puzzle-queue-proxy")}
    app = [p for p in pods.values() if p["spec"]["containers"][0]["image"] in app_images]
    # Published pods last: nginx resolves its upstream `api` once, at start.
    app.sort(key=published_pod)
    data = [p for p in pods.values() if p not in app]
    stages = (("1-data.yaml", [*pvcs, *data]), ("2-migrate.yaml", jobs), ("3-app.yaml", app))
    for filename, stage in stages:
        (out / filename).write_text(yaml.safe_dump_all([*config_maps, *stage], sort_keys=False))
    names = [p["metadata"]["name"] for p in [*data, *jobs, *app]]
    (out / "pvcs.txt").write_text("".join(f"{c['metadata']['name']}\n" for c in pvcs))
    (out / "pods.txt").write_text("".join(f"{name}\n" for name in names))
    print(f"podman pods: {', '.join(names)}")


# -- checks

def wait_ready(api: str, timeout: float) -> float:
    """Seconds until GET /readyz answers 200 through the published port."""
    started = time.monotonic()
    while True:
        try:
            with urllib.request.urlopen(api + "/readyz", timeout=5) as response:
                if response.status == 200:
                    return time.monotonic() - started
        except (urllib.error.URLError, OSError):
            pass
        if time.monotonic() - started > timeout:
            raise TimeoutError(f"{api}/readyz did not answer 200 within {timeout:.0f} s")
        time.sleep(1)


def tasks_done(pod: str) -> int:
    """Tasks the worker of a lane's pod reports done (Celery's "succeeded in" log lines)."""
    out = subprocess.run(["podman", "logs", f"{pod}-worker"], check=True, capture_output=True, text=True)
    return (out.stdout + out.stderr).count(" succeeded in ")


def mixed_batch(stack: Stack, report: Report) -> None:
    """Sudokus, the n-Queens counts n = 1..10 and 8-puzzles, each checked against its known answer,
    and 15-puzzles dear enough for the dear lane (their moves replayed to the goal)."""
    cases = [*sudoku_cases(10), *nqueens_cases(10), *eight_puzzle_cases(10), *dear_cases(3, seed=1)]
    print(f"mixed batch of {len(cases)} puzzles", flush=True)
    _, seconds, errors = timed_job(stack, cases, "k8s-play-test mixed batch", timeout=600)
    report.row(f"mixed batch, {len(cases)} puzzles with known answers (3 dear)", f"{seconds:.1f} s")
    report.check(not errors, f"every answer right ({len(errors)} wrong: {errors[:3]})")
    done = {pod: tasks_done(pod) for pod in ("worker-cheap", "worker-dear")}
    report.row("tasks done by worker-cheap / worker-dear", f"{done['worker-cheap']} / {done['worker-dear']}")
    report.check(all(done.values()), "both lanes' pods ran tasks")


def check(api: str, token: str) -> int:
    stack, report = Stack(api, token=token), Report()
    machine_row(report)
    start_up_rows(report, PLAY_STATE / "timings", [
        ("start_seconds", "make k8s-play-test start-up (engine, images, podman, pods, /readyz)"),
        ("load_seconds", "  of which the images saved from the engine and loaded into podman"),
        ("play_seconds", "  of which kube play of the three stages until /readyz answers")])
    ready = report.step(wait_ready, api, 600.0)
    report.check(ready is not None, "/readyz answers 200 through the published port")
    if ready is not None:
        report.step(mixed_batch, stack, report)
    return finish(report)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    make = commands.add_parser("transform", help="the rendered objects as three podman kube play files")
    make.add_argument("rendered", type=Path)
    make.add_argument("out", type=Path)
    make.add_argument("--image", action="append", default=[], help="NAME=LOCAL: the local image for NAME")
    make.add_argument("--publish", action="append", default=[], help="SERVICE=PORT: published on the host")
    run = commands.add_parser("check", help="the checks against the running pods")
    run.add_argument("--api", default=f"http://127.0.0.1:{os.environ.get('K8S_PLAY_PORT', '18000')}")
    run.add_argument("--token-file", type=Path, required=True, help="api_tokens: lines of client:token")
    args = parser.parse_args(argv)
    if args.command == "transform":
        docs = [d for d in yaml.safe_load_all(args.rendered.read_text()) if d]
        images = dict(item.split("=", 1) for item in args.image)
        published = {name: int(port) for name, port in (item.split("=", 1) for item in args.publish)}
        transform(docs, args.out, images, published)
        return 0
    token = args.token_file.read_text().split()[0].partition(":")[2]
    return check(args.api, token)


if __name__ == "__main__":
    sys.exit(main())
