"""A record's repr names it as the dataclass's own repr does (renderers key images by it)."""

from __future__ import annotations

from dataclasses import dataclass

from bridge.rules.game import Names
from bridge.rules.values import plain_repr


@dataclass(frozen=True)
class Guarded:
    name: Names
    parts: tuple
    note: str | None = None


@plain_repr
@dataclass(frozen=True)
class Plain(Guarded):
    """The same fields, without the guard."""


def test_a_plain_repr_record_reads_as_the_dataclass_repr_does():
    names = Names("Mill", "Млин", "Мельница")
    parts = (1, 2.5, ("x",), None, Names("a", "б", "в"))
    for note in (None, "it's \"quoted\"\n"):
        assert repr(Plain(names, parts, note)) == repr(Guarded(names, parts, note)).replace("Guarded", "Plain", 1)
    assert repr(names) == "Names(en='Mill', uk='Млин', ru='Мельница')"
