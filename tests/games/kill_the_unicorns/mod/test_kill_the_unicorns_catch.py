"""Caught unicorns lie where the seat mat shows them (docs/games/kill_the_unicorns/table-contract.md, "Catch area"):
each in its printed colour's column (legendary ones in the last), the first on the mat's `ku-catch-column:<colour>`
snap point, each later one `catch_step` nearer the owner, closer when a column holds more than fits so that every
card stays in the catch area; a pinned trick lies under its unicorn and a market token on it, both where no later
unicorn of the column covers them, and the mod reads every one back as belonging to that unicorn."""

from __future__ import annotations

import json
import math

from tests.mod.handtable import answer, connect
from tests.games.kill_the_unicorns.mod.handmade import CARD, CATCH_COLUMNS, cards, setup_snapshot, table
from tools.headless.geometry import Vec, inside_box, position_to_local

STEP = 0.6


def _ready(t) -> bool:
    return " to place a trick" in t.ui_value("turnStatus") and not any(o.in_motion for o in t.objects)


def _big_catch():
    """A setup snapshot in which White has caught all 8 green unicorns (two start ones among them), two blue, a
    legendary and a pink, with pinned tricks and tokens on some, interleaved as the hunts went; a cotton candy
    token makes a green count as pink at scoring."""
    snap = setup_snapshot(["princess", "knight", "wizard"], seed=4)
    colour = {u["id"]: u.get("colour") for u in cards()["unicorns"]}
    greens = ["start-1", "green-1", "green-2", "start-5", "green-3", "green-4", "green-5", "green-6"]
    others = ["blue-1", "legend-1", "pink-2", "blue-2"]
    assert all(colour[u] == "green" for u in greens) and [colour[u] for u in others] == ["blue", None, "pink", "blue"]
    order = [greens[0], others[0], greens[1], greens[2], others[1], greens[3], greens[4], others[2], greens[5],
             greens[6], others[3], greens[7]]
    pinned = {"green-2": ["knight-trick-1"], "legend-1": ["knight-trick-2", "wizard-trick-3"]}
    tokens = {"green-1": ["cotton_candy-1"], "green-3": ["fake_horn-1", "fake_horn-2"], "green-6": ["fake_horn-3"],
              "legend-1": ["fairy_dust-1"]}
    taken = set(order) | {c for v in pinned.values() for c in v} | {c for v in tokens.values() for c in v}
    # those cards leave the places setup had them in
    snap["unicorn_deck"] = [u for u in snap["unicorn_deck"] if u not in taken]
    snap["line"] = [u if u not in taken else None for u in snap["line"]]
    snap["box"] = [u for u in snap["box"] if u not in taken]
    snap["market"] = {k: [t for t in v if t not in taken] for k, v in snap["market"].items()}
    for p in snap["players"]:
        p["trick_deck"] = [c for c in p["trick_deck"] if c not in taken]
        p["trick_hand"] = [c for c in p["trick_hand"] if c not in taken]
        p["catch"] = [c for c in p["catch"] if c["unicorn"] not in taken]
    white = snap["players"][0]
    back_to_box = [c["unicorn"] for c in white["catch"]]
    snap["box"] += back_to_box
    white["catch"] = [{"unicorn": u, "pinned": pinned.get(u, []), "tokens": tokens.get(u, [])} for u in order]
    return snap, colour


def _frame(t, colour):
    mat = next(o for o in t.with_tag("ku-seat-mat") if o.memo_json()["owner"] == colour)
    area = next(o for o in t.with_tag("ku-catch") if o.memo_json()["owner"] == colour)
    first = {}
    for k, sp in enumerate(mat.snap_points):
        for tag in sp.tags:
            if tag.startswith("ku-catch-column:"):
                first[tag.split(":", 1)[1]] = mat.snap_world(k)
    return mat, area, first


def _local(area, p):
    """``(across, towards the owner)`` of a table position in the catch area's frame, in table units."""
    q = position_to_local(p, area.position, area.rotation, area.scale)
    return q.x * area.scale.x, q.z * area.scale.z


def _on_card(card, p) -> bool:
    q = position_to_local(p, card.position, card.rotation, Vec(1.0, 1.0, 1.0))
    return abs(q.x) <= CARD[0] / 2 + 1e-3 and abs(q.z) <= CARD[1] / 2 + 1e-3


def test_each_caught_unicorn_lies_in_its_colours_column_and_is_read_back_with_what_lies_on_it():
    snap, colour_of = _big_catch()
    t = table(["White", "Red", "Orange"], seed=4)
    with t:
        connect(t)
        t.click("setupButton", "White")
        answer(t, "setup", {"snapshot": snap, "events": [], "next": snap["pending"]})
        assert t.run_until(lambda: _ready(t), max_seconds=60), t.ui_value("turnStatus")
        assert t.errors == []
        _, area, first = _frame(t, "White")
        assert sorted(first) == sorted(CATCH_COLUMNS)
        objs = {o.memo_json().get("card") or o.memo_json().get("token"): o for o in t.objects}
        white = snap["players"][0]["catch"]
        columns: dict[str, list] = {}
        for c in white:
            columns.setdefault(colour_of[c["unicorn"]] or "legendary", []).append(c["unicorn"])
        # the cotton candy on green-1 makes it count as pink: it still lies in the green column
        assert "green-1" in columns["green"]
        for column, ids in columns.items():
            start_across, start_along = _local(area, first[column])
            alongs = []
            for k, u in enumerate(ids):
                card = objs[u]
                across, along = _local(area, card.position)
                assert inside_box(card.position, area.position, area.rotation, area.scale), u
                assert math.isclose(across, start_across, abs_tol=0.01), (u, column)
                alongs.append(along - start_along)
                # the whole card stays in the catch area
                assert along + CARD[1] / 2 <= area.scale.z / 2 + 1e-3, (u, along)
            assert alongs[0] == 0.0 or math.isclose(alongs[0], 0.0, abs_tol=0.01)
            steps = [b - a for a, b in zip(alongs, alongs[1:])]
            # each later unicorn nearer the owner: catch_step apart, or evenly closer when the column is full
            assert all(s > 0.3 for s in steps), (column, steps)
            if len(ids) <= 3:
                assert all(math.isclose(s, STEP, abs_tol=0.01) for s in steps), (column, steps)
            else:
                assert all(math.isclose(s, steps[0], abs_tol=0.01) for s in steps) and steps[0] < STEP, steps
        # a pinned trick and a token lie on their unicorn's card, where no later unicorn of the column covers them
        for c in white:
            column = columns[colour_of[c["unicorn"]] or "legendary"]
            later = column[column.index(c["unicorn"]) + 1:]
            for attached in c["pinned"] + c["tokens"]:
                p = objs[attached].position
                assert inside_box(p, area.position, area.rotation, area.scale), attached
                assert _on_card(objs[c["unicorn"]], p), (attached, c["unicorn"])
                assert not any(_on_card(objs[u], p) for u in later), (attached, c["unicorn"])
            for k, pinned in enumerate(c["pinned"]):
                assert objs[pinned].position.y < objs[c["unicorn"]].position.y   # tucked under it
            for token in c["tokens"]:
                assert objs[token].position.y > max(objs[u].position.y for u in column)   # on top
        # read back: the same unicorns in the same order, each with its own pinned tricks and tokens
        read = json.loads(t.call_global("test_snapshot"))
        assert read["players"][0]["catch"] == white
