"""deploy/k8s as `kubectl kustomize` renders it, against the service and the compose file."""

import math
import os
import shutil

import pytest
import yaml

from deploy.k8s_render import ROOT, render
from store.settings import Settings
from tests.test_deploy_files import unset_default

pytestmark = pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not installed")
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
SECRET_ENV = ("API_TOKENS", "METRICS_TOKEN", "ADMIN_TOKENS", "DATABASE_URL", "DIRECT_DATABASE_URL")


@pytest.fixture(scope="module")
def objects() -> dict[tuple[str, str], dict]:
    return {(doc["kind"], doc["metadata"]["name"]): doc for doc in render("small")}


def pod(objects, kind: str, name: str) -> dict:
    return objects[kind, name]["spec"]["template"]["spec"]


def env_of(objects, container: dict) -> dict[str, str]:
    env = {}
    for source in container.get("envFrom", []):
        prefix = source["configMapRef"]["name"]
        config = next(v for (k, n), v in objects.items() if k == "ConfigMap" and n.startswith(prefix))
        env.update(config["data"])
    env.update({e["name"]: e["value"] for e in container.get("env", [])})
    return env


def test_the_workers_take_the_lanes_queues_and_outlast_the_hard_limit(objects) -> None:
    settings = Settings.from_env({})
    lanes, time = settings.lanes, settings.time
    hard = time.task_limits(1)[1]
    assert hard == time.puzzle_time_limit + 1 + time.hard_time_grace
    for name, queue in (("worker-cheap", lanes.task_queue), ("worker-dear", lanes.dear_queue)):
        spec = pod(objects, "Deployment", name)
        command = spec["containers"][0]["command"]
        assert command[command.index("-Q") + 1] == queue and "-B" not in command
        assert spec["terminationGracePeriodSeconds"] > hard, name
    assert objects["Deployment", "scheduler"]["spec"]["replicas"] == 1
    assert objects["Deployment", "scheduler"]["spec"]["strategy"]["type"] == "Recreate"


def test_the_api_is_probed_on_readyz_and_healthz_with_a_disruption_budget(objects) -> None:
    api = pod(objects, "Deployment", "api")["containers"][0]
    assert api["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert api["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert api["command"] == COMPOSE["api"]["command"]
    assert objects["PodDisruptionBudget", "api"]["spec"]["selector"]["matchLabels"] == \
        objects["Deployment", "api"]["spec"]["selector"]["matchLabels"]
    assert objects["Job", "migrate"]["spec"]["template"]["spec"]["containers"][0]["command"] == \
        COMPOSE["migrate"]["command"]


def test_every_app_container_has_composes_environment_with_secrets_in_files(objects) -> None:
    compose_names = {"api": "api", "worker-cheap": "worker-cheap", "worker-dear": "worker",
                     "worker-callbacks": "worker-callbacks", "scheduler": "scheduler"}
    for name, compose in compose_names.items():
        container = pod(objects, "Deployment", name)["containers"][0]
        env = env_of(objects, container)
        expected = {k: unset_default(str(v)) for k, v in COMPOSE[compose]["environment"].items()
                    if k not in SECRET_ENV}
        assert {k: v for k, v in env.items() if not k.endswith("_FILE")} == expected, name
        # Secrets are files under /run/secrets/, never values.
        mounts = {m["mountPath"] for m in container["volumeMounts"]}
        for secret in SECRET_ENV:
            assert secret not in env, name
            assert env[f"{secret}_FILE"].rsplit("/", 1)[0] in mounts, (name, secret)
        read = {k: v for k, v in env.items() if not k.endswith("_FILE")}
        settings = Settings.from_env({**read, "DATABASE_URL": "postgresql+psycopg://u@pgbouncer:6432/d"})
        assert settings.connections.transaction_pooled
        assert container["resources"]["requests"] and container["resources"]["limits"], name
    for (kind, name), doc in objects.items():
        if kind == "Secret":
            for value in doc.get("data", {}).values():
                assert all(value not in str(e) for e in objects.values() if e["kind"] != "Secret"), name


def lists(queue: str) -> list[str]:
    return [queue] + [f"{queue}\x06\x16{level}" for level in range(1, 10)]


def test_each_lane_scales_on_the_sum_of_its_priority_lists(objects) -> None:
    lanes = Settings.from_env({}).lanes
    for name, queue, least in (("worker-cheap", lanes.task_queue, 1), ("worker-dear", lanes.dear_queue, 0)):
        spec = objects["ScaledObject", name]["spec"]
        assert spec["scaleTargetRef"]["name"] == name and spec["minReplicaCount"] == least
        triggers = spec["triggers"]
        assert [t["metadata"]["listName"] for t in triggers] == lists(queue)
        assert spec["advanced"]["scalingModifiers"]["formula"] == " + ".join(t["name"] for t in triggers)


@pytest.fixture
def redis_url() -> str:
    import redis

    # Its own database number: the burst's keys never meet another run's queues.
    url = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/0").rsplit("/", 1)[0] + "/13"
    try:
        redis.Redis.from_url(url, socket_connect_timeout=2).ping()
    except redis.RedisError:
        if os.environ.get("REQUIRE_SERVICES"):
            raise
        pytest.skip("no Redis at TEST_REDIS_URL")
    return url


def keda_replicas(depth: int, target: int, least: int, most: int) -> int:
    """KEDA's rule: ceil(depth / target) (AverageValue), within min and max; 0 only when idle."""
    return max(least, min(most, math.ceil(depth / target)))


@pytest.mark.integration
def test_the_replica_count_follows_a_burst_in_the_real_redis(objects, redis_url) -> None:
    import redis
    from celery import Celery

    from store.broker import celery_config

    settings = Settings.from_env({"REDIS_URL": redis_url})
    app = Celery("burst")
    app.conf.update(celery_config(settings))
    client = redis.Redis.from_url(redis_url)
    lanes = settings.lanes
    client.delete(*lists(lanes.dear_queue))
    spec = objects["ScaledObject", "worker-dear"]["spec"]
    target = int(spec["advanced"]["scalingModifiers"]["target"])
    least, most = spec["minReplicaCount"], spec["maxReplicaCount"]
    try:
        assert keda_replicas(sum(client.llen(k) for k in lists(lanes.dear_queue)), target, least, most) == 0
        for priority in range(10):
            for _ in range(3):
                app.send_task("burst.noop", queue=lanes.dear_queue, priority=priority)
        per_list = [client.llen(k) for k in lists(lanes.dear_queue)]
        assert sum(per_list) == 30 and max(per_list) < 30  # spread over the levels
        assert keda_replicas(sum(per_list), target, least, most) == min(most, math.ceil(30 / target))
        # What a single listName would see: the base list only.
        alone = keda_replicas(per_list[0], target, least, most)
        assert alone < keda_replicas(sum(per_list), target, least, most)
    finally:
        client.delete(*lists(lanes.dear_queue))
