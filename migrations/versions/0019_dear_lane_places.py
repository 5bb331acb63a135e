"""puzzles and subtasks keep their place in the dear lane (``dear_level``, ``dear_at``), with a partial
index of the live ones, which the ETA sums (store.ahead)

Revision ID: dear_lane_places
Revises: worker_draining
"""

import sqlalchemy as sa
from alembic import op

revision = "dear_lane_places"
down_revision = "worker_draining"
branch_labels = None
depends_on = None

LIVE = "dear_at IS NOT NULL AND status IN ('queued', 'running')"


def upgrade() -> None:
    for table in ("puzzles", "subtasks"):
        # Nullable, no default: PostgreSQL adds them without rewriting the table.
        op.add_column(table, sa.Column("dear_level", sa.Integer(), nullable=True))
        op.add_column(table, sa.Column("dear_at", sa.DateTime(timezone=True), nullable=True))
        op.create_index(f"ix_{table}_dear", table, ["dear_level", "dear_at"], postgresql_where=sa.text(LIVE),
                        sqlite_where=sa.text(LIVE))


def downgrade() -> None:
    for table in ("puzzles", "subtasks"):
        op.drop_index(f"ix_{table}_dear", table_name=table)
        with op.batch_alter_table(table) as batch:
            batch.drop_column("dear_at")
            batch.drop_column("dear_level")
