"""chunks' queued index: a task of the cheap lane that has written its chunk finds its client's
next queued chunk by it (store.chunks.next_queued), without reading every chunk ever written

Revision ID: chunks_queued
Revises: workers_without_holding
"""

from alembic import op
from sqlalchemy import text

revision = "chunks_queued"
down_revision = "workers_without_holding"
branch_labels = None
depends_on = None

QUEUED = text("status = 'queued'")


def upgrade() -> None:
    op.create_index("ix_chunks_queued", "chunks", ["id"], postgresql_where=QUEUED, sqlite_where=QUEUED)


def downgrade() -> None:
    op.drop_index("ix_chunks_queued", table_name="chunks")
