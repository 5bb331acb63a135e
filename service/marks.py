"""Marks on view functions (``@auth.public``, ``@ratelimit.exempt``), read for the request's view.

By the view's qualified name: decorators that wrap it (spectree's, with functools.wraps) keep it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from flask import current_app, request

View = TypeVar("View", bound=Callable[..., Any])


def _name(view: Callable[..., Any]) -> str:
    return f"{view.__module__}.{view.__qualname__}"


class ViewMark:
    def __init__(self) -> None:
        self._names: set[str] = set()

    def __call__(self, view: View) -> View:
        self._names.add(_name(view))
        return view

    def marks(self, view: Callable[..., Any] | None) -> bool:
        return view is not None and _name(view) in self._names

    def on_request(self) -> bool:
        """Whether the view serving the current request carries this mark."""
        return self.marks(current_app.view_functions.get(request.endpoint or ""))
