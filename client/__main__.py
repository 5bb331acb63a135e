"""`python -m client` is the `puzzle-queue` command."""

from client.cli import run

run()
