"""solvers/jitcache.py: a cached kernel is compiled again when a file it reaches changes, not only its own."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

RULES = '''
from numba import njit

STEP = {step}


@njit(cache=True)
def rule(x):
    return x + {add}
'''

KERNELS = '''
from numba import njit

import kernelpkg.consts as consts
from kernelpkg.rules import rule


@njit(cache=True)
def kernel(x):
    return rule(x) * consts.SCALE


@njit(cache=True)
def alone(x):
    return x - 1
'''

RUN = '''
import json
import solvers.jitcache  # the project installs it in solvers/__init__.py
from kernelpkg.kernels import alone, kernel
print(json.dumps({"kernel": kernel(1), "alone": alone(1),
                  "loaded": [bool(f.stats.cache_hits) for f in (kernel, alone)]}))
'''


def _write(package: Path, add: int, scale: int) -> None:
    package.mkdir(exist_ok=True)
    (package / "__init__.py").write_text("")
    (package / "rules.py").write_text(RULES.format(step=0, add=add))
    (package / "consts.py").write_text(f"SCALE = {scale}\n")
    (package / "kernels.py").write_text(KERNELS)


def _run(tmp_path: Path) -> dict:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"),
           "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    env.pop("NUMBA_DISABLE_JIT", None)
    run = subprocess.run([sys.executable, "-c", RUN], env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.splitlines()[-1])


def test_a_kernel_is_compiled_again_after_a_change_to_a_kernel_or_module_of_another_file(tmp_path):
    package = tmp_path / "kernelpkg"
    _write(package, add=1, scale=10)
    assert _run(tmp_path) == {"kernel": 20, "alone": 0, "loaded": [False, False]}
    assert _run(tmp_path) == {"kernel": 20, "alone": 0, "loaded": [True, True]}  # from the cache
    (package / "rules.py").write_text(RULES.format(step=0, add=5))  # the called kernel's file
    assert _run(tmp_path) == {"kernel": 60, "alone": 0, "loaded": [False, True]}
    (package / "consts.py").write_text("SCALE = 100\n")  # a module whose constant it reads
    assert _run(tmp_path) == {"kernel": 600, "alone": 0, "loaded": [False, True]}
    assert _run(tmp_path) == {"kernel": 600, "alone": 0, "loaded": [True, True]}
