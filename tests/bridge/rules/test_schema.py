"""A snapshot's declared shape (bridge/rules/schema.py): what it reads, what it refuses and by which path, how it
takes what TTS's Lua writes, and how it writes an engine's tree back."""

from __future__ import annotations

import re

import pytest

from bridge.rules import schema as s
from bridge.rules.errors import SnapshotError
from tests.shared import REPO_ROOT

F = s.Field
CARD = s.Unique(s.OneOf(("c1", "c2", "c3"), "a card"), "cards")
SEAT = s.Record({"hand": F(s.ListOf(CARD)), "score": F(s.Integer(0), 0)}, closed=True)
TABLE = s.Record({
    "leader": F(s.Seat()),                         # declared before the players it counts
    "players": F(s.ListOf(SEAT, min_length=2, max_length=3, count_as="players", what="players")),
    "stock": F(s.ListOf(CARD), []),
    "winner": F(s.Nullable(s.Seat()), None),
    "over": F(s.Boolean(), False),
    "bids": F(s.MapOf(s.Seat(), s.Integer(0)), {}),
    "pending": F(s.Nullable(s.Tagged("kind", {"draw": s.Record({"left": F(s.Integer(1))}),
                                              "pass": s.Record({})}, "a pending decision")), None),
})


def table(**changes):
    base = {"leader": 1, "players": [{"hand": ["c1"], "score": 2}, {"hand": ["c2"], "score": 0}],
            "stock": ["c3"], "winner": None, "over": False, "bids": {"0": 3}, "pending": {"kind": "draw", "left": 1}}
    base.update(changes)
    return base


def refusal(snapshot) -> tuple[str, str]:
    with pytest.raises(SnapshotError) as refused:
        s.read(TABLE, snapshot)
    return refused.value.path, refused.value.message


def test_a_snapshot_in_the_declared_shape_reads_back_as_it_is_with_its_map_keys_as_numbers():
    read = s.read(TABLE, table())
    assert read == {**table(), "bids": {0: 3}}
    assert s.write(TABLE, read) == table(), "written back, the keys are strings again"


def test_keys_left_out_take_their_fields_defaults_and_a_required_one_is_missing():
    short = {"leader": 0, "players": [{"hand": []}, {"hand": ["c1"]}]}
    assert s.read(TABLE, short) == {"leader": 0, "players": [{"hand": [], "score": 0}, {"hand": ["c1"], "score": 0}],
                                    "stock": [], "winner": None, "over": False, "bids": {}, "pending": None}
    assert refusal({"players": short["players"]}) == ("leader", "is missing")
    assert refusal({"leader": 0}) == ("players", "is missing"), "the list a seat counts on, before the seat"


def test_what_lua_writes_for_nothing_is_read_the_protocols_way():
    """An empty Lua table comes as [] (or {}), a missing value as false, a dropped key not at all."""
    lua = {"leader": 1, "players": [{"hand": {}}, {"hand": ["c2"], "score": 0}], "bids": [],
           "winner": False, "pending": False}
    read = s.read(TABLE, lua)
    assert read["players"][0]["hand"] == [] and read["bids"] == {} and read["winner"] is None
    assert read["pending"] is None and read["over"] is False


def test_a_null_where_a_field_cannot_be_none_is_its_default_or_refused_when_it_has_none():
    assert s.read(TABLE, table(over=None))["over"] is False
    assert refusal(table(leader=None)) == ("leader", "must be an integer")


@pytest.mark.parametrize("change, path, message", [
    (dict(leader="1"), "leader", "must be an integer"),
    (dict(leader=2), "leader", "must be between 0 and 1"),            # two players listed after it
    (dict(over=1), "over", "must be true or false"),
    (dict(stock=["c9"]), "stock[0]", '"c9" is not a card'),
    (dict(stock=[["c1"]]), "stock[0]", '["c1"] is not a card'),
    (dict(stock="c3"), "stock", "must be a list"),
    (dict(players=[{"hand": []}]), "players", "must list 2 to 3 players"),
    (dict(players="two"), "players", "must be a list"),                # not a seat's crash: the list is blamed
    (dict(players=None), "players", "must be a list"),
    (dict(players=[{"hand": []}, "seat"]), "players[1]", "must be an object"),
    (dict(players=[{"hand": [], "hnad": []}, {"hand": []}]), "players[0].hnad",
     "is not a field here (expected hand, score)"),
    (dict(bids={"x": 1}), "bids.x", "is not a number"),
    (dict(bids={"5": 1}), "bids.5", "must be between 0 and 1"),
    (dict(pending={"kind": "dance"}), "pending.kind", '"dance" is not a pending decision'),
    (dict(pending={"kind": "draw", "left": 0}), "pending.left", "must be ≥ 1"),
    (dict(pending={"kind": "draw"}), "pending.left", "is missing"),
])
def test_a_bad_value_is_refused_naming_its_path(change, path, message):
    assert refusal(table(**change)) == (path, message)


def test_an_id_stands_in_one_place_only_and_its_second_place_names_the_first():
    assert refusal(table(stock=["c1"])) == ("stock[0]", '"c1" is also at players[0].hand[0]')


def test_a_reading_keeps_every_id_it_took():
    reading = s.Reading()
    s.read(TABLE, table(), reading)
    assert {card: place.field for card, place in reading.seen["cards"].items()} == {
        "c1": "players[0].hand[0]", "c2": "players[1].hand[0]", "c3": "stock[0]"}


def test_writing_keeps_the_declared_order_copies_lists_and_refuses_an_undeclared_key():
    hand = ["c1"]
    tree = {"players": [{"score": 1, "hand": hand}], "leader": 0}
    written = s.write(TABLE, tree)
    assert list(written) == ["leader", "players"] and list(written["players"][0]) == ["hand", "score"]
    assert written["players"][0]["hand"] == hand and written["players"][0]["hand"] is not hand
    with pytest.raises(ValueError, match="'colour'"):
        s.write(TABLE, {"leader": 0, "colour": "red"})


def test_every_leaf_is_listed_with_its_path_and_refuses_its_own_wrong_value():
    paths = {path: shape for path, shape in s.leaves(TABLE)}
    assert ("players", None, "hand", None) in paths and ("pending", "kind") in paths and ("bids", None) in paths
    for path, shape in paths.items():
        with pytest.raises(SnapshotError):
            shape.read(s.r.At.snapshot("x"), shape.wrong(), s.Reading(counts={"players": 2}))


# ------------------------------------------------------------------------------------------------ the docs

def refused_as(shape: s.Shape, value, reading: s.Reading | None = None) -> str:
    record = s.Record({"v": F(shape)})
    with pytest.raises(SnapshotError) as refused:
        record.read(s.r.At.snapshot(), {"v": value} if value is not MISSING else {}, reading or s.Reading())
    return refused.value.message


MISSING = object()
THREE = s.Reading(counts={"players": 3})
DOCUMENTED = {        # each wording docs/protocol.md's refusal table shows, and a value the schema refuses so
    "is missing": lambda: refused_as(s.Integer(), MISSING),
    "must be an integer": lambda: refused_as(s.Integer(), "2"),
    "must be true or false": lambda: refused_as(s.Boolean(), 0),
    "must be a string": lambda: refused_as(s.Text(), 5),
    "must be a list": lambda: refused_as(s.ListOf(s.Integer()), "x"),
    "must be an object": lambda: refused_as(s.Record({}), 3),
    "must be ≥ 0": lambda: refused_as(s.Integer(0), -1),
    "must be between 0 and 2": lambda: refused_as(s.Seat(), 3, THREE),
    "must list 2 to 4 players": lambda: refused_as(s.ListOf(s.Integer(), min_length=2, max_length=4,
                                                            what="players"), [1]),
    "must list 3 columns": lambda: refused_as(s.ListOf(s.Integer(), length=3, what="columns"), []),
    '"bile" is not a humour': lambda: refused_as(s.OneOf(("choleric",), "a humour"), "bile"),
    '"summer-3" is also at discard[2]': lambda: s.read(
        s.Record({"discard": F(s.ListOf(CARD3)), "hand": F(s.ListOf(CARD3))}),
        {"discard": ["a", "b", "summer-3"], "hand": ["summer-3"]}) and None,
    "is not a field here (expected hand, feathers, …)": lambda: refused_as(
        s.Record({"hand": F(s.Integer()), "feathers": F(s.Integer())}, closed=True), {"x": 1}),
    "must be 16 hex digits": lambda: refused_as(s.Hex(16), "abc"),
}
CARD3 = s.Unique(s.OneOf(("a", "b", "summer-3"), "a card"), "cards")


def documented_refusals() -> list[str]:
    rows, taking = [], False
    for line in (REPO_ROOT / "docs" / "protocol.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.lstrip().startswith("|") else []
        if not cells:
            taking = False
        elif cells[0] == "refusal":
            taking = True
        elif taking and not set(cells[0]) <= set("-: "):
            rows.extend(re.findall(r"`([^`]+)`", cells[0]))
    return rows


def test_the_protocol_pages_refusal_wordings_are_the_schemas():
    assert sorted(documented_refusals()) == sorted(DOCUMENTED)
    for wording, make in DOCUMENTED.items():
        if wording.startswith('"summer-3"'):
            with pytest.raises(SnapshotError) as refused:
                make()
            assert str(refused.value) == "hand[0]: " + wording
        elif wording.startswith("is not a field here"):
            assert make() == "is not a field here (expected hand, feathers)", "the doc elides the list"
        else:
            assert make() == wording


QUICK = s.Record({
    "owner": F(s.Seat()),
    "humour": F(s.OneOf(frozenset(("bile", "blood")), "a humour")),
    "face_up": F(s.Boolean(), False),
    "note": F(s.Nullable(s.Text()), None),
    "tally": F(s.ListOf(s.Nullable(s.Integer(1, 3)), max_length=2), []),
    "by_seat": F(s.MapOf(s.Seat(), s.Integer(0)), {}),
}, closed=True)
QUICK_VALUES = [
    {"owner": 1, "humour": "bile"}, {"owner": 2, "humour": "blood", "face_up": True, "note": "x", "tally": [1, None]},
    {"owner": 0, "humour": "blood", "by_seat": {"1": 4}, "tally": [False, 3]}, {"owner": 3, "humour": "bile"},
    {"owner": -1, "humour": "bile"}, {"owner": True, "humour": "bile"}, {"owner": 1, "humour": ["bile"]},
    {"owner": 1, "humour": {}}, {"owner": 1}, {"owner": 1, "humour": "bile", "extra": 1},
    {"owner": 1, "humour": "bile", "face_up": None, "note": False}, {"owner": 1, "humour": "bile", "note": ""},
    {"owner": 1, "humour": "bile", "tally": [1, 2, 3]}, {"owner": 1, "humour": "bile", "tally": [0]},
    {"owner": 1, "humour": "bile", "by_seat": {"9": 1}}, {"owner": 1, "humour": "bile", "by_seat": {"x": 1}},
    {"owner": 1, "humour": "bile", "by_seat": []}, {"owner": 1, "humour": "bile", "tally": {}}, [], None, "x",
]


@pytest.mark.parametrize("index", range(len(QUICK_VALUES)))
def test_the_quick_read_of_a_shape_is_its_path_naming_read_or_leaves_it_to_that_one(index):
    """``quick`` (what reading takes at a glance, no place made) gives what ``read`` gives, or SLOW, never another
    value and never an error: a snapshot reads the same whichever path a value takes."""
    value = QUICK_VALUES[index]
    reading = s.Reading(counts={"players": 3})
    quick = QUICK.quick(value, reading)
    try:
        read = QUICK.read(s.r.At.snapshot(), value, reading)
    except SnapshotError:
        assert quick is s.SLOW
    else:
        assert quick is s.SLOW or quick == read
    if index < 3:
        assert quick == read, "a well-formed value is taken at a glance"
    assert reading.counts == {"players": 3} and not reading.seen
    listed = s.ListOf(QUICK).quick([value, value], reading)
    assert listed is s.SLOW or listed == [quick, quick]


def test_a_record_read_in_one_pass_still_names_each_problem_and_takes_what_lua_writes():
    """A record's fields are read by code made for it (its ids noted, each value checked in place): a wrong one
    is read by its own shape, at its own path."""
    card = s.Record({"id": F(CARD), "back": F(s.Nullable(s.Unique(s.OneOf(("b1", "b2"), "a back"), "backs")), None),
                     "rank": F(s.Integer(1, 3)), "tags": F(s.Record({"red": F(s.Boolean(), False)}), {})})
    cards = s.Record({"row": F(s.ListOf(card, what="cards"))})

    def read(*entries):
        return s.read(cards, {"row": list(entries)})

    assert read({"id": "c1", "back": False, "rank": 1, "tags": []}, {"id": "c2", "back": "b1", "rank": 3}) == {
        "row": [{"id": "c1", "back": None, "rank": 1, "tags": {"red": False}},
                {"id": "c2", "back": "b1", "rank": 3, "tags": {"red": False}}]}
    for entries, path, message in [
        (({"id": "c1", "rank": 1}, {"id": "c1", "rank": 2}), "row[1].id", '"c1" is also at row[0].id'),
        (({"id": "c1", "back": "b2", "rank": 1}, {"id": "c2", "back": "b2", "rank": 2}), "row[1].back",
         '"b2" is also at row[0].back'),
        (({"id": "c1", "rank": 4},), "row[0].rank", "must be between 1 and 3"),
        (({"id": "c4", "rank": 1},), "row[0].id", '"c4" is not a card'),
        (({"id": "c1"},), "row[0].rank", "is missing"),
        (({"id": "c1", "rank": 1, "tags": {"red": 1}},), "row[0].tags.red", "must be true or false"),
    ]:
        with pytest.raises(SnapshotError) as refused:
            read(*entries)
        assert (refused.value.path, refused.value.message) == (path, message)
