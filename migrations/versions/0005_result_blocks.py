"""result_blocks (the results and stats of puzzles written together), puzzles.block_id, and
puzzle pages filled to 40% on PostgreSQL (room for every row's in-place update)

Revision ID: result_blocks
Revises: tallies_and_retention
Create Date: 2026-12-03

Rows finished before this revision keep their result and stats in their own columns
(store.blocks reads both).
"""

import json

import sqlalchemy as sa
from alembic import op

revision = "result_blocks"
down_revision = "tallies_and_retention"
branch_labels = None
depends_on = None

RowId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")

blocks = sa.table("result_blocks", sa.column("id", RowId), sa.column("outcomes", sa.Text))
puzzles = sa.table("puzzles", sa.column("id", RowId), sa.column("block_id", RowId),
                   sa.column("result", sa.JSON), sa.column("stats", sa.JSON))


def upgrade() -> None:
    op.create_table(
        "result_blocks",
        sa.Column("id", RowId, primary_key=True, autoincrement=True),
        sa.Column("job_id", sa.String(32), sa.ForeignKey("jobs.id", ondelete="CASCADE"), nullable=False),
        sa.Column("outcomes", sa.Text(), nullable=False),
    )
    op.create_index("ix_result_blocks_job_id", "result_blocks", ["job_id"])
    _fast_compression()
    with op.batch_alter_table("puzzles") as batch:
        batch.add_column(sa.Column("block_id", RowId, nullable=True))
    _fill_pages(40)  # pages written from now on; the ones there keep their rows


def downgrade() -> None:
    _fill_pages(70)
    _unpack_blocks()
    with op.batch_alter_table("puzzles") as batch:
        batch.drop_column("block_id")
    op.drop_index("ix_result_blocks_job_id", table_name="result_blocks")
    op.drop_table("result_blocks")


def _unpack_blocks() -> None:
    """Every block's results back into its puzzles' own columns, as before this revision."""
    conn = op.get_bind()
    for block_id, text in conn.execute(sa.select(blocks.c.id, blocks.c.outcomes)).all():
        for puzzle_id, (result, stats) in json.loads(text).items():
            mine = (puzzles.c.id == int(puzzle_id)) & (puzzles.c.block_id == block_id)
            conn.execute(puzzles.update().where(mine).values(result=result, stats=stats))


def _fast_compression() -> None:
    """PostgreSQL compresses a block's text; lz4 stores a block faster than its default pglz. A
    server built without lz4 keeps pglz."""
    conn = op.get_bind()
    if conn.dialect.name != "postgresql":
        return
    try:
        with conn.begin_nested():
            conn.execute(sa.text("ALTER TABLE result_blocks ALTER COLUMN outcomes SET COMPRESSION lz4"))
    except sa.exc.DBAPIError:
        pass


def _fill_pages(percent: int) -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(f"ALTER TABLE puzzles SET (fillfactor = {percent})")
