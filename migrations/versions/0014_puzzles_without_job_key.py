"""puzzles.job_id without its foreign key: a job's puzzles are stored by the statement that stores
the job and deleted with it by store.jobs.delete_jobs, and the key's check of each inserted row
cost a large share of a batch's insert

Revision ID: puzzles_without_job_key
Revises: puzzle_progress
"""

from alembic import op

revision = "puzzles_without_job_key"
down_revision = "puzzle_progress"
branch_labels = None
depends_on = None

# SQLite's constraint has no name: batch mode names it by this convention to drop or make it. Its
# copy of the table keeps AUTOINCREMENT (a deleted job's ids never come back, store.models).
_NAMING = {"fk": "fk_%(table_name)s_%(column_0_name)s"}
_KEEP = {"sqlite_autoincrement": True}


def _name() -> str:
    return "puzzles_job_id_fkey" if op.get_bind().dialect.name == "postgresql" else "fk_puzzles_job_id"


def upgrade() -> None:
    with op.batch_alter_table("puzzles", naming_convention=_NAMING, table_kwargs=_KEEP) as batch:
        batch.drop_constraint(_name(), type_="foreignkey")


def downgrade() -> None:
    with op.batch_alter_table("puzzles", naming_convention=_NAMING, table_kwargs=_KEEP) as batch:
        batch.create_foreign_key(_name(), "jobs", ["job_id"], ["id"], ondelete="CASCADE")
