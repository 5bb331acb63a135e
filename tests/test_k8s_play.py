"""deploy/k8s_play_test.py's transform: overlay small as podman kube play files (make k8s-play-test
runs them; here only what the files hold is checked)."""

import shutil
import sys
from pathlib import Path

import pytest
import yaml

from deploy.k8s_render import ROOT, render

sys.path.insert(0, str(ROOT / "deploy"))  # the script imports compose_test as its neighbour
import k8s_play_test

pytestmark = pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not installed")
STAND_INS = {"puzzle-queue": "puzzle-queue:latest", "puzzle-queue-proxy": "puzzle-queue-proxy:latest",
             "puzzle-queue-pgbouncer": "puzzle-queue-pgbouncer:latest",
             "postgres": "puzzle-queue-base/postgres:15", "redis": "puzzle-queue-base/redis:7.0"}
OFFICIAL = {**STAND_INS, "postgres": "postgres:16", "redis": "redis:7"}


@pytest.fixture(scope="module")
def rendered() -> list[dict]:
    return render("small")


def play(rendered: list[dict], out: Path, images: dict[str, str]) -> dict[str, list[dict]]:
    k8s_play_test.transform(rendered, out, images, {"proxy": 18000})
    return {stage: list(yaml.safe_load_all((out / f"{stage}.yaml").read_text()))
            for stage in ("1-data", "2-migrate", "3-app")}


def pods(stages: dict[str, list[dict]]) -> dict[str, dict]:
    return {d["metadata"]["name"]: d for docs in stages.values() for d in docs if d["kind"] == "Pod"}


def containers(pod: dict) -> list[dict]:
    return pod["spec"]["containers"]


def test_the_stages_hold_only_what_podman_runs_in_their_order(rendered, tmp_path) -> None:
    stages = play(rendered, tmp_path, STAND_INS)
    kinds = {d["kind"] for docs in stages.values() for d in docs}
    assert kinds == {"ConfigMap", "PersistentVolumeClaim", "Pod"}
    names = {stage: [d["metadata"]["name"] for d in docs if d["kind"] == "Pod"]
             for stage, docs in stages.items()}
    assert sorted(names["1-data"]) == ["pgbouncer", "postgres", "redis"]
    assert names["2-migrate"] == ["migrate"]
    assert sorted(names["3-app"]) == ["api", "proxy", "scheduler", "worker-callbacks", "worker-cheap",
                                     "worker-dear"]
    assert names["3-app"][-1] == "proxy"  # nginx resolves `api` once, at start
    migrate = pods(stages)["migrate"]
    assert migrate["spec"]["restartPolicy"] == "Never"
    assert containers(migrate)[0]["command"] == ["alembic", "upgrade", "head"]
    assert (tmp_path / "pods.txt").read_text().split() == [*names["1-data"], "migrate", *names["3-app"]]
    claims = [d["metadata"]["name"] for d in stages["1-data"] if d["kind"] == "PersistentVolumeClaim"]
    assert sorted(claims) == ["data-postgres-0", "data-redis-0"]
    assert (tmp_path / "pvcs.txt").read_text().split() == claims


def test_every_service_is_a_pod_of_its_name_and_only_the_proxy_is_published(rendered, tmp_path) -> None:
    by_name = pods(play(rendered, tmp_path, STAND_INS))
    for service in (d for d in rendered if d["kind"] == "Service"):
        labels = by_name[service["metadata"]["name"]]["metadata"]["labels"]
        assert service["spec"]["selector"].items() <= labels.items()
    published = {(name, port["containerPort"], port["hostPort"])
                 for name, pod in by_name.items() for c in containers(pod) for port in c.get("ports", [])}
    assert published == {("proxy", 8000, 18000)}
    probes = [c[probe][action]["port"] for pod in by_name.values() for c in containers(pod)
              for probe in ("livenessProbe", "readinessProbe", "startupProbe") if probe in c
              for action in ("httpGet", "tcpSocket") if action in c[probe]]
    assert probes and all(isinstance(port, int) for port in probes)


def test_images_are_local_and_secrets_are_files_of_the_secrets_keys(rendered, tmp_path) -> None:
    by_name = pods(play(rendered, tmp_path, STAND_INS))
    for pod in by_name.values():
        assert "initContainers" not in pod["spec"]
        for container in containers(pod):
            assert container["image"] in STAND_INS.values() and container["imagePullPolicy"] == "Never"
        assert not any("secret" in volume for volume in pod["spec"].get("volumes", []))
    db = next(Path(v["hostPath"]["path"]) for v in by_name["api"]["spec"]["volumes"] if v["name"] == "db")
    assert sorted(p.name for p in db.iterdir()) == ["database_url", "db_password", "direct_database_url"]
    password = (db / "db_password").read_text().strip()
    assert f":{password}@pgbouncer:6432/" in (db / "database_url").read_text()


def test_stand_ins_start_as_root_through_their_entrypoints_and_official_images_as_written(rendered,
                                                                                         tmp_path) -> None:
    stand_in = pods(play(rendered, tmp_path / "stand-in", STAND_INS))
    for name in ("postgres", "redis"):
        assert "securityContext" not in stand_in[name]["spec"]
        assert "securityContext" not in containers(stand_in[name])[0]
    assert containers(stand_in["redis"])[0]["command"][:2] == ["redis-entrypoint.sh", "redis-server"]
    assert "POSTGRES_PASSWORD_FILE" in containers(stand_in["postgres"])[0]["command"][2]
    assert stand_in["api"]["spec"]["securityContext"]["runAsUser"] == 10001
    official = pods(play(rendered, tmp_path / "official", OFFICIAL))
    assert official["postgres"]["spec"]["securityContext"]["runAsUser"] == 999
    assert "command" not in containers(official["postgres"])[0]


def test_a_service_named_unlike_its_pods_is_refused(rendered, tmp_path) -> None:
    renamed = [dict(d, metadata={**d["metadata"], "name": "cache"}) if (d["kind"], d["metadata"]["name"]) ==
               ("Service", "redis") else d for d in rendered]
    with pytest.raises(SystemExit, match="Service cache selects no pod named cache"):
        k8s_play_test.transform(renamed, tmp_path, STAND_INS, {"proxy": 18000})
