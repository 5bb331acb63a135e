"""jobs, puzzles and subtasks

Revision ID: 0001
Revises:
Create Date: 2026-12-03
"""

import sqlalchemy as sa
from alembic import op

revision = '0001'
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('jobs',
    sa.Column('id', sa.String(length=32), nullable=False),
    sa.Column('owner', sa.String(length=64), nullable=False),
    sa.Column('label', sa.Text(), nullable=True),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('total', sa.Integer(), nullable=False),
    sa.Column('pending', sa.Integer(), nullable=False),
    sa.Column('idempotency_key', sa.String(length=200), nullable=True),
    sa.Column('request_hash', sa.String(length=64), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('started_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('finished_at', sa.DateTime(timezone=True), nullable=True),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('jobs', schema=None) as batch_op:
        batch_op.create_index('ix_jobs_owner_created', ['owner', 'created_at'], unique=False)
        batch_op.create_index('ix_jobs_owner_status_created', ['owner', 'status', 'created_at'], unique=False)
        batch_op.create_index('uq_jobs_owner_idempotency_key', ['owner', 'idempotency_key'], unique=True)
        batch_op.create_index('ix_jobs_status', ['status'], unique=False)

    op.create_table('puzzles',
    sa.Column('id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), autoincrement=True, nullable=False),
    sa.Column('job_id', sa.String(length=32), nullable=False),
    sa.Column('index', sa.Integer(), nullable=False),
    sa.Column('kind', sa.String(length=32), nullable=False),
    sa.Column('input', sa.JSON(), nullable=False),
    sa.Column('options', sa.JSON(), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('result', sa.JSON(), nullable=True),
    sa.Column('stats', sa.JSON(), nullable=True),
    sa.Column('error', sa.Text(), nullable=True),
    sa.Column('attempts', sa.Integer(), nullable=False),
    sa.Column('solve_ms', sa.Float(), nullable=True),
    sa.Column('worker', sa.String(length=200), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('started_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('finished_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('deadline', sa.DateTime(timezone=True), nullable=True),
    sa.Column('parts_total', sa.Integer(), nullable=False),
    sa.Column('parts_done', sa.Integer(), nullable=False),
    sa.Column('stop_requested', sa.Boolean(), nullable=False),
    sa.ForeignKeyConstraint(['job_id'], ['jobs.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    postgresql_with={'fillfactor': 70},
    )
    with op.batch_alter_table('puzzles', schema=None) as batch_op:
        batch_op.create_index('uq_puzzles_job_index', ['job_id', 'index'], unique=True)

    op.create_table('subtasks',
    sa.Column('id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), autoincrement=True, nullable=False),
    sa.Column('puzzle_id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), nullable=False),
    sa.Column('index', sa.Integer(), nullable=False),
    sa.Column('payload', sa.JSON(), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('result', sa.JSON(), nullable=True),
    sa.Column('stats', sa.JSON(), nullable=True),
    sa.Column('error', sa.Text(), nullable=True),
    sa.Column('attempts', sa.Integer(), nullable=False),
    sa.Column('worker', sa.String(length=200), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('started_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('finished_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('deadline', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['puzzle_id'], ['puzzles.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    postgresql_with={'fillfactor': 70},
    )
    with op.batch_alter_table('subtasks', schema=None) as batch_op:
        batch_op.create_index('uq_subtasks_puzzle_index', ['puzzle_id', 'index'], unique=True)



def downgrade() -> None:
    with op.batch_alter_table('subtasks', schema=None) as batch_op:
        batch_op.drop_index('uq_subtasks_puzzle_index')

    op.drop_table('subtasks')
    with op.batch_alter_table('puzzles', schema=None) as batch_op:
        batch_op.drop_index('uq_puzzles_job_index')

    op.drop_table('puzzles')
    with op.batch_alter_table('jobs', schema=None) as batch_op:
        batch_op.drop_index('uq_jobs_owner_idempotency_key')
        batch_op.drop_index('ix_jobs_status')
        batch_op.drop_index('ix_jobs_owner_status_created')
        batch_op.drop_index('ix_jobs_owner_created')

    op.drop_table('jobs')
