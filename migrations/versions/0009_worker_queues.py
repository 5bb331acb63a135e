"""workers.queues: the broker queues a worker process takes its tasks from (its lanes), written
with each heartbeat, for the fleet view

Revision ID: worker_queues
Revises: webhook_deliveries
"""

import sqlalchemy as sa
from alembic import op

revision = "worker_queues"
down_revision = "webhook_deliveries"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("workers") as batch:
        batch.add_column(sa.Column("queues", sa.String(200), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("workers") as batch:
        batch.drop_column("queues")
