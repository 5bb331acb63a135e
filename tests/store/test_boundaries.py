"""The arrows between packages: service -> store <- worker, store -> solvers, and no import with side
effects (no app, engine or folder made at import)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def loaded_after(modules: list[str], cwd: Path) -> set[str]:
    """The top-level packages loaded in a fresh interpreter by importing ``modules``."""
    code = (f"import sys; import {', '.join(modules)}; "
            "print(' '.join(sorted({m.split('.')[0] for m in sys.modules})))")
    out = subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, check=True)
    return set(out.stdout.split())


def every_module(package: str) -> list[str]:
    return sorted(f"{package}.{p.stem}" for p in (ROOT / package).glob("*.py") if p.stem != "__init__")


def test_the_store_imports_neither_flask_nor_celery_nor_the_packages_above_it():
    loaded = loaded_after(every_module("store"), ROOT)
    assert not loaded & {"flask", "celery", "service", "worker"}


def test_the_api_does_not_import_the_worker_and_the_worker_not_the_api():
    assert "worker" not in loaded_after(["service", *every_module("service")], ROOT)
    tasks = [m for m in every_module("worker") if m not in ("worker.app", "worker.tasks")]
    assert not loaded_after(tasks, ROOT) & {"service", "flask"}


@pytest.mark.parametrize("package", ["store", "service", "worker"])
def test_importing_makes_nothing(package, tmp_path):
    """Importing any module but the Celery app's (worker.app, what `celery -A` loads) makes no folder
    or file: the embedded mode's var/ folders come with a process's start."""
    modules = [m for m in every_module(package) if m not in ("worker.app", "worker.tasks")]
    env_code = ("import os, sys; os.environ['DATABASE_URL'] = 'sqlite:///' + sys.argv[1] + '/x.db'; "
                "os.environ['BROKER_DIR'] = sys.argv[1] + '/broker'; sys.path.insert(0, sys.argv[2]); "
                f"import {', '.join(modules)}")
    subprocess.run([sys.executable, "-c", env_code, str(tmp_path), str(ROOT)], cwd=tmp_path, check=True)
    assert list(tmp_path.iterdir()) == []
