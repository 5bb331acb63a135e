"""puzzles.progress: the share of a running puzzle's search done, as its watcher last read it from
the solver (solvers/progress.py), so that a long count's eta moves while it runs

Revision ID: puzzle_progress
Revises: lz4_blocks
"""

import sqlalchemy as sa
from alembic import op

revision = "puzzle_progress"
down_revision = "lz4_blocks"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("puzzles") as batch:
        batch.add_column(sa.Column("progress", sa.Float(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("puzzles") as batch:
        batch.drop_column("progress")
