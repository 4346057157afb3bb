"""Initial schema: cards, card tags, review log, meta.

Revision ID: 0001
Revises: 
Create Date: 2026-01-01
"""

from alembic import op
import sqlalchemy as sa

revision = '0001'
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('cards',
    sa.Column('id', sa.String(length=200), nullable=False),
    sa.Column('deck', sa.String(length=200), nullable=False),
    sa.Column('kind', sa.String(length=50), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('content_hash', sa.String(length=128), nullable=False),
    sa.Column('state', sa.SmallInteger(), nullable=False),
    sa.Column('step', sa.Integer(), nullable=True),
    sa.Column('stability', sa.Float(), nullable=True),
    sa.Column('difficulty', sa.Float(), nullable=True),
    sa.Column('due', sa.DateTime(), nullable=True),
    sa.Column('last_review', sa.DateTime(), nullable=True),
    sa.Column('suspended', sa.Boolean(), nullable=False),
    sa.Column('buried_until', sa.DateTime(), nullable=True),
    sa.Column('first_seen', sa.DateTime(), nullable=False),
    sa.Column('active', sa.Boolean(), nullable=False),
    sa.Column('lapses', sa.Integer(), nullable=False),
    sa.CheckConstraint('state BETWEEN 0 AND 3', name=op.f('ck_cards_state')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_cards'))
    )
    with op.batch_alter_table('cards', schema=None) as batch_op:
        batch_op.create_index('ix_cards_state_due', ['state', 'due'], unique=False)
        batch_op.create_index('ix_cards_state_position', ['state', 'position'], unique=False)
    op.create_table('meta',
    sa.Column('key', sa.String(length=100), nullable=False),
    sa.Column('value', sa.Text(), nullable=False),
    sa.PrimaryKeyConstraint('key', name=op.f('pk_meta'))
    )
    op.create_table('card_tags',
    sa.Column('card_id', sa.String(length=200), nullable=False),
    sa.Column('tag', sa.String(length=100), nullable=False),
    sa.ForeignKeyConstraint(['card_id'], ['cards.id'], name=op.f('fk_card_tags_card_id_cards'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('card_id', 'tag', name=op.f('pk_card_tags'))
    )
    with op.batch_alter_table('card_tags', schema=None) as batch_op:
        batch_op.create_index('ix_card_tags_tag', ['tag'], unique=False)
    op.create_table('review_log',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('card_id', sa.String(length=200), nullable=False),
    sa.Column('reviewed_at', sa.DateTime(), nullable=False),
    sa.Column('rating', sa.SmallInteger(), nullable=False),
    sa.Column('duration_ms', sa.Integer(), nullable=True),
    sa.Column('mode', sa.String(length=10), nullable=False),
    sa.Column('answer_text', sa.Text(), nullable=True),
    sa.Column('correct', sa.Boolean(), nullable=True),
    sa.Column('seed', sa.BigInteger(), nullable=True),
    sa.Column('state_before', sa.SmallInteger(), nullable=False),
    sa.Column('scheduled', sa.Boolean(), nullable=False),
    sa.CheckConstraint("mode IN ('study', 'exam')", name=op.f('ck_review_log_mode')),
    sa.CheckConstraint('rating BETWEEN 1 AND 4', name=op.f('ck_review_log_rating')),
    sa.ForeignKeyConstraint(['card_id'], ['cards.id'], name=op.f('fk_review_log_card_id_cards')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_review_log'))
    )
    with op.batch_alter_table('review_log', schema=None) as batch_op:
        batch_op.create_index('ix_review_log_card_id_id', ['card_id', 'id'], unique=False)
        batch_op.create_index('ix_review_log_reviewed_at', ['reviewed_at'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('review_log', schema=None) as batch_op:
        batch_op.drop_index('ix_review_log_reviewed_at')
        batch_op.drop_index('ix_review_log_card_id_id')
    op.drop_table('review_log')
    with op.batch_alter_table('card_tags', schema=None) as batch_op:
        batch_op.drop_index('ix_card_tags_tag')
    op.drop_table('card_tags')
    op.drop_table('meta')
    with op.batch_alter_table('cards', schema=None) as batch_op:
        batch_op.drop_index('ix_cards_state_position')
        batch_op.drop_index('ix_cards_state_due')
    op.drop_table('cards')
