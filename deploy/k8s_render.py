"""deploy/k8s rendered by `kubectl kustomize`, with the secrets' placeholder files where the real
ones are absent (a copy of its own under var/k8s/ for each render, so placeholders never land next
to real secrets and renders running at once never share a tree).

    python -m deploy.k8s_render small OUT.yaml   # the overlay's objects, one YAML stream
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "deploy" / "k8s"
OVERLAYS = ("small", "small-hpa")


def render_text(overlay: str, work: Path = ROOT / "var" / "k8s") -> str:
    work.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=work, prefix="tree-") as copy:
        tree = Path(copy) / "k8s"
        shutil.copytree(SOURCE, tree)
        for example in (tree / "overlays").glob("*/secrets/*.example"):
            real = example.with_suffix("")
            if not real.exists():
                shutil.copyfile(example, real)
        out = subprocess.run(["kubectl", "kustomize", str(tree / "overlays" / overlay)],
                             check=True, capture_output=True, text=True)
    return out.stdout


def render(overlay: str) -> list[dict[str, Any]]:
    return [doc for doc in yaml.safe_load_all(render_text(overlay)) if doc]


if __name__ == "__main__":
    Path(sys.argv[2]).write_text(render_text(sys.argv[1]))
