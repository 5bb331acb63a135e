"""The `puzzle-queue` command: submit puzzle files, watch them, get every answer in one file.

Exit status: 0 every puzzle solved or proved to have no solution; 1 some failed or were
cancelled, a cancel or delete was not confirmed, or a hint found a placed value wrong; 2 the
request was refused (bad input, named by file and line; nothing is stored) or could not be
made; 130 interrupted while sending or waiting (the jobs already made keep running, and the
message names them).
"""

from __future__ import annotations

from collections.abc import Sequence

from client import managing, operating, sending  # noqa: F401  (each adds its commands to main)
from client.shell import main


def run(argv: Sequence[str] | None = None) -> None:
    """The entry point (``puzzle-queue``, ``python -m client``)."""
    main.main(args=list(argv) if argv is not None else None, prog_name="puzzle-queue", standalone_mode=True)
