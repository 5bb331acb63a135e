"""The benches' plain C anchors: compiled here when a C compiler is present."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path


def compile_c(source: Path, folder: Path) -> Path | None:
    """``source`` built with -O3 -march=native into ``folder``; None when no C compiler is found."""
    compiler = next((c for c in ("cc", "clang", "gcc") if shutil.which(c)), None)
    if compiler is None:
        return None
    binary = folder / source.stem
    subprocess.run([compiler, "-O3", "-march=native", "-o", str(binary), str(source)], check=True)
    return binary
