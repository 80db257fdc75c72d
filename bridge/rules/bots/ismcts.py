"""Single-observer Information-Set Monte Carlo Tree Search (Cowling, Powley and Whitehouse, 2012), written once
over the shared game interface (:mod:`bridge.rules.game`).

The searching seat sees only what it may know. Each iteration:

1. **Determinize**: a world consistent with the seat's view is sampled with the game's sampler
   (:func:`bridge.rules.game.determinize`: hidden hands, bags, piles and face-down pieces dealt anew, the chance
   stream reseeded), seeded from the bot's own random stream.
2. **Select**: from the root (the seat's information set), while every action legal in this world already has a
   child, descend to the child with the best UCB1 score, where the count under the logarithm is the child's
   *availability* (how often it was legal when its parent was visited), not the parent's visits: actions that
   exist only in some worlds are not starved.
3. **Expand** one action legal in this world that has no child yet (drawn from the bot's stream).
4. **Play out** to the end with a policy (the game's heuristic, or random): every seat plays it.
5. **Backpropagate**: every node on the path gains the reward of the seat that chose its action: 1 for a win,
   ``1/k`` for a win shared by ``k`` seats, 0 for a loss.

The move played is the root's most visited action. A playout policy with a ``shortlist(state, legal)`` (the
moves it rates worth considering) keeps the root to those, so a small budget is not spread over moves the
game's own rules of thumb already rule out; the rest of the tree keeps every legal action. Nodes are keyed by
action value, so an opponent's node is shared by every world where that action was legal (the "single
observer" tree: one tree, all seats in it).

Pure: standard library and ``bridge.rules`` only; every random draw comes from the bot's own
:class:`SeededRandom`, so the same seed and the same view give the same move.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

from bridge.rules.game import Game, Policy, determinize, own_actions, random_policy, trusted_apply
from bridge.rules.random import SeededRandom

EXPLORATION = 0.7
"""UCB1's exploration constant for rewards in [0, 1] (√2 / 2: Cowling et al. use 0.7)."""

MAX_PLAYOUT_ACTIONS = 5_000
"""A playout longer than this is scored as a draw (real games take a few hundred actions)."""


class Node:
    """One action's node: who chose it, its visits, availability and summed reward (for that seat)."""

    __slots__ = ("player", "visits", "available", "reward", "children")

    def __init__(self, player: int) -> None:
        self.player = player
        self.visits = 0
        self.available = 0
        self.reward = 0.0
        self.children: dict[Any, Node] = {}


def rewards(state: Any, players: int) -> list[float]:
    """Each seat's reward for a finished game: 1 for a win, 1/k for a win shared by k seats, 0 for a loss."""
    outcome = state.outcome()
    if outcome is None or not outcome.winners:
        return [1.0 / players] * players
    share = 1.0 / len(outcome.winners)
    out = [0.0] * players
    for seat in outcome.winners:
        out[seat] = share
    return out


class Ismcts:
    """A seat's search: ``choose(state)`` returns the action it plays for ``state.to_move()``.

    ``iterations`` bounds the work per move (the level), ``policy`` plays the playouts (the game's heuristic by
    default through :func:`bridge.rules.bots.make_bot`), ``rng`` is the bot's own stream (it advances with every move).
    """

    def __init__(self, game: Game, players: int, *, iterations: int, rng: SeededRandom,
                 policy: Policy = random_policy, exploration: float = EXPLORATION) -> None:
        if iterations < 1:
            raise ValueError("a search needs at least one iteration")
        self.game = game
        self.players = players
        self.iterations = iterations
        self.rng = rng
        self.policy = policy
        self.exploration = exploration
        self.last_iterations = 0

    def choose(self, state: Any, legal: Sequence[Any] | None = None) -> Any:
        seat = state.to_move()
        if legal is None:
            legal = own_actions(state.legal_actions(), seat)
        # A policy may name the moves worth searching here (its ``shortlist(state, legal)``): the iterations go to
        # those rather than being spread over moves it knows to be poor. The seat's own actions are the same in
        # every world, so the root keeps to the shortlist in every one.
        shortlist = getattr(self.policy, "shortlist", None)
        candidates = list(legal)
        if shortlist is not None:
            candidates = [a for a in shortlist(state, candidates) if a in candidates] or candidates
        if len(candidates) == 1:
            self.last_iterations = 0
            return candidates[0]
        root = Node(seat)
        allowed = set(candidates) if len(candidates) < len(legal) else None
        for _ in range(self.iterations):
            self._iterate(root, state, seat, allowed)
        self.last_iterations = self.iterations
        # The most visited of the actions legal here (the seat's own actions are the same in every world).
        best = None
        best_key: tuple[int, float] | None = None
        for action in candidates:
            child = root.children.get(action)
            key = (child.visits, child.reward) if child is not None else (-1, 0.0)
            if best_key is None or key > best_key:
                best, best_key = action, key
        return best

    def _iterate(self, root: Node, state: Any, seat: int, allowed: set[Any] | None = None) -> None:
        rng = self.rng
        world = determinize(self.game, state, seat, rng.next_u64())
        apply = trusted_apply(world)
        node = root
        path: list[Node] = []
        c = self.exploration
        # Select while every legal action has a child; expand the first world where one has none.
        while not world.is_over():
            mover = world.to_move()
            legal = own_actions(world.legal_actions(), mover)
            if allowed is not None and node is root:
                legal = [a for a in legal if a in allowed]
            children = node.children
            untried = [a for a in legal if a not in children]
            if untried:
                action = untried[rng.randbelow(len(untried))]
                child = Node(mover)
                children[action] = child
                for a in legal:
                    existing = children.get(a)
                    if existing is not None:
                        existing.available += 1
                apply(action)
                path.append(child)
                break
            best_score = -1.0
            chosen = None
            for a in legal:
                child = children[a]
                child.available += 1
                score = child.reward / child.visits + c * math.sqrt(math.log(child.available) / child.visits)
                if score > best_score:
                    best_score, chosen = score, a
            child = children[chosen]
            apply(chosen)
            path.append(child)
            node = child
        # Play out with the policy.
        policy = self.policy
        steps = 0
        while not world.is_over():
            if steps >= MAX_PLAYOUT_ACTIONS:
                break
            legal = own_actions(world.legal_actions(), world.to_move())
            apply(legal[0] if len(legal) == 1 else policy(world, legal, rng))
            steps += 1
        reward = rewards(world, self.players) if world.is_over() else [1.0 / self.players] * self.players
        for child in path:
            child.visits += 1
            child.reward += reward[child.player]
