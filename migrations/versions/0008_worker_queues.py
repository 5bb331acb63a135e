"""workers.queues: the broker queues a worker process takes its tasks from (its lanes), written
with each heartbeat, for the fleet view

Revision ID: worker_queues
Revises: puzzle_attempts_base
"""

import sqlalchemy as sa
from alembic import op

revision = "worker_queues"
down_revision = "puzzle_attempts_base"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("workers") as batch:
        batch.add_column(sa.Column("queues", sa.String(200), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("workers") as batch:
        batch.drop_column("queues")
