"""What the server keeps per browser session (a study session, an exam sitting): the most
recently used ``limit`` of them, by session id; the least recently used goes first. Nothing is
lost with one but the place in it: every answer is in the store already."""

from __future__ import annotations

from collections import OrderedDict
from typing import Generic, TypeVar

T = TypeVar("T")


class Kept(Generic[T]):
    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.values: OrderedDict[str, T] = OrderedDict()

    def get(self, session: str) -> T | None:
        value = self.values.get(session)
        if value is not None:
            self.values.move_to_end(session)
        return value

    def keep(self, session: str, value: T) -> None:
        self.values.pop(session, None)
        self.values[session] = value
        while len(self.values) > self.limit:
            self.values.popitem(last=False)

    def drop(self, session: str) -> None:
        self.values.pop(session, None)
