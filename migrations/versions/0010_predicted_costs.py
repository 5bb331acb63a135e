"""Predicted costs: each puzzle's prediction when accepted (seconds, factor, basis), and per job
the sum of its puzzles' predictions, of their high ends and of its finished puzzles' (the
weighted progress and the eta of GET /jobs/{id})

Revision ID: predicted_costs
Revises: worker_queues
"""

import sqlalchemy as sa
from alembic import op

revision = "predicted_costs"
down_revision = "worker_queues"
branch_labels = None
depends_on = None


def upgrade() -> None:
    for column in (sa.Column("estimated_seconds", sa.Float(), nullable=True),
                   sa.Column("estimate_factor", sa.Float(), nullable=True),
                   sa.Column("estimate_basis", sa.String(32), nullable=True)):
        op.add_column("puzzles", column)
    for column in (sa.Column("estimated_seconds", sa.Float(), nullable=True),
                   sa.Column("estimated_high", sa.Float(), nullable=True),
                   sa.Column("done_seconds", sa.Float(), nullable=False, server_default="0")):
        op.add_column("jobs", column)


def downgrade() -> None:
    # In place, also on SQLite (3.35 on): batch mode would make the tables anew, and dropping the
    # old jobs table would take every puzzle with it by the foreign keys' cascade.
    for column in ("done_seconds", "estimated_high", "estimated_seconds"):
        op.execute(f"ALTER TABLE jobs DROP COLUMN {column}")
    for column in ("estimate_basis", "estimate_factor", "estimated_seconds"):
        op.execute(f"ALTER TABLE puzzles DROP COLUMN {column}")
