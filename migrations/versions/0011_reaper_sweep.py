"""The reaper's reads bounded by the fleet, not the backlog: a partial index on the puzzles that
have a deadline (claimed, published again, marked due; a puzzle queued at submit has none), and
``reaper_runs.swept_to``, where its sweep of the other queued rows goes on from

Revision ID: reaper_sweep
Revises: predicted_costs
"""

import sqlalchemy as sa
from alembic import op

revision = "reaper_sweep"
down_revision = "predicted_costs"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("reaper_runs") as batch:
        batch.add_column(sa.Column("swept_to", sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
                                   nullable=True))
    # Rows queued before this revision keep their deadline: they are in the index until written.
    op.create_index("ix_puzzles_deadline", "puzzles", ["deadline"],
                    postgresql_where=sa.text("deadline IS NOT NULL"),
                    sqlite_where=sa.text("deadline IS NOT NULL"))


def downgrade() -> None:
    op.drop_index("ix_puzzles_deadline", table_name="puzzles")
    with op.batch_alter_table("reaper_runs") as batch:
        batch.drop_column("swept_to")
