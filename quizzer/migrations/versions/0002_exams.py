"""Exams, their questions, and the mistakes notebook.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from alembic import op
import sqlalchemy as sa

revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('exams',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('seed', sa.BigInteger(), nullable=False),
    sa.Column('started_at', sa.DateTime(), nullable=False),
    sa.Column('minutes', sa.Float(), nullable=False),
    sa.Column('filters', sa.Text(), nullable=False),
    sa.Column('finished_at', sa.DateTime(), nullable=True),
    sa.Column('score', sa.Float(), nullable=True),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_exams'))
    )
    with op.batch_alter_table('exams', schema=None) as batch_op:
        batch_op.create_index('ix_exams_seed', ['seed'], unique=False)
    op.create_table('exam_questions',
    sa.Column('exam_id', sa.Integer(), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('card_id', sa.String(length=200), nullable=False),
    sa.Column('kind', sa.String(length=50), nullable=False),
    sa.Column('seed', sa.BigInteger(), nullable=True),
    sa.Column('status', sa.String(length=12), nullable=False),
    sa.Column('answer_text', sa.Text(), nullable=True),
    sa.Column('duration_ms', sa.Integer(), nullable=False),
    sa.Column('covered', sa.Text(), nullable=True),
    sa.Column('score', sa.Float(), nullable=True),
    sa.Column('review_id', sa.Integer(), nullable=True),
    sa.CheckConstraint("status IN ('unanswered', 'skipped', 'answered')", name=op.f('ck_exam_questions_status')),
    sa.ForeignKeyConstraint(['card_id'], ['cards.id'], name=op.f('fk_exam_questions_card_id_cards')),
    sa.ForeignKeyConstraint(['exam_id'], ['exams.id'], name=op.f('fk_exam_questions_exam_id_exams'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['review_id'], ['review_log.id'], name=op.f('fk_exam_questions_review_id_review_log'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('exam_id', 'position', name=op.f('pk_exam_questions'))
    )
    with op.batch_alter_table('exam_questions', schema=None) as batch_op:
        batch_op.create_index('ix_exam_questions_card_id', ['card_id'], unique=False)
    op.create_table('mistakes',
    sa.Column('card_id', sa.String(length=200), nullable=False),
    sa.Column('times_wrong', sa.Integer(), nullable=False),
    sa.Column('last_wrong_at', sa.DateTime(), nullable=False),
    sa.Column('last_wrong_answer', sa.Text(), nullable=True),
    sa.ForeignKeyConstraint(['card_id'], ['cards.id'], name=op.f('fk_mistakes_card_id_cards'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('card_id', name=op.f('pk_mistakes'))
    )


def downgrade() -> None:
    op.drop_table('mistakes')
    with op.batch_alter_table('exam_questions', schema=None) as batch_op:
        batch_op.drop_index('ix_exam_questions_card_id')
    op.drop_table('exam_questions')
    with op.batch_alter_table('exams', schema=None) as batch_op:
        batch_op.drop_index('ix_exams_seed')
    op.drop_table('exams')
