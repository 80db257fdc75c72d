"""One card resolved against the Principles of Personality (FH-5.5) and against per-card lists (FH-5.6)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bridge.rules.four_humours.records import HUMOURS, Count, Outcome
from bridge.rules.four_humours.resolution import SlotPotion, resolve_card

from .conftest import S0_LIST


def lay(*potions):
    return [SlotPotion(i, owner, humour) for i, (owner, humour) in enumerate(potions)]


def test_the_default_list_is_the_principles_of_personality(sample):
    steps = [(s.humour, str(s.count), s.outcome.value) for s in sample.rules.default_resolution]
    assert steps == [
        ("choleric", "==1", "win"), ("choleric", ">=2", "discard"),
        ("sanguine", ">=2", "win"), ("sanguine", "==1", "discard"),
        ("melancholic", "==2", "win"), ("melancholic", ">=3", "discard"), ("melancholic", "==1", "sneak"),
        ("phlegmatic", ">=1", "win"),
    ]


def test_count_zero_matches_no_step():
    assert not Count("lte", 2).matches(0)
    assert not Count("gte", 0).matches(0)


def test_an_empty_card_has_no_winner(sample):
    result = resolve_card([], sample.rules.default_resolution)
    assert result.winners == result.sneakers == result.discards == ()


def test_a_lone_phlegmatic_wins_after_everything_else_fell(sample):
    result = resolve_card(lay((0, "choleric"), (1, "choleric"), (2, "phlegmatic")), sample.rules.default_resolution)
    assert [p.owner for p in result.winners] == [2]


def test_s0_list_with_two_sanguines_ends_at_step_two():
    result = resolve_card(lay((0, "sanguine"), (1, "sanguine"), (2, "phlegmatic")), S0_LIST)
    assert [p.owner for p in result.winners] == [0, 1]
    assert [p.owner for p in result.discards] == [2]


def test_a_sneak_can_be_made_to_stop_resolution(sample):
    potions = lay((0, "melancholic"), (1, "phlegmatic"))
    assert [p.owner for p in resolve_card(potions, sample.rules.default_resolution).winners] == [1]
    stopped = resolve_card(potions, sample.rules.default_resolution, sneak_stops=True)
    assert stopped.winners == () and [p.owner for p in stopped.discards] == [1]


cards = st.lists(st.tuples(st.integers(0, 5), st.sampled_from(HUMOURS)), max_size=8)


@given(cards)
def test_every_potion_ends_in_exactly_one_group(sample, potions):
    result = resolve_card(lay(*potions), sample.rules.default_resolution)
    groups = result.winners + result.sneakers + result.discards
    assert sorted(p.slot for p in groups) == list(range(len(potions)))
    assert len({p.humour for p in result.winners}) <= 1  # one step wins, for one humour
    if result.winners:
        assert result.steps[-1].outcome is Outcome.WIN
