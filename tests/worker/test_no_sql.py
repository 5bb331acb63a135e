"""worker/ holds no SQL: every statement and row change is the store's (store.parts, store.reaping,
store.workers, ...). Read from each module's syntax tree: it imports no statement builder from
SQLAlchemy, no mapped class of store.models, and runs nothing on a session."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from store import models

ROOT = Path(__file__).resolve().parents[2]
MODULES = sorted((ROOT / "worker").glob("*.py"))

# What a worker module may take from SQLAlchemy: the types it passes on, and exceptions it catches.
TYPES = {"sqlalchemy": {"Engine", "Row"}, "sqlalchemy.orm": {"Session", "sessionmaker"}}
EXCEPTIONS = "sqlalchemy.exc"
# Session methods that run statements.
RUNS = {"execute", "scalar", "scalars"}


def sqlalchemy_imports(tree: ast.AST) -> list[str]:
    """Every name imported from SQLAlchemy that is neither a type of ``TYPES`` nor an exception;
    a plain ``import sqlalchemy`` reaches every builder, so it counts too."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name.partition(".")[0] == "sqlalchemy"]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").partition(".")[0] == "sqlalchemy":
            module = node.module or ""
            if module == EXCEPTIONS or module.startswith(EXCEPTIONS + "."):
                continue
            found += [f"{module}.{a.name}" for a in node.names if a.name not in TYPES.get(module, set())]
    return found


def mapped_classes(tree: ast.AST) -> list[str]:
    """The mapped classes (tables) imported from store.models: building or reading a row."""
    names = [a.name for node in ast.walk(tree)
             if isinstance(node, ast.ImportFrom) and node.module == "store.models" for a in node.names]
    return [n for n in names if inspect.isclass(getattr(models, n, None))
            and issubclass(getattr(models, n), models.Base)]


def statements_run(tree: ast.AST) -> list[str]:
    """Calls of ``execute``, ``scalar`` or ``scalars`` on anything, with their line."""
    return [f"{node.func.attr} (line {node.lineno})" for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in RUNS]


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_a_worker_module_builds_and_runs_no_sql(path):
    tree = ast.parse(path.read_text(), filename=str(path))
    assert sqlalchemy_imports(tree) == [], "statement builders belong in store/"
    assert mapped_classes(tree) == [], "rows are built and read in store/"
    assert statements_run(tree) == [], "statements run in store/"


def test_the_check_finds_what_it_looks_for():
    code = ("from sqlalchemy import Row, select\n"
            "import sqlalchemy as sa\n"
            "from sqlalchemy.exc import OperationalError\n"
            "from sqlalchemy.orm import Session, aliased\n"
            "from store.models import RUNNING, Puzzle, now\n"
            "s.execute(select(Puzzle))\n"
            "x = s.scalar(q)\n"
            "sa.text('x')\n")
    tree = ast.parse(code)
    assert sqlalchemy_imports(tree) == ["sqlalchemy.select", "sqlalchemy", "sqlalchemy.orm.aliased"]
    assert mapped_classes(tree) == ["Puzzle"]
    assert statements_run(tree) == ["execute (line 6)", "scalar (line 7)"]
