"""tallies (the running totals /metrics reads, counted from the rows already there), the index the
retention purge takes old jobs by, and when the reaper last purged

Revision ID: tallies_and_retention
Revises: worker_heartbeats
Create Date: 2026-12-03
"""

import sqlalchemy as sa
from alembic import op

revision = "tallies_and_retention"
down_revision = "worker_heartbeats"
branch_labels = None
depends_on = None

# The solve-time buckets of store.tallies when this revision was written (a revision keeps
# the schema and data of its own time, whatever the code later becomes).
SOLVE_BUCKETS = (0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1.0, 5.0, 30.0, 120.0, 600.0)

tallies = sa.table("tallies", sa.column("kind", sa.String), sa.column("name", sa.String),
                   sa.column("shard", sa.Integer), sa.column("value", sa.Float))
puzzles = sa.table("puzzles", sa.column("kind", sa.String), sa.column("status", sa.String),
                   sa.column("solve_ms", sa.Float))
jobs = sa.table("jobs", sa.column("id", sa.String))


def upgrade() -> None:
    op.create_table(
        "tallies",
        sa.Column("kind", sa.String(32), primary_key=True),
        sa.Column("name", sa.String(32), primary_key=True),
        sa.Column("shard", sa.Integer(), primary_key=True),
        sa.Column("value", sa.Float(), nullable=False),
    )
    op.create_index("ix_jobs_finished_at", "jobs", ["finished_at"])
    op.add_column("reaper_runs", sa.Column("purged_at", sa.DateTime(timezone=True), nullable=True))
    _backfill()


def _backfill() -> None:
    """Each total as store.tallies would have kept it had it always run (in shard 0)."""
    seconds = puzzles.c.solve_ms / 1000.0
    timed = puzzles.c.solve_ms.is_not(None)
    bucket = sa.case(*[(seconds <= b, f"le_{b}") for b in SOLVE_BUCKETS], else_="le_+Inf").label("name")
    solves = sa.select(puzzles.c.kind, bucket).where(timed).subquery()
    count = sa.cast(sa.func.count(), sa.Float)
    shard = sa.literal(0, sa.Integer)
    for query in (
        sa.select(puzzles.c.kind, puzzles.c.status, shard, count).group_by(puzzles.c.kind, puzzles.c.status),
        sa.select(solves.c.kind, solves.c.name, shard, count).group_by(solves.c.kind, solves.c.name),
        sa.select(puzzles.c.kind, sa.literal("seconds", sa.String), shard, sa.func.sum(seconds)).where(timed)
        .group_by(puzzles.c.kind),
        sa.select(sa.literal("", sa.String), sa.literal("jobs", sa.String), shard, count).select_from(jobs)
        .having(sa.func.count() > 0),
    ):
        op.execute(tallies.insert().from_select(["kind", "name", "shard", "value"], query))


def downgrade() -> None:
    with op.batch_alter_table("reaper_runs") as batch:
        batch.drop_column("purged_at")
    op.drop_index("ix_jobs_finished_at", table_name="jobs")
    op.drop_table("tallies")
