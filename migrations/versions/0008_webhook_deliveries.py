"""jobs.callback_url (where a job's summary is POSTed when it ends), webhook_deliveries (one per
ending of such a job, sent until accepted or given up) and webhook_attempts (each attempt's outcome)

Revision ID: webhook_deliveries
Revises: puzzle_attempts_base
"""

import sqlalchemy as sa
from alembic import op

revision = "webhook_deliveries"
down_revision = "puzzle_attempts_base"
branch_labels = None
depends_on = None

RowId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
WITH_CALLBACK = sa.text("callback_url IS NOT NULL")


def upgrade() -> None:
    op.add_column("jobs", sa.Column("callback_url", sa.Text(), nullable=True))
    op.create_index("ix_jobs_callback_finished", "jobs", ["finished_at"],
                    postgresql_where=WITH_CALLBACK, sqlite_where=WITH_CALLBACK)
    op.create_table(
        "webhook_deliveries",
        sa.Column("id", RowId, primary_key=True, autoincrement=True),
        sa.Column("job_id", sa.String(32), sa.ForeignKey("jobs.id", ondelete="CASCADE"), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("url", sa.Text(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_status", sa.Integer(), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("delivered_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("uq_webhook_deliveries_job_end", "webhook_deliveries", ["job_id", "ended_at"],
                    unique=True)
    op.create_index("ix_webhook_deliveries_due", "webhook_deliveries", ["state", "next_attempt_at"])
    op.create_table(
        "webhook_attempts",
        sa.Column("id", RowId, primary_key=True, autoincrement=True),
        sa.Column("delivery_id", RowId, sa.ForeignKey("webhook_deliveries.id", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("status", sa.Integer(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("ms", sa.Float(), nullable=False),
    )
    op.create_index("uq_webhook_attempts_delivery_number", "webhook_attempts", ["delivery_id", "number"],
                    unique=True)


def downgrade() -> None:
    op.drop_table("webhook_attempts")
    op.drop_table("webhook_deliveries")
    op.drop_index("ix_jobs_callback_finished", table_name="jobs")
    # In place, also on SQLite (3.35 on): batch mode would make the table anew, and dropping the old
    # one would take every puzzle with it by the foreign keys' cascade.
    op.execute("ALTER TABLE jobs DROP COLUMN callback_url")
