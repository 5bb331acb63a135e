"""puzzles.attempts_base: the attempt number a retried puzzle was put back at; the attempt cap
counts the claims past it, while the attempt number itself only ever grows

Revision ID: puzzle_attempts_base
Revises: worker_task_since
"""

import sqlalchemy as sa
from alembic import op

revision = "puzzle_attempts_base"
down_revision = "worker_task_since"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("puzzles") as batch:
        batch.add_column(sa.Column("attempts_base", sa.Integer(), nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("puzzles") as batch:
        batch.drop_column("attempts_base")
