"""Environment variables read as the typed, checked values of settings (store.settings), secrets
from files included."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import field
from pathlib import Path
from types import MappingProxyType
from typing import Any


class SettingError(ValueError):
    """A setting's value cannot be used; the message names its environment variable."""


def setting(default: Any, doc: str, minimum: float | None = None) -> Any:
    """A field with its default, what it means (for docs/configuration.md) and its least value."""
    if isinstance(default, dict):
        frozen = MappingProxyType(default)
        return field(default_factory=lambda: frozen, metadata={"doc": doc, "minimum": minimum})
    return field(default=default, metadata={"doc": doc, "minimum": minimum})


def parse(name: str, text: str, kind: Any) -> Any:
    """An environment variable's text as its field's type; SettingError names it otherwise."""
    try:
        if kind in (int, float):
            return kind(text)
        if kind == float | None:
            return float(text) if text.strip() else None
        if kind == str | None:
            return text or None
        if kind == tuple[str, ...]:
            return tuple(part.strip() for part in text.split(",") if part.strip())
        if kind == Mapping[str, int] or kind == Mapping[str, float]:
            number = int if kind == Mapping[str, int] else float
            return MappingProxyType({k: number(v) for k, v in _pairs(text).items()})
        return text
    except ValueError as exc:
        raise SettingError(f"{name}={text!r}: {exc}") from None


def _pairs(text: str) -> dict[str, str]:
    """``"a=1,b=2"`` -> ``{"a": "1", "b": "2"}``: the form of map-valued variables."""
    out = {}
    for pair in filter(None, (p.strip() for p in text.split(","))):
        key, sep, value = pair.partition("=")
        if not sep:
            raise ValueError(f"expected key=value, got {pair!r}")
        out[key.strip()] = value.strip()
    return out


def checked(kind: type, values: dict[str, Any]) -> Any:
    """The group made of these values, each number checked against its field's minimum."""
    for f in dataclasses.fields(kind):
        value, minimum = values.get(f.name), f.metadata.get("minimum")
        if minimum is not None and isinstance(value, (int, float)) and value < minimum:
            raise SettingError(f"{f.name.upper()} is {value}; it is at least {minimum:g}")
    return kind(**values)


def with_files(env: Mapping[str, str], names: set[str]) -> Mapping[str, str]:
    """The variables, each ``NAME_FILE`` read as ``NAME`` where ``NAME``, one of
    ``names``, is itself unset: secrets
    (API_TOKENS, METRICS_TOKEN) come from files such as Docker's /run/secrets/, not the environment."""
    files = {name: env[f"{name}_FILE"] for name in names if f"{name}_FILE" in env}
    if not files:
        return env
    read = dict(env)
    for name, path in files.items():
        if name not in env:
            try:
                read[name] = Path(path).read_text().strip()
            except OSError as exc:
                raise SettingError(f"{name}_FILE={path!r}: {exc.strerror}") from None
    return read
