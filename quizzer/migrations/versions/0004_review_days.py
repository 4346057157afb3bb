"""The statistics' aggregate of the review log: reviews per study day and deck, and the
per-card snapshot that tells when it must be rebuilt (``quizzer.store.review_days``); an index
on the cards' lapses for the weakest cards.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30
"""

from alembic import op
import sqlalchemy as sa

revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('review_days',
    sa.Column('day', sa.Date(), nullable=False),
    sa.Column('deck', sa.String(length=200), nullable=False),
    sa.Column('reviews', sa.Integer(), nullable=False),
    sa.Column('again', sa.Integer(), nullable=False),
    sa.Column('hard', sa.Integer(), nullable=False),
    sa.Column('good', sa.Integer(), nullable=False),
    sa.Column('easy', sa.Integer(), nullable=False),
    sa.Column('duration_ms', sa.BigInteger(), nullable=False),
    sa.Column('young_passed', sa.Integer(), nullable=False),
    sa.Column('young_failed', sa.Integer(), nullable=False),
    sa.Column('mature_passed', sa.Integer(), nullable=False),
    sa.Column('mature_failed', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('day', 'deck', name=op.f('pk_review_days'))
    )
    op.create_table('review_days_cards',
    sa.Column('card_id', sa.String(length=200), nullable=False),
    sa.Column('deck', sa.String(length=200), nullable=False),
    sa.Column('reviews', sa.Integer(), nullable=False),
    sa.Column('checksum', sa.BigInteger(), nullable=False),
    sa.Column('last_at', sa.Float(), nullable=False),
    sa.PrimaryKeyConstraint('card_id', name=op.f('pk_review_days_cards'))
    )
    with op.batch_alter_table('cards', schema=None) as batch_op:
        batch_op.create_index('ix_cards_lapses', ['lapses'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('cards', schema=None) as batch_op:
        batch_op.drop_index('ix_cards_lapses')
    op.drop_table('review_days_cards')
    op.drop_table('review_days')
