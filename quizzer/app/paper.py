"""An exam's paper: every card kind the decks allow, leaning toward the learner's weak spots
(low recall on their own forgetting curve, lapses, past exam mistakes) with a share of
never-seen cards, because an interviewer asks what you do not know yet too. The same seed,
filters and history give the same paper."""

from __future__ import annotations

import random
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import fsrs

from quizzer import kinds
from quizzer.base.defaults import SEEDS
from quizzer.scheduling.memory import DEFAULT_SCHEDULER, retrievability
from quizzer.store import cards as card_store
from quizzer.store import exams as exam_store
from quizzer.store.engine import Store
from quizzer.store.filter import CardFilter
from quizzer.store.records import NEW, MemoryState, PaperSpec

NEVER_SEEN_SHARE = 0.2
# weakness = 1 + RECALL_WEIGHT * (1 - recall) + min(lapses, LAPSES_CAP) + WRONG_WEIGHT * min(times wrong, WRONG_CAP)
RECALL_WEIGHT, LAPSES_CAP, WRONG_WEIGHT, WRONG_CAP = 4.0, 5, 2.0, 3


@dataclass(frozen=True)
class Item:
    card_id: str
    kind: str
    seed: int | None  # generated kinds: the question drawn


def _weakness(memory: MemoryState, times_wrong: int, now: datetime, scheduler: fsrs.Scheduler) -> float:
    """Higher for what the learner is likely to get wrong: low recall (on their own forgetting
    curve), lapses, exam mistakes."""
    recall = retrievability(memory, now, scheduler)
    return (1.0 + RECALL_WEIGHT * (1.0 - recall) + min(memory.lapses, LAPSES_CAP)
            + WRONG_WEIGHT * min(times_wrong, WRONG_CAP))


def _sample(rng: random.Random, weighted: list[tuple[str, float]], k: int) -> list[str]:
    """k ids without replacement, each drawn with probability proportional to its weight."""
    keyed = sorted(((rng.random() ** (1.0 / w), cid) for cid, w in weighted), reverse=True)
    return [cid for _, cid in keyed[:k]]


def draw_paper(store: Store, cards: Mapping[str, Any], spec: PaperSpec, seed: int, now: datetime,
               scheduler: fsrs.Scheduler = DEFAULT_SCHEDULER) -> list[Item]:
    """The questions of a new exam. The same seed, filters and history give the same paper."""
    previous = exam_store.first_of_seed(store, seed, spec)
    if previous is not None:  # that seed's paper, minus cards removed since
        return [Item(q.card_id, q.kind, q.seed) for q in exam_store.questions(store, previous.id) if q.card_id in cards]
    rng = random.Random(seed)
    chosen_cards = CardFilter.of_paper(spec)
    pool = {cid: entry for cid, entry in card_store.memories(store, chosen_cards, now).items() if cid in cards}
    wrong = exam_store.times_wrong(store)
    weight = {cid: 1.0 if memory.state == NEW else _weakness(memory, wrong.get(cid, 0), now, scheduler)
              for cid, (_, memory) in pool.items()}
    kind_of = {cid: kind for cid, (kind, _) in pool.items()}
    count = min(spec.count, len(pool))
    # one question of every kind the pool has, then the weak spots and a share of never-seen cards
    present = [kind for kind in kinds.KINDS if kind in kind_of.values()]
    rng.shuffle(present)  # a paper shorter than the number of kinds leaves out a different one
    chosen = [_sample(rng, [(cid, weight[cid]) for cid in kind_of if kind_of[cid] == kind], 1)[0]
              for kind in present[:count]]
    rest = [cid for cid in pool if cid not in chosen]
    unseen = [cid for cid in rest if pool[cid][1].state == NEW]
    seen = [(cid, weight[cid]) for cid in rest if pool[cid][1].state != NEW]
    left = count - len(chosen)
    n_unseen = min(len(unseen), left, max(round(count * NEVER_SEEN_SHARE), left - len(seen)))
    chosen += _sample(rng, [(cid, 1.0) for cid in unseen], n_unseen)
    chosen += _sample(rng, seen, left - n_unseen)
    rng.shuffle(chosen)
    return [Item(cid, kind_of[cid], rng.randrange(SEEDS) if kinds.get(kind_of[cid]).generated else None)
            for cid in chosen]


def new_seed() -> int:
    return secrets.randbelow(SEEDS)
