"""Learner-level state: fitted FSRS parameters and the interview plan.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30
"""

from alembic import op
import sqlalchemy as sa

revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('learner',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('parameters', sa.Text(), nullable=True),
    sa.Column('fitted_at', sa.DateTime(), nullable=True),
    sa.Column('interview_day', sa.Date(), nullable=True),
    sa.Column('interview_retention', sa.Float(), nullable=True),
    sa.Column('interview_decks', sa.Text(), nullable=True),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_learner'))
    )


def downgrade() -> None:
    op.drop_table('learner')
