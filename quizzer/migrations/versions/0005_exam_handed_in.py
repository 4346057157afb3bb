"""When an exam's answering ended (handed in, or its time up): a paper left during its marking
is marked on resume, not answered again after its model answers were shown.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02
"""

from alembic import op
import sqlalchemy as sa

revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('exams', schema=None) as batch_op:
        batch_op.add_column(sa.Column('handed_in_at', sa.DateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('exams', schema=None) as batch_op:
        batch_op.drop_column('handed_in_at')
