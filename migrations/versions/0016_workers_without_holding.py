"""workers without ``holding`` and ``held_at``: every puzzle row a task solves is claimed first, and
its claim names its worker (puzzles.worker), so no heartbeat row records unclaimed puzzles

Revision ID: workers_without_holding
Revises: chunks
"""

import sqlalchemy as sa
from alembic import op

revision = "workers_without_holding"
down_revision = "chunks"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("workers") as batch:
        batch.drop_column("held_at")
        batch.drop_column("holding")


def downgrade() -> None:
    with op.batch_alter_table("workers") as batch:
        batch.add_column(sa.Column("holding", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("held_at", sa.DateTime(timezone=True), nullable=True))
