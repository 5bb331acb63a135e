"""Helpers of the client tests: the `puzzle-queue` command run as a user runs it, a toy puzzle
file, and the jobs a service holds."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from client import Client
from tests.embedded import ROOT


def cli(url: str, *args: str, stdin: str | None = None, timeout: float = 180) -> subprocess.CompletedProcess:
    """The command as a script runs it: standard input is ``stdin`` or empty, never a terminal
    (so cancel and delete ask nothing, even when the tests run in one)."""
    given: dict = {"input": stdin} if stdin is not None else {"stdin": subprocess.DEVNULL}
    return subprocess.run([sys.executable, "-m", "client", "--url", url, *args], check=False, cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, **given)


def toy_file(tmp_path: Path, lines: list[str], name: str = "toy.txt") -> Path:
    path = tmp_path / name
    path.write_text("# digits; each puzzle's answer is their sum\n" + "\n".join(lines) + "\n")
    return path


def my_job_ids(url: str) -> set[str]:
    with Client(url) as c:
        return {j["id"] for j in c.jobs()}
