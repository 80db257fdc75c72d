"""Build 15 Days tables for the worked examples: start from a dealt game, then put named cards where a test
wants them (hands, corners), taking them from wherever they are, so every card stays exactly once on the table.

Faces are written ``summer-3``; seats are 0-based (the spec's P1 is seat 0).
"""

from __future__ import annotations

from typing import Iterable

from bridge.catalog import load_game
from bridge.rules.fifteen_days.actions import Face
from bridge.rules.fifteen_days.records import FifteenDaysData
from bridge.rules.fifteen_days.state import Corner, GameState, new_game


def sample_data() -> FifteenDaysData:
    """The shipped sample data, loaded as every command loads it."""
    return load_game("fifteen-days")


def face(text: str) -> Face:
    return Face.from_text(text)


class Table:
    """A dealt game whose hands and boards the test then sets; ``state`` is re-read from its snapshot after
    every change, so each table is one the mod could send."""

    def __init__(self, data: FifteenDaysData, players: int = 2, *, active: int = 0, seed: int = 1) -> None:
        self.data = data
        self.state = new_game(data, players, seed=seed)
        self.state.active = active
        for seat in self.state.seats:
            self.state.piles[0][0:0] = seat.hand
            seat.hand = []
        self._settle()

    def _settle(self) -> None:
        self.state = GameState.from_snapshot(self.data, self.state.to_snapshot())

    def _pull(self, text: str) -> int:
        """A card of face ``text`` from the draw piles (or the removed cards), taken off its place."""
        wanted = face(text)
        t = self.state.t
        for place in (*self.state.piles, self.state.removed, self.state.discard, *self.state.market):
            for i, card in enumerate(place):
                if t.face[card] == wanted:
                    del place[i]
                    return card
        raise AssertionError(f"no {text} left to pull")

    def hand(self, seat: int, faces: Iterable[str]) -> "Table":
        player = self.state.seats[seat]
        self.state.piles[0][0:0] = player.hand
        player.hand = [self._pull(text) for text in faces]
        self._settle()
        return self

    def corner(self, seat: int, k: int, faces: Iterable[str], wild: int | None = None) -> "Table":
        player = self.state.seats[seat]
        old = player.corners[k]
        self.state.piles[0][0:0] = list(old.cards.values())
        if old.wild is not None:
            self.state.wild_supply += 1
        new = Corner()
        for text in faces:
            card = self._pull(text)
            new.season = self.state.t.season[card]
            new.cards[self.state.t.value[card]] = card
        new.cards = dict(sorted(new.cards.items()))
        if wild is not None:            # a wild the table puts on a board was played (AMB-FD-13)
            new.wild = wild
            self.state.wild_supply -= 1
            player.wilds_played += 1
        player.corners[k] = new
        self._settle()
        return self

    def owner(self, animal: str, seat: int | None) -> "Table":
        self.state.owner[animal] = seat
        self._settle()
        return self

    def pile(self, index: int, size: int) -> "Table":
        """Leave ``size`` cards in draw pile ``index`` (the rest go to the other pile's bottom)."""
        piles = self.state.piles
        extra = piles[index][:len(piles[index]) - size]
        piles[index] = piles[index][len(piles[index]) - size:]
        piles[1 - index][0:0] = extra
        self._settle()
        return self

    def column(self, index: int, size: int) -> "Table":
        """Leave ``size`` cards in market column ``index`` (the rest go to the bottom of draw pile 0)."""
        column = self.state.market[index]
        self.state.piles[0][0:0] = column[:len(column) - size]
        self.state.market[index] = column[len(column) - size:]
        self._settle()
        return self
