"""workers.since: the start of the oldest task a worker process runs, or the end of its last one
(worker.heartbeat); a claim of that worker older than this is held by no task. workers.held_at:
when it recorded ``holding``, which no task holds either once ``since`` has passed it

Revision ID: worker_task_since
Revises: result_blocks
Create Date: 2026-12-04
"""

import sqlalchemy as sa
from alembic import op

revision = "worker_task_since"
down_revision = "result_blocks"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("workers") as batch:
        batch.add_column(sa.Column("since", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("held_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("workers") as batch:
        batch.drop_column("held_at")
        batch.drop_column("since")
