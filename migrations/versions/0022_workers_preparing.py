"""workers keep the kinds the warm-up processes on their host have still to prepare (``preparing``),
which /readyz and the fleet view show

Revision ID: workers_preparing
Revises: priced_signatures
"""

import sqlalchemy as sa
from alembic import op

revision = "workers_preparing"
down_revision = "priced_signatures"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("workers", sa.Column("preparing", sa.String(200), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("workers") as batch:
        batch.drop_column("preparing")
