"""A small seeded random source whose whole state is one 64-bit integer.

Engines keep it inside their game state, so a snapshot carries the randomness with it and the same seed
replays the same game.  SplitMix64 is simple, fast in pure Python and easy to re-implement elsewhere.
"""

from __future__ import annotations

from typing import MutableSequence, Sequence, TypeVar

T = TypeVar("T")

_MASK = (1 << 64) - 1
_SPAN = 1 << 64
_GAMMA = 0x9E3779B97F4A7C15
_MIX1 = 0xBF58476D1CE4E5B9
_MIX2 = 0x94D049BB133111EB


class SeededRandom:
    """SplitMix64: ``state`` advances by a fixed odd constant; each output is a mixed copy of it."""

    __slots__ = ("state",)

    def __init__(self, seed: int = 0) -> None:
        self.state = seed & _MASK

    def next_u64(self) -> int:
        """The next 64-bit output."""
        self.state = z = (self.state + _GAMMA) & _MASK
        z = ((z ^ (z >> 30)) * _MIX1) & _MASK
        z = ((z ^ (z >> 27)) * _MIX2) & _MASK
        return z ^ (z >> 31)

    def randbelow(self, n: int) -> int:
        """A uniform integer in ``[0, n)`` (rejection sampling, so no modulo bias)."""
        if n <= 0:
            raise ValueError("randbelow needs a positive bound")
        limit = _MASK - _SPAN % n
        while True:  # next_u64 inlined: engines and playouts call this on every decision
            self.state = z = (self.state + _GAMMA) & _MASK
            z = ((z ^ (z >> 30)) * _MIX1) & _MASK
            z = ((z ^ (z >> 27)) * _MIX2) & _MASK
            z ^= z >> 31
            if z <= limit:
                return z % n

    def choice(self, items: Sequence[T]) -> T:
        return items[self.randbelow(len(items))]

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Fisher–Yates in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.randbelow(i + 1)
            items[i], items[j] = items[j], items[i]

    def to_text(self) -> str:
        """The state as 16 hex digits (what snapshots store)."""
        return f"{self.state:016x}"

    @classmethod
    def from_text(cls, text: str) -> "SeededRandom":
        rng = cls()
        rng.state = int(text, 16) & _MASK
        return rng
