"""numba's cache, kept fresh across files: a cached kernel is loaded only while its own file and
every file whose kernels or constants it uses are as they were when it was compiled.

numba stamps a cached kernel with its own file's hash alone, so a kernel that calls a kernel of
another module (``fast.py`` calls ``fastprop.py``'s rules) would be loaded from the cache, stale,
after a change to that module. This locator, put ahead of numba's own for a cache directory
(``NUMBA_CACHE_DIR``), stamps it with the hashes of every source file it reaches instead: its own,
then those of the kernels and modules named in its code's globals, followed through them.

Importing this module installs the locator (solvers/__init__.py does, before any kernel module).
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import os
import sysconfig
import types
from collections.abc import Iterator
from typing import Any

from numba.core import caching

# Installed code (the standard library, numpy, numba) changes only with an install; only the
# project's files are followed.
_INSTALLED = tuple({sysconfig.get_path(name) for name in ("stdlib", "platstdlib", "purelib", "platlib")})


def _sources(py_func: Any) -> list[str]:
    """The source files a kernel reaches: its own first, then each kernel or module named in a
    global its code reads (``co_names`` of it and of its nested code), followed through those
    kernels' own globals; installed files are left out."""
    files: list[str] = []
    visited: set[Any] = set()
    todo = [py_func]
    while todo:
        func = todo.pop()
        if func in visited:
            continue
        visited.add(func)
        path = inspect.getsourcefile(func)
        if path is None or path.startswith(_INSTALLED):
            continue
        if path not in files:
            files.append(path)
        for name in _names(func.__code__):
            value = func.__globals__.get(name)
            target = getattr(value, "py_func", None)  # a numba dispatcher: follow its Python function
            if isinstance(target, types.FunctionType):
                todo.append(target)
            elif isinstance(value, types.ModuleType):
                file = getattr(value, "__file__", None)
                if file is None or file in files or file.startswith(_INSTALLED):
                    continue
                files.append(file)  # its constants may be read as module.NAME
                todo.extend(_kernels_of(value))
    return files


def _names(code: types.CodeType) -> Iterator[str]:
    yield from code.co_names
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _names(const)


def _kernels_of(module: types.ModuleType) -> list[types.FunctionType]:
    return [value.py_func for value in vars(module).values()
            if isinstance(getattr(value, "py_func", None), types.FunctionType)]


def _digest(path: str) -> bytes:
    st = os.stat(path)
    return _hashed(path, st.st_mtime_ns, st.st_size)


@functools.cache
def _hashed(path: str, mtime_ns: int, size: int) -> bytes:
    # Keyed by the file's time and size too, so a file changed while the process runs is read again.
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).digest()


class SourcesStampedLocator(caching.UserProvidedCacheLocator):
    """numba's locator for NUMBA_CACHE_DIR, with a stamp of every source file the kernel reaches."""

    def __init__(self, py_func: Any, py_file: str) -> None:
        super().__init__(py_func, py_file)  # type: ignore[no-untyped-call]  # numba has no types
        self._py_func = py_func

    def get_source_stamp(self) -> Any:
        # Read when the kernel is loaded or saved, after its module and those it imports have run.
        # The file names are part of the stamp, so a kernel that comes to use another file misses.
        return tuple((os.path.basename(path), _digest(path)) for path in _sources(self._py_func))


if SourcesStampedLocator not in caching.CacheImpl._locator_classes:
    caching.CacheImpl._locator_classes.insert(0, SourcesStampedLocator)
