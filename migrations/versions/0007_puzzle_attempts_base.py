"""puzzles.attempts_base: the attempt number a retried puzzle was put back at; the attempt cap
counts the claims past it, while the attempt number itself only ever grows. On SQLite, puzzles and
subtasks never reuse a deleted row's id (AUTOINCREMENT), so a late task finds no row it did not hold

Revision ID: puzzle_attempts_base
Revises: worker_task_since
"""

import sqlalchemy as sa
from alembic import op

revision = "puzzle_attempts_base"
down_revision = "worker_task_since"
branch_labels = None
depends_on = None


def _on_sqlite() -> bool:
    return op.get_bind().dialect.name == "sqlite"


def upgrade() -> None:
    # SQLite takes AUTOINCREMENT only with a table made anew (which batch mode does, rows kept).
    table_kwargs = {"sqlite_autoincrement": True} if _on_sqlite() else {}
    with op.batch_alter_table("puzzles", table_kwargs=table_kwargs,
                              recreate="always" if _on_sqlite() else "auto") as batch:
        batch.add_column(sa.Column("attempts_base", sa.Integer(), nullable=False, server_default="0"))
    if _on_sqlite():
        with op.batch_alter_table("subtasks", table_kwargs=table_kwargs, recreate="always"):
            pass


def downgrade() -> None:
    with op.batch_alter_table("puzzles") as batch:
        batch.drop_column("attempts_base")
