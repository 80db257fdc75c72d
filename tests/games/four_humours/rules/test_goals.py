"""Each kind of the goal DSL, checked on a player's own potions (rules spec §2.7)."""

from __future__ import annotations

import pytest

from bridge.rules.random import SeededRandom

from bridge.rules.four_humours.goals import checker, one_more, satisfied
from bridge.rules.four_humours.records import GoalPredicate as P


def occ(*cells):
    result = {}
    for c in cells:
        result[c] = result.get(c, 0) + 1
    return result


def test_zones_covered_counts_distinct_tiles(sample):
    k = sample.kingdom
    one_per_tile = occ(*(cells[0] for cells in k.cells_of_tile.values()))
    assert satisfied(P("zones_covered", min=6), k, one_per_tile)
    assert not satisfied(P("zones_covered", min=6), k, occ("mill", "bridgeford", "abbey"))


def test_bridge_pairs_need_both_ends(sample):
    k = sample.kingdom
    bridges = [e for e in k.edges if e.kind == "bridge"]
    both = occ(bridges[0].a, bridges[0].b, bridges[1].a, bridges[1].b)
    assert satisfied(P("bridge_pairs", min=2), k, both)
    assert not satisfied(P("bridge_pairs", min=2), k, occ(bridges[0].a, bridges[0].b, bridges[1].a))


def test_connected_cells_follow_the_allowed_edge_kinds(sample):
    k = sample.kingdom
    chain = occ("bridgeford", "mill", "abbey")  # path bridgeford–mill, bridge bridgeford–abbey
    assert satisfied(P("connected_cells", min=3, via=("path", "bridge")), k, chain)
    assert not satisfied(P("connected_cells", min=3, via=("path",)), k, chain)


def test_cells_in_one_zone_and_stack_on_cell(sample):
    k = sample.kingdom
    assert satisfied(P("cells_in_one_zone", min=3), k, occ("mill", "granary", "orchard"))
    assert not satisfied(P("cells_in_one_zone", min=3), k, occ("mill", "granary", "abbey"))
    assert satisfied(P("stack_on_cell", min=3), k, occ("mill", "mill", "mill"))
    assert not satisfied(P("stack_on_cell", min=3), k, occ("mill", "mill", "abbey"))


def test_fief_patterns(sample):
    fief = sample.fiefs[0]
    types = {c.citizen for c in fief.cells}
    one_each = occ(*[next(c.id for c in fief.cells if c.citizen == t) for t in types])
    assert satisfied(P("citizen_types_covered", min=len(types)), fief, one_each)
    edge = fief.edges[0]
    nxt = next(n for n in fief.neighbours[edge.b] if n != edge.a)
    assert satisfied(P("fief_line", length=3), fief, occ(edge.a, edge.b, nxt))
    assert not satisfied(P("fief_line", length=3), fief, occ(edge.a, edge.b))


@pytest.mark.parametrize("kind, expected", [("all", False), ("any", True)])
def test_all_and_any_combine_parts(sample, kind, expected):
    parts = (P("stack_on_cell", min=1), P("stack_on_cell", min=2))
    assert satisfied(P(kind, parts=parts), sample.kingdom, occ("mill")) is expected


def test_a_checker_answers_as_satisfied(sample):
    """goals.checker (the engine's goal check with the board's tables bound once) agrees with satisfied for
    every goal of the data, each leaf kind, and all/any, on random occupancies of every size."""
    rng = SeededRandom(7)
    leaves = [P("zones_covered", min=3), P("bridge_pairs", min=1), P("connected_cells", min=3, via=("path",)),
              P("connected_cells", min=4), P("cells_in_one_zone", min=2), P("stack_on_cell", min=2),
              P("citizen_types_covered", min=3), P("fief_line", length=3), P("fief_line", length=3, same_type=True),
              P("connected_cells", min=0), P("connected_cells", min=1), P("connected_cells", min=2, via=("path",)),
              P("zones_covered", min=0), P("stack_on_cell", min=0)]
    preds = [g.predicate for g in sample.goals] + leaves + [P("all", parts=tuple(leaves[:3])),
                                                            P("any", parts=tuple(leaves[3:6]))]
    for board in (sample.kingdom, *sample.fiefs):
        cells = list(board.cell_ids)
        for pred in preds:
            check = checker(pred, board)
            for size in range(len(cells) + 1):
                for _ in range(3):
                    found = occ(*[cells[rng.randbelow(len(cells))] for _ in range(size)])
                    assert check(found) == satisfied(pred, board, found), (board.id, pred, found)


def test_one_more_answers_as_satisfied_of_the_grown_occupancy(sample):
    """goals.one_more (what the heuristic bot asks of every cell a winner may take) agrees with satisfied of the
    occupancy with one more potion on that cell, for every goal of the data, each leaf kind (limits 0 and 1
    too) and all/any, on random occupancies of every size and every cell of the board."""
    rng = SeededRandom(11)
    leaves = [P("zones_covered", min=3), P("bridge_pairs", min=1), P("bridge_pairs", min=2),
              P("connected_cells", min=3, via=("path",)), P("connected_cells", min=4), P("connected_cells", min=1),
              P("cells_in_one_zone", min=2), P("cells_in_one_zone", min=0), P("stack_on_cell", min=2),
              P("citizen_types_covered", min=3), P("fief_line", length=3)]
    preds = [g.predicate for g in sample.goals] + leaves + [P("all", parts=tuple(leaves[:3])),
                                                            P("any", parts=tuple(leaves[3:7]))]
    for board in (sample.kingdom, *sample.fiefs):
        cells = list(board.cell_ids)
        for pred in preds:
            prepare = one_more(pred, board)
            for size in range(0, len(cells) + 1, 2):
                found = occ(*[cells[rng.randbelow(len(cells))] for _ in range(size)])
                asked = prepare(found)
                for cell in cells:
                    grown = dict(found)
                    grown[cell] = grown.get(cell, 0) + 1
                    assert asked(cell) == satisfied(pred, board, grown), (board.id, pred, found, cell)
