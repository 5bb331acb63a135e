"""puzzles.split_head: a split puzzle's head outcome gets its own column instead of stats

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-03
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

HEAD_KEY = "split_head"  # where revision 0001 kept the head: inside stats


def _puzzles() -> sa.TableClause:
    return sa.table("puzzles", sa.column("id", sa.BigInteger), sa.column("parts_total", sa.Integer),
                    sa.column("stats", sa.JSON), sa.column("split_head", sa.JSON))


def upgrade() -> None:
    op.add_column("puzzles", sa.Column("split_head", sa.JSON(), nullable=True))
    puzzles, conn = _puzzles(), op.get_bind()
    for pid, stats in conn.execute(sa.select(puzzles.c.id, puzzles.c.stats).where(puzzles.c.parts_total > 0)):
        if isinstance(stats, dict) and HEAD_KEY in stats:
            rest = {k: v for k, v in stats.items() if k != HEAD_KEY}
            conn.execute(sa.update(puzzles).where(puzzles.c.id == pid)
                         .values(split_head=stats[HEAD_KEY], stats=rest or sa.null()))


def downgrade() -> None:
    puzzles, conn = _puzzles(), op.get_bind()
    for pid, head in conn.execute(sa.select(puzzles.c.id, puzzles.c.split_head)
                                  .where(puzzles.c.split_head.is_not(None))):
        conn.execute(sa.update(puzzles).where(puzzles.c.id == pid, puzzles.c.stats.is_(None))
                     .values(stats={HEAD_KEY: head}))
    with op.batch_alter_table("puzzles") as batch:
        batch.drop_column("split_head")
