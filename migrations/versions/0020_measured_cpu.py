"""puzzles keep the CPU seconds measured of their solves (``cpu_seconds``: every attempt and part),
with a partial index of the unfinished ones measured, which a client's charge sums (store.costs)

Revision ID: measured_cpu
Revises: dear_lane_places
"""

import sqlalchemy as sa
from alembic import op

revision = "measured_cpu"
down_revision = "dear_lane_places"
branch_labels = None
depends_on = None

MEASURED = "cpu_seconds IS NOT NULL AND status IN ('queued', 'running')"


def upgrade() -> None:
    # Nullable, no default: PostgreSQL adds it without rewriting the table.
    op.add_column("puzzles", sa.Column("cpu_seconds", sa.Float(), nullable=True))
    op.create_index("ix_puzzles_measured", "puzzles", ["job_id"], postgresql_where=sa.text(MEASURED),
                    sqlite_where=sa.text(MEASURED))


def downgrade() -> None:
    op.drop_index("ix_puzzles_measured", table_name="puzzles")
    with op.batch_alter_table("puzzles") as batch:
        batch.drop_column("cpu_seconds")
