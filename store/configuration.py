"""docs/configuration.md, generated from the settings (store.settings): ``python -m store.configuration``."""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Mapping

from store.settings import VAR, groups


def markdown() -> str:
    """docs/configuration.md: every setting by group, with its default and meaning."""
    lines = ["# Configuration", "",
             "Every setting is an environment variable, read once when a process starts; a bad value",
             "stops the start with a message naming it. This page is generated from `store/settings.py`",
             "(`python -m store.configuration > docs/configuration.md`).", "",
             "Any of them may instead be read from the file that `NAME_FILE` names (a secret such as",
             "`API_TOKENS_FILE=/run/secrets/api_tokens`); `NAME` itself, when set, wins.", ""]
    for kind in groups().values():
        lines += [f"## {kind.__name__}", "", (kind.__doc__ or "").strip(), "",
                  "| variable | default | meaning |", "|---|---|---|"]
        for f in dataclasses.fields(kind):
            # The field's own default, not one derived from the others (DEAR_QUEUE from TASK_QUEUE).
            default = f.default_factory() if f.default is dataclasses.MISSING else f.default  # type: ignore[operator]
            if isinstance(default, Mapping):
                default = ",".join(f"{k}={v}" for k, v in default.items())
            # Paths under the checkout, as they read in any clone.
            shown = "(unset)" if default in (None, "", ()) else f"`{str(default).replace(str(VAR), 'var')}`"
            lines.append(f"| `{f.name.upper()}` | {shown} | {f.metadata['doc']} |")
        lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.stdout.write(markdown())
