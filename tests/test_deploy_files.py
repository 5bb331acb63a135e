"""The compose file cannot be run here (no Docker engine): check it against the Compose spec."""

import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def test_compose_file_matches_the_compose_spec():
    out = subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.compose-spec",
         str(ROOT / "docker-compose.yml")],
        capture_output=True, text=True,
    )
    assert out.returncode == 0, out.stdout + out.stderr


def test_workers_can_scale():
    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    worker = services["worker"]
    # --scale fails on a fixed container name or a published host port.
    assert "container_name" not in worker
    assert "ports" not in worker
    assert "redis-server" in services["redis"]["command"]
    assert "noeviction" in services["redis"]["command"]
    # The reaper runs under beat: one scheduler, never one per worker.
    assert "beat" in services["scheduler"]["command"]
    assert "-B" not in worker["command"]


def test_dockerfile_copies_every_package_the_image_runs():
    text = (ROOT / "Dockerfile").read_text()
    for path in ("solvers", "service", "worker", "migrations", "alembic.ini"):
        assert f"COPY {path}" in text
        assert (ROOT / path).exists(), f"Dockerfile copies {path}, which does not exist"
