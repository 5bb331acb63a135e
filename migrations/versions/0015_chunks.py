"""chunks: a run of a job's cheap puzzles stored, claimed and written as one row (store.chunks)

Revision ID: chunks
Revises: puzzles_without_job_key
"""

import sqlalchemy as sa
from alembic import op

revision = "chunks"
down_revision = "puzzles_without_job_key"
branch_labels = None
depends_on = None

RowId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "chunks",
        sa.Column("id", RowId, primary_key=True, autoincrement=True),
        sa.Column("job_id", sa.String(32), sa.ForeignKey("jobs.id", ondelete="CASCADE"), nullable=False),
        sa.Column("first", sa.Integer(), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("inputs", sa.Text(), nullable=False),
        sa.Column("estimates", sa.Text(), nullable=False),
        sa.Column("estimated_seconds", sa.Float(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("worker", sa.String(200), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("deadline", sa.DateTime(timezone=True), nullable=True),
        sa.Column("block_id", RowId, nullable=True),
        sa.Column("outcome", sa.Text(), nullable=True),
        sa.Column("errors", sa.JSON(), nullable=True),
        sa.Column("solve_ms", sa.Float(), nullable=True),
        sqlite_autoincrement=True,
    )
    op.create_index("uq_chunks_job_first", "chunks", ["job_id", "first"], unique=True)
    dated = sa.text("deadline IS NOT NULL")
    op.create_index("ix_chunks_deadline", "chunks", ["deadline"], postgresql_where=dated, sqlite_where=dated)
    if op.get_bind().dialect.name == "postgresql":
        # A chunk's inputs and predictions (the bulk of a chunk's row) compressed by
        # lz4: stored faster than by pglz, the submit's largest share (as the blocks,
        # revision lz4_blocks). A server built without lz4 keeps pglz.
        op.execute("""
DO $$ BEGIN
    ALTER TABLE chunks ALTER COLUMN inputs SET COMPRESSION lz4, ALTER COLUMN estimates SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN NULL;
END $$""")


def downgrade() -> None:
    op.drop_index("ix_chunks_deadline", table_name="chunks")
    op.drop_index("uq_chunks_job_first", table_name="chunks")
    op.drop_table("chunks")
