"""puzzles keep the signature of their kind and options where the kind does not model them
(``signature``), with a partial index of those rows measured by signature, newest first, which
pricing reads (store.pricing)

Revision ID: priced_signatures
Revises: measured_cpu
"""

import sqlalchemy as sa
from alembic import op

revision = "priced_signatures"
down_revision = "measured_cpu"
branch_labels = None
depends_on = None

SIGNED = "signature IS NOT NULL AND cpu_seconds IS NOT NULL"


def upgrade() -> None:
    # Nullable, no default: PostgreSQL adds it without rewriting the table, and the index starts empty.
    op.add_column("puzzles", sa.Column("signature", sa.String(64), nullable=True))
    op.create_index("ix_puzzles_signature", "puzzles", ["signature", "id"], postgresql_where=sa.text(SIGNED),
                    sqlite_where=sa.text(SIGNED))


def downgrade() -> None:
    op.drop_index("ix_puzzles_signature", table_name="puzzles")
    with op.batch_alter_table("puzzles") as batch:
        batch.drop_column("signature")
