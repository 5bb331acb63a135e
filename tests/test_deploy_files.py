"""The deployment files, read statically (`make compose-test` runs them on a real engine)."""

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

from deploy import lock
from store.broker import CALLBACK_WORKER, WORKER_FLAGS
from store.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
# What starts workers outside the deployments: the tests' and benches' stacks, and `make run`.
STARTERS = ("tests/support/devstack.py", "deploy/run_local.py")
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
SERVICES = COMPOSE["services"]
DOCKERFILE = (ROOT / "Dockerfile").read_text()
NGINX_CONF = (ROOT / "deploy" / "nginx.conf").read_text()
APP_SERVICES = [name for name in SERVICES if name not in ("postgres", "redis", "proxy", "pgbouncer")]
STACK = yaml.safe_load((ROOT / "deploy" / "stack.yml").read_text())
STACK_SERVICES = STACK["services"]
PGBOUNCER_INI = (ROOT / "deploy" / "pgbouncer.ini").read_text()


def test_compose_file_matches_the_compose_spec() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.compose-spec",
         str(ROOT / "docker-compose.yml")],
        check=False, capture_output=True, text=True,
    )
    assert out.returncode == 0, out.stdout + out.stderr


def test_workers_can_scale() -> None:
    worker = SERVICES["worker"]
    # --scale fails on a fixed container name or a published host port.
    assert "container_name" not in worker
    assert "ports" not in worker
    assert "redis-server" in SERVICES["redis"]["command"]
    assert "noeviction" in SERVICES["redis"]["command"]
    # The reaper runs under beat: one scheduler, never one per worker.
    assert "beat" in SERVICES["scheduler"]["command"]
    assert "-B" not in worker["command"]


def test_workers_take_both_lanes_and_one_service_keeps_capacity_for_cheap_work() -> None:
    lanes = Settings.from_env({}).lanes
    both, cheap = (SERVICES[name]["command"] for name in ("worker", "worker-cheap"))
    assert both[both.index("-Q") + 1].split(",") == [lanes.task_queue, lanes.dear_queue]
    assert cheap[cheap.index("-Q") + 1] == lanes.task_queue
    for service in ("worker", "worker-cheap"):
        assert "-B" not in SERVICES[service]["command"] and "ports" not in SERVICES[service]
    # The same lanes in `make run`.
    run_local = (ROOT / "deploy" / "run_local.py").read_text()
    assert """"-Q", ",".join(lanes.queues)""" in run_local and """"-Q", lanes.task_queue""" in run_local


def test_every_deployment_delivers_callbacks_on_a_worker_that_solves_nothing() -> None:
    """Compose, swarm and Kubernetes run a worker of CALLBACK_QUEUE alone, on threads; no solving
    worker takes that queue; `make run` and the tests' stacks start one the same way."""
    lanes = Settings.from_env({}).lanes
    k8s_file = ROOT / "deploy" / "k8s" / "base" / "workers.yaml"
    k8s = {doc["metadata"]["name"]: doc["spec"]["template"]["spec"]["containers"][0]["command"]
           for doc in yaml.safe_load_all(k8s_file.read_text()) if doc and doc["kind"] == "Deployment"}
    places = {"compose": {n: s.get("command") for n, s in SERVICES.items()},
              "stack": {n: s.get("command") for n, s in STACK_SERVICES.items()}, "k8s": k8s}
    for place, commands in places.items():
        queues = {name: c[c.index("-Q") + 1].split(",") for name, c in commands.items()
                  if _is_worker(c) and "-Q" in c}
        assert queues["worker-callbacks"] == [lanes.callback_queue], place
        assert all(lanes.callback_queue not in q for name, q in queues.items() if name != "worker-callbacks")
        command = " ".join(commands["worker-callbacks"])
        assert " ".join(CALLBACK_WORKER) in command, place
    for starter in STARTERS:
        text = (ROOT / starter).read_text()
        assert '*CALLBACK_WORKER, "-Q", ' in text and ".callback_queue" in text, starter


def test_every_long_running_service_has_a_healthcheck() -> None:
    long_running = [name for name, service in SERVICES.items() if service.get("restart") != "no"]
    assert set(long_running) >= {"postgres", "redis", "proxy", "api", "worker", "worker-cheap", "scheduler",
                                 "flower"}
    for name in long_running:
        assert SERVICES[name].get("healthcheck", {}).get("test"), f"{name} has no healthcheck"
    # A worker answers for its own node, not for any worker on the broker.
    for worker in ("worker", "worker-cheap"):
        ping = " ".join(SERVICES[worker]["healthcheck"]["test"])
        assert "inspect ping" in ping and "celery@$$HOSTNAME" in ping


def test_the_image_is_built_once_and_run_by_every_app_service() -> None:
    builders = [name for name, service in SERVICES.items() if "build" in service]
    assert builders == ["pgbouncer", "migrate", "proxy"]
    for built in ("proxy", "pgbouncer"):  # the same base
        assert SERVICES[built]["build"]["args"] == SERVICES["migrate"]["build"]["args"]
    images = {SERVICES[name]["image"] for name in APP_SERVICES}
    assert len(images) == 1, images


def test_flower_asks_for_a_password_and_listens_on_loopback_by_default() -> None:
    flower = SERVICES["flower"]
    assert flower["ports"] == ["${FLOWER_BIND:-127.0.0.1}:${FLOWER_PORT:-5555}:5555"]
    assert flower["environment"]["FLOWER_BASIC_AUTH"] == "${FLOWER_BASIC_AUTH:-}"
    command = " ".join(flower["command"])
    assert 'test -n "$$FLOWER_BASIC_AUTH"' in command and "exit 1" in command


def test_the_api_serves_long_polls_and_downloads_on_threads() -> None:
    # A client waiting on GET /jobs/{id}?wait= or downloading an export holds its thread: with
    # sync workers, four waiting clients would leave no process for anyone else.
    cmd = re.search(r'CMD \[(.*)\]', DOCKERFILE)
    assert cmd is not None and '"--threads"' in cmd.group(1)
    assert "--threads" in SERVICES["api"]["command"]


def test_dependencies_are_installed_from_the_lock_before_any_code_is_copied() -> None:
    lines = [line.strip() for line in DOCKERFILE.splitlines()]
    locked = "--require-hashes -r /tmp/requirements-image.lock"
    install = next(i for i, line in enumerate(lines) if locked in line)
    first_code = next(i for i, line in enumerate(lines) if line.startswith("COPY") and "lock" not in line)
    assert install < first_code
    assert "--no-deps" in DOCKERFILE and "python deploy/lock.py check" in DOCKERFILE


def test_the_image_runs_as_a_user_with_a_home_and_carries_the_pattern_database() -> None:
    assert re.search(r"useradd .*--create-home", DOCKERFILE)
    assert "USER app" in DOCKERFILE and "nobody" not in DOCKERFILE
    assert "python -m solvers.sliding.pdb build" in DOCKERFILE
    assert 'PUZZLE_CACHE_DIR=/var/cache/puzzle-queue' in DOCKERFILE
    for name in APP_SERVICES:
        assert SERVICES[name]["environment"]["PUZZLE_CACHE_DIR"] == "/var/cache/puzzle-queue"


def dockerignored() -> set[str]:
    lines = (ROOT / ".dockerignore").read_text().splitlines()
    return {line.strip() for line in lines if line.strip() and not line.startswith("#")}


def test_the_build_context_leaves_out_the_venv_and_keeps_every_package() -> None:
    ignored = dockerignored()
    assert {".git", ".venv", "var", "tests", ".env"} <= ignored
    assert "COPY . ." in DOCKERFILE
    packages = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]
    needed = [p.rstrip("*") for p in packages["include"]]
    needed += ["migrations", "alembic.ini", "pyproject.toml", "README.md", "requirements-image.lock",
               "requirements.lock", "requirements-dev.lock", "deploy", "solvers"]
    for path in needed:
        assert path not in ignored and (ROOT / path).exists(), path


@pytest.mark.parametrize("name", ["requirements.lock", "requirements-dev.lock", "requirements-image.lock"])
def test_every_locked_package_is_pinned_with_hashes(name: str) -> None:
    text = (ROOT / name).read_text()
    entries = re.split(r"\n(?=[a-z0-9])", text.split("\n", 4)[-1].strip())
    requirements = [entry for entry in entries if not entry.startswith("#")]
    assert len(requirements) > 20
    for entry in requirements:
        assert re.match(r"^[a-z0-9._-]+==\S+", entry), entry.splitlines()[0]
        assert "--hash=sha256:" in entry, entry.splitlines()[0]
    assert lock.locked_digest(ROOT / name) is not None


def locked_pins(name: str) -> dict[str, str]:
    """A lock file's packages and their pinned versions."""
    return dict(re.findall(r"^([a-z0-9._-]+)==(\S+)", (ROOT / name).read_text(), re.MULTILINE))


def test_every_lock_is_checked_and_the_development_lock_constrains_the_others() -> None:
    assert {path.name for path in lock.LOCKS} == {"requirements.lock", "requirements-dev.lock",
                                                  "requirements-image.lock"}
    assert next(iter(lock.LOCKS)).name == "requirements-dev.lock"


def test_the_image_lock_pins_the_same_versions_as_the_development_lock() -> None:
    dev, image = locked_pins("requirements-dev.lock"), locked_pins("requirements-image.lock")
    assert "flower" in image and "pytest" not in image
    shared = image.keys() & dev.keys()
    assert locked_pins("requirements.lock").keys() <= shared
    assert {name: dev[name] for name in shared} == {name: image[name] for name in shared}


def test_the_runtime_lock_holds_what_running_needs_and_no_development_tool() -> None:
    dev, runtime = locked_pins("requirements-dev.lock"), locked_pins("requirements.lock")
    assert {"numba", "flask", "celery", "gunicorn", "sqlalchemy", "alembic"} <= set(runtime)
    tools = {"pytest", "pytest-xdist", "ruff", "mypy", "playwright", "schemathesis", "kubernetes-validate"}
    assert tools <= set(dev) and not tools & set(runtime)
    assert {name: dev.get(name) for name in runtime} == runtime


def test_a_dependency_change_makes_the_lock_stale_and_a_tool_setting_does_not(tmp_path: Path) -> None:
    base = (ROOT / "pyproject.toml").read_text()
    (tmp_path / "a.toml").write_text(base)
    (tmp_path / "b.toml").write_text(base + "\n[tool.example]\nsetting = 1\n")
    added = base.replace("dependencies = [\n", 'dependencies = [\n    "a-new-package>=1",\n', 1)
    (tmp_path / "c.toml").write_text(added)
    digest = lock.inputs_digest(tmp_path / "a.toml")
    assert lock.inputs_digest(tmp_path / "b.toml") == digest
    assert lock.inputs_digest(tmp_path / "c.toml") != digest


def make_recipe(makefile: str, target: str) -> tuple[str, str]:
    """A Makefile rule's prerequisites and its recipe."""
    found = re.search(rf"^{re.escape(target)}:(.*)\n((?:\t.*\n)*)", makefile, re.MULTILINE)
    assert found is not None, target
    return found.group(1), found.group(2)


def test_make_run_installs_the_runtime_lock_and_the_checks_add_the_development_lock() -> None:
    makefile = (ROOT / "Makefile").read_text()
    runtime, install_runtime = make_recipe(makefile, "$(RUN_STAMP)")
    dev, install_dev = make_recipe(makefile, "$(DEV_STAMP)")
    assert "requirements.lock" in runtime and "--require-hashes -r requirements.lock" in install_runtime
    assert "--no-deps --no-build-isolation -e ." in install_runtime
    assert "deploy/lock.py check --install-unlocked\n" in install_runtime
    assert "$(RUN_STAMP)" in dev and "--require-hashes -r requirements-dev.lock" in install_dev
    assert "deploy/lock.py check --install-unlocked --extra dev" in install_dev
    assert make_recipe(makefile, "run")[0].split() == ["venv-run"]
    assert make_recipe(makefile, "venv-run")[0].split() == ["$(RUN_STAMP)"]
    assert make_recipe(makefile, "venv")[0].split() == ["$(DEV_STAMP)"]
    for target in ("test", "test-fast", "lint", "typecheck", "screenshots"):
        assert make_recipe(makefile, target)[0].split() == ["venv"], target


@pytest.mark.parametrize(("extras", "installed"), [([], "."), (["dev"], ".[dev]")])
def test_a_stale_lock_installs_unpinned_only_what_the_venv_asked_for(
        monkeypatch: pytest.MonkeyPatch, extras: list[str], installed: str) -> None:
    calls: list[list[str]] = []
    monkeypatch.setattr(lock, "stale_locks", lambda: [ROOT / "requirements.lock"])
    monkeypatch.setattr(lock.subprocess, "run", lambda command, **_: calls.append(command))
    assert lock.check(install_unlocked=True, extras=extras) == 0
    assert calls == [[sys.executable, "-m", "pip", "install", "--quiet", "-e", installed]]
    assert lock.check(install_unlocked=False, extras=extras) == 1


def test_the_deploy_scripts_parse_and_the_make_targets_call_them() -> None:
    scripts = sorted((ROOT / "deploy").rglob("*.sh"))
    assert len(scripts) >= 7
    for script in scripts:
        out = subprocess.run(["bash", "-n", str(script)], check=False, capture_output=True, text=True)
        assert out.returncode == 0, f"{script.name}: {out.stderr}"
    makefile = (ROOT / "Makefile").read_text()
    for target in ("compose-up", "compose-down", "compose-test"):
        assert re.search(rf"^{target}:.*\n\tdeploy/{target}\.sh$", makefile, re.MULTILINE), target


def test_gunicorn_takes_its_settings_file_and_its_workers_freeze_what_the_app_loaded() -> None:
    import gc
    import runpy

    from gunicorn.config import Config

    # gunicorn reads ./gunicorn.conf.py when no --config is given; every server here runs from the root.
    assert Config().settings["config"].default == "./gunicorn.conf.py"
    hook = runpy.run_path(str(ROOT / "gunicorn.conf.py"))["post_worker_init"]
    assert "gunicorn.conf.py" not in (ROOT / ".dockerignore").read_text()
    try:
        hook(None)
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


def nginx_setting(name: str) -> str:
    found = re.findall(rf"^\s*{name} ([^;{{]+);", NGINX_CONF, re.MULTILINE)
    assert len(found) == 1, name
    return found[0]


def test_only_the_buffering_proxy_is_published_and_the_api_trusts_that_one_hop() -> None:
    # gunicorn's threads read a request as slowly as it comes: only nginx faces clients.
    assert "ports" not in SERVICES["api"]
    assert SERVICES["proxy"]["ports"] == ["${API_BIND:-0.0.0.0}:${API_PORT:-8000}:8000"]
    assert SERVICES["proxy"]["depends_on"]["api"] == {"condition": "service_healthy", "restart": True}
    assert nginx_setting("server") == "api:8000" and nginx_setting("listen") == "8000"
    assert nginx_setting("proxy_request_buffering") == "on"
    assert Settings.from_env({}).http.trusted_proxies == 0
    assert SERVICES["api"]["environment"]["TRUSTED_PROXIES"] == "1"
    # One hop: the proxy's own view of the client, never what the client wrote.
    assert nginx_setting("proxy_set_header X-Forwarded-For") == "$remote_addr"
    for name in APP_SERVICES:
        if name != "api":
            assert "TRUSTED_PROXIES" not in SERVICES[name]["environment"], name


def test_the_proxys_limits_agree_with_the_apis() -> None:
    defaults = Settings.from_env({})
    assert int(nginx_setting("client_max_body_size").rstrip("m")) * 2**20 == defaults.limits.max_body_bytes
    assert f"larger than {defaults.limits.max_body_bytes} bytes" in NGINX_CONF
    assert all("MAX_BODY_BYTES" not in SERVICES[name]["environment"] for name in APP_SERVICES)
    # A long poll is answered before nginx gives up on it.
    assert float(nginx_setting("proxy_read_timeout").rstrip("s")) > defaults.http.wait_cap_seconds
    # nginx closes an idle upstream connection before gunicorn does, so no request meets a closing one.
    command = SERVICES["api"]["command"]
    upstream = re.search(r"upstream api \{(.*?)\}", NGINX_CONF, re.DOTALL)
    assert upstream is not None
    idle = re.search(r"keepalive_timeout (\d+)s;", upstream.group(1))
    assert idle is not None and int(idle.group(1)) < int(command[command.index("--keep-alive") + 1])


def pgbouncer_setting(name: str) -> str:
    found = re.search(rf"^{name}\s*=\s*(.*)$", PGBOUNCER_INI, re.MULTILINE)
    assert found, name
    return found.group(1).strip()


def unset_default(value: str) -> str:
    """A value as compose and stack deploy give it with its variable unset: ``${VAR:-default}``."""
    found = re.fullmatch(r"\$\{\w+:-(.*)\}", value)
    return found.group(1) if found else value


@pytest.mark.parametrize("services", [SERVICES, STACK_SERVICES], ids=["compose", "stack"])
def test_transactions_go_through_pgbouncer_and_sessions_go_direct(services) -> None:
    assert pgbouncer_setting("pool_mode") == "transaction"
    assert pgbouncer_setting("max_db_connections") == pgbouncer_setting("default_pool_size")
    for name in APP_SERVICES:
        if name not in services:
            continue
        env = services[name]["environment"]
        read = {k: unset_default(str(v)) for k, v in env.items() if not k.endswith("_FILE")}
        settings = Settings.from_env(read).connections
        assert "@pgbouncer:6432/" in settings.database_url and settings.transaction_pooled, name
        # The API's LISTEN and the migrations: a session of their own, on PostgreSQL itself.
        assert "@postgres:5432/" in settings.direct_url, name
    assert "pgbouncer" in services


def test_the_stack_runs_the_compose_files_services_with_the_same_image_env_and_commands() -> None:
    assert set(STACK_SERVICES) == set(SERVICES) - {"flower"}
    for name, service in STACK_SERVICES.items():
        compose = SERVICES[name]
        # The proxy's alone: nginx reloaded when the api tasks change (it resolves `api` at a load).
        assert service.get("command") == compose.get("command") or name == "proxy", name
        assert service.get("image") == compose.get("image"), name
        # The same environment, but tokens: secrets in the stack, never environment values.
        env = {k: v for k, v in service.get("environment", {}).items() if not k.endswith("_FILE")}
        compose_env = {k: v for k, v in compose.get("environment", {}).items()
                       if k not in ("API_TOKENS", "METRICS_TOKEN", "ADMIN_TOKENS")}
        assert env == compose_env, name
        assert service.get("healthcheck") == compose.get("healthcheck") or name == "migrate", name
    # The lanes: the stack's workers take the queues the compose file's take.
    lanes = Settings.from_env({}).lanes
    worker = STACK_SERVICES["worker"]["command"]
    assert worker[worker.index("-Q") + 1].split(",") == [lanes.task_queue, lanes.dear_queue]


def test_the_stacks_tokens_are_docker_secrets() -> None:
    for name in APP_SERVICES:
        if name not in STACK_SERVICES:
            continue
        service = STACK_SERVICES[name]
        assert set(service["secrets"]) == {"api_tokens", "metrics_token", "admin_tokens"}, name
        env = service["environment"]
        assert not {"API_TOKENS", "METRICS_TOKEN", "ADMIN_TOKENS"} & set(env), name
        assert env["API_TOKENS_FILE"] == "/run/secrets/api_tokens"
        assert env["METRICS_TOKEN_FILE"] == "/run/secrets/metrics_token"
        assert env["ADMIN_TOKENS_FILE"] == "/run/secrets/admin_tokens"
    assert all(secret.get("external") for secret in STACK["secrets"].values())


def test_the_stack_deploys_on_a_swarm_without_ipvs_and_updates_safely() -> None:
    time = Settings.from_env({}).time
    for name, service in STACK_SERVICES.items():
        deploy = service["deploy"]
        # No virtual IPs and no ingress mesh: both need IPVS (docs/deployment.md, Swarm).
        assert deploy["endpoint_mode"] == "dnsrr", name
        assert "restart_policy" in deploy, name
        if name != "migrate":
            assert deploy["resources"]["limits"]["memory"], name
    assert all(port["mode"] == "host" for port in STACK_SERVICES["proxy"]["ports"])
    api = STACK_SERVICES["api"]["deploy"]
    assert api["replicas"] == 2 and api["update_config"]["order"] == "start-first"
    # A worker stopped by an update or a scale-down finishes its task: the grace outlasts the
    # hard limit of a one-puzzle task.
    hard = time.task_limits(1)[1]
    for name in ("worker", "worker-cheap"):
        grace = float(STACK_SERVICES[name]["stop_grace_period"].rstrip("s"))
        assert grace > hard, (name, grace, hard)
    assert STACK_SERVICES["scheduler"]["deploy"]["replicas"] == 1


def _is_worker(command: object) -> bool:
    return isinstance(command, list) and command[:1] == ["celery"] and "worker" in command


def test_every_worker_command_line_carries_the_same_fleet_flags() -> None:
    """Compose, swarm, Kubernetes, the swarm test's scaled workers and the local starters alike
    (store.broker.WORKER_FLAGS): a worker started without them would gossip with the rest."""
    k8s_file = ROOT / "deploy" / "k8s" / "base" / "workers.yaml"
    k8s = [doc for doc in yaml.safe_load_all(k8s_file.read_text()) if doc]
    commands = {f"compose {name}": s.get("command") for name, s in SERVICES.items()}
    commands |= {f"stack {name}": s.get("command") for name, s in STACK_SERVICES.items()}
    commands |= {f"k8s {doc['metadata']['name']}": c.get("command") for doc in k8s
                 if doc["kind"] == "Deployment" for c in doc["spec"]["template"]["spec"]["containers"]}
    swarm_args = re.search(r'args = (\["celery".*?\])', (ROOT / "deploy" / "swarm_test.py").read_text(), re.S)
    assert swarm_args is not None
    commands["swarm_test scaled workers"] = re.findall(r'"([^"]+)"', swarm_args.group(1))
    workers = {name: command for name, command in commands.items() if _is_worker(command)}
    assert len(workers) == 10, sorted(workers)
    for name, command in workers.items():
        assert [flag for flag in command if flag.startswith("--without")] == list(WORKER_FLAGS), name
    for starter in STARTERS:
        text = (ROOT / starter).read_text()
        assert "*WORKER_FLAGS" in text and "--without" not in text, starter
