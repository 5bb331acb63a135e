"""Result blocks compressed by lz4 on PostgreSQL: a chunk's block (a large JSON text)
stores and reads back faster than under the default pglz. Blocks
stored before keep their compression. A server built without lz4 keeps pglz.

Revision ID: lz4_blocks
Revises: reaper_sweep
"""

from alembic import op

revision = "lz4_blocks"
down_revision = "reaper_sweep"
branch_labels = None
depends_on = None


def _compression(method: str) -> None:
    if op.get_bind().dialect.name != "postgresql":
        return  # SQLite stores text as it is
    op.execute(f"""
DO $$ BEGIN
    ALTER TABLE result_blocks ALTER COLUMN outcomes SET COMPRESSION {method};
EXCEPTION WHEN feature_not_supported THEN NULL;
END $$""")


def upgrade() -> None:
    _compression("lz4")


def downgrade() -> None:
    _compression("pglz")
