"""The goal DSL (rules spec §2.7): each predicate kind is checked per player on that player's own potions.

A player's *occupancy* is how many of their potions lie on each cell of their board (the shared kingdom
map, or their own fief).  Kinds:

``zones_covered {min}``          potions in at least ``min`` distinct tiles (zones)
``bridge_pairs {min}``           at least ``min`` bridges whose two end cells both hold an own potion
``connected_cells {min, via}``   a group of at least ``min`` occupied cells joined by edges of kinds ``via``
``cells_in_one_zone {min}``      at least ``min`` occupied cells inside one tile
``stack_on_cell {min}``          at least ``min`` own potions on one cell
``citizen_types_covered {min}``  occupied cells of at least ``min`` distinct citizen types (fief cells)
``fief_line {length, same_type}`` a chain of ``length`` distinct occupied cells, each joined to the next by
                                 an edge; with ``same_type`` all of one citizen type
``all [..]`` / ``any [..]``      every / some part holds
"""

from __future__ import annotations

from typing import Callable, Mapping

from bridge.rules.four_humours.records import Board, GoalPredicate

Occupancy = Mapping[str, int]
Evaluator = Callable[[GoalPredicate, Board, Occupancy], bool]


def _zones_covered(pred: GoalPredicate, board: Board, occ: Occupancy) -> bool:
    cells = board.cell_by_id
    return len({cells[c].tile for c in occ}) >= pred.min


def _bridge_pairs(pred: GoalPredicate, board: Board, occ: Occupancy) -> bool:
    return sum(1 for a, b in board.bridges if a in occ and b in occ) >= pred.min


def _connected_cells(pred: GoalPredicate, board: Board, occ: Occupancy) -> bool:
    if len(occ) < pred.min:
        return False
    joined = board.joined_by(tuple(pred.via))
    seen: set[str] = set()
    for start in occ:
        if start in seen:
            continue
        stack, size = [start], 0
        seen.add(start)
        while stack:
            cell = stack.pop()
            size += 1
            for nxt in joined[cell]:
                if nxt in occ and nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
        if size >= pred.min:
            return True
    return False


def _cells_in_one_zone(pred: GoalPredicate, board: Board, occ: Occupancy) -> bool:
    per_tile: dict[str, int] = {}
    cells = board.cell_by_id
    for c in occ:
        tile = cells[c].tile
        per_tile[tile] = per_tile.get(tile, 0) + 1
    return max(per_tile.values(), default=0) >= pred.min


def _stack_on_cell(pred: GoalPredicate, board: Board, occ: Occupancy) -> bool:
    return max(occ.values(), default=0) >= pred.min


def _citizen_types_covered(pred: GoalPredicate, board: Board, occ: Occupancy) -> bool:
    cells = board.cell_by_id
    return len({cells[c].citizen for c in occ if cells[c].citizen}) >= pred.min


def _fief_line(pred: GoalPredicate, board: Board, occ: Occupancy) -> bool:
    length = pred.length or 0
    if length <= 1:
        return len(occ) >= length
    cells = board.cell_by_id
    neighbours = board.neighbours

    def extend(path: list[str]) -> bool:
        if len(path) == length:
            return True
        for nxt in neighbours[path[-1]]:
            if nxt in occ and nxt not in path:
                if pred.same_type and cells[nxt].citizen != cells[path[0]].citizen:
                    continue
                path.append(nxt)
                if extend(path):
                    return True
                path.pop()
        return False

    return any(extend([c]) for c in occ)


def _all(pred: GoalPredicate, board: Board, occ: Occupancy) -> bool:
    return all(satisfied(p, board, occ) for p in pred.parts)


def _any(pred: GoalPredicate, board: Board, occ: Occupancy) -> bool:
    return any(satisfied(p, board, occ) for p in pred.parts)


EVALUATORS: Mapping[str, Evaluator] = {
    "zones_covered": _zones_covered,
    "bridge_pairs": _bridge_pairs,
    "connected_cells": _connected_cells,
    "cells_in_one_zone": _cells_in_one_zone,
    "stack_on_cell": _stack_on_cell,
    "citizen_types_covered": _citizen_types_covered,
    "fief_line": _fief_line,
    "all": _all,
    "any": _any,
}


def satisfied(pred: GoalPredicate, board: Board, occupancy: Occupancy) -> bool:
    """Whether a player whose potions lie on ``board`` as ``occupancy`` (cell → count > 0) meets ``pred``."""
    return EVALUATORS[pred.kind](pred, board, occupancy)


Check = Callable[[Occupancy], bool]


def checker(pred: GoalPredicate, board: Board) -> Check:
    """``occupancy -> satisfied(pred, board, occupancy)`` with the board's tables looked up once: the engine
    checks the goals of a game against the same boards again and again."""
    kind, need = pred.kind, pred.min
    if kind == "zones_covered":
        tile_of = {c.id: c.tile for c in board.cells}.__getitem__
        return lambda occ: len(occ) >= need and len(set(map(tile_of, occ))) >= need
    if kind == "bridge_pairs":
        bridges = board.bridges

        def pairs(occ: Occupancy) -> bool:
            if need <= 0:
                return True
            found = 0
            for a, b in bridges:
                if a in occ and b in occ:
                    found += 1
                    if found >= need:
                        return True
            return False

        return pairs
    if kind == "connected_cells":
        joined = board.joined_by(tuple(pred.via))

        def connected(occ: Occupancy) -> bool:
            left = len(occ)  # occupied cells in no group found so far
            if left < need:
                return False
            if need <= 1:
                return left > 0
            seen: set[str] = set()
            for start in occ:
                if start in seen:
                    continue
                if left < need:  # the cells left cannot make a group large enough
                    return False
                stack, size = [start], 1
                seen.add(start)
                while stack:
                    for nxt in joined[stack.pop()]:
                        if nxt in occ and nxt not in seen:
                            size += 1
                            if size >= need:
                                return True
                            seen.add(nxt)
                            stack.append(nxt)
                left -= size
            return False

        return connected
    if kind == "cells_in_one_zone":
        tile_of = {c.id: c.tile for c in board.cells}

        def in_one_zone(occ: Occupancy) -> bool:
            if len(occ) < need:
                return False
            if need <= 0:
                return True
            per_tile: dict[str, int] = {}
            for c in occ:
                tile = tile_of[c]
                count = per_tile[tile] = per_tile.get(tile, 0) + 1
                if count >= need:
                    return True
            return False

        return in_one_zone
    if kind == "stack_on_cell":
        return lambda occ: (max(occ.values()) if occ else 0) >= need
    if kind in ("all", "any"):
        parts = tuple(checker(part, board) for part in pred.parts)
        if kind == "all":
            def every(occ: Occupancy) -> bool:
                for part in parts:
                    if not part(occ):
                        return False
                return True

            return every

        def some(occ: Occupancy) -> bool:
            for part in parts:
                if part(occ):
                    return True
            return False

        return some
    return lambda occ: satisfied(pred, board, occ)


OneMore = Callable[[str], bool]
Prepare = Callable[[Occupancy], OneMore]


def one_more(pred: GoalPredicate, board: Board) -> Prepare:
    """``occupancy -> (cell -> satisfied(pred, board, occupancy with one more potion on cell))``: what the
    occupancy alone decides is worked out once, then each cell is asked cheaply (a bot weighing every cell a
    winner may land on). The same answers as :func:`checker` of the grown occupancy."""
    kind, need = pred.kind, pred.min
    if kind == "zones_covered":
        tile_of = {c.id: c.tile for c in board.cells}

        def zones(occ: Occupancy) -> OneMore:
            covered = {tile_of[c] for c in occ}
            n, z = len(occ), len(covered)
            return lambda cell: (n + (cell not in occ) >= need
                                 and z + (tile_of[cell] not in covered) >= need)

        return zones
    if kind == "bridge_pairs":
        partners: dict[str, list[str]] = {}
        for a, b in board.bridges:  # the other end of every bridge at a cell (a loop: the cell itself, once)
            partners.setdefault(a, []).append(b)
            if b != a:
                partners.setdefault(b, []).append(a)
        bridges = board.bridges

        def pairs(occ: Occupancy) -> OneMore:
            base = sum(1 for a, b in bridges if a in occ and b in occ)

            def grown(cell: str) -> bool:
                if cell in occ:
                    return base >= need
                return base + sum(1 for x in partners.get(cell, ()) if x in occ or x == cell) >= need

            return grown

        return pairs
    if kind == "connected_cells":
        joined = board.joined_by(tuple(pred.via))

        def connected(occ: Occupancy) -> OneMore:
            group: dict[str, int] = {}   # cell -> its group of joined occupied cells
            sizes: list[int] = []
            for start in occ:
                if start in group:
                    continue
                label = len(sizes)
                stack, size = [start], 0
                group[start] = label
                while stack:
                    cell = stack.pop()
                    size += 1
                    for nxt in joined[cell]:
                        if nxt in occ and nxt not in group:
                            group[nxt] = label
                            stack.append(nxt)
                sizes.append(size)
            met = len(occ) >= need and any(size >= need for size in sizes)

            def grown(cell: str) -> bool:
                if met or cell in occ:
                    return met
                return 1 + sum(sizes[g] for g in {group[n] for n in joined[cell] if n in group}) >= need

            return grown

        return connected
    if kind == "cells_in_one_zone":
        tile_of = {c.id: c.tile for c in board.cells}

        def in_one_zone(occ: Occupancy) -> OneMore:
            per_tile: dict[str, int] = {}
            for c in occ:
                per_tile[tile_of[c]] = per_tile.get(tile_of[c], 0) + 1
            n, best = len(occ), max(per_tile.values(), default=0)

            def grown(cell: str) -> bool:
                if cell in occ:
                    return n >= need and best >= need
                return n + 1 >= need and max(best, per_tile.get(tile_of[cell], 0) + 1) >= need

            return grown

        return in_one_zone
    if kind == "stack_on_cell":
        def stack(occ: Occupancy) -> OneMore:
            best = max(occ.values(), default=0)
            return lambda cell: max(best, occ.get(cell, 0) + 1) >= need

        return stack
    if kind in ("all", "any"):
        parts = tuple(one_more(part, board) for part in pred.parts)
        every = kind == "all"

        def combined(occ: Occupancy) -> OneMore:
            asked = [part(occ) for part in parts]
            if every:
                return lambda cell: all(f(cell) for f in asked)
            return lambda cell: any(f(cell) for f in asked)

        return combined
    check = checker(pred, board)

    def fallback(occ: Occupancy) -> OneMore:
        def grown(cell: str) -> bool:
            after = dict(occ)
            after[cell] = after.get(cell, 0) + 1
            return check(after)

        return grown

    return fallback
