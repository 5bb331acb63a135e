"""Environment variables' text read as the typed values of settings (store.settings)."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any


class SettingError(ValueError):
    """A setting's value cannot be used; the message names its environment variable."""


def parse(name: str, text: str, kind: Any) -> Any:
    """An environment variable's text as its field's type; SettingError names it otherwise."""
    try:
        if kind in (int, float):
            return kind(text)
        if kind == float | None:
            return float(text) if text.strip() else None
        if kind == str | None:
            return text or None
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
