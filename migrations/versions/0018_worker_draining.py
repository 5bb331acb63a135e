"""workers.draining_at: when an operator asked the worker to drain (store.workers.drain)

Revision ID: worker_draining
Revises: job_events
"""

import sqlalchemy as sa
from alembic import op

revision = "worker_draining"
down_revision = "job_events"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("workers") as batch:
        batch.add_column(sa.Column("draining_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("workers") as batch:
        batch.drop_column("draining_at")
