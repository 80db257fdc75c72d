"""The {…} expressions of table.toml (tools/tableexpr.py): what they compute, and what they refuse to read."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from bridge.rules.game import Names
from tools.tableexpr import ExpressionError, Scope, compiled, evaluate, template


@dataclass(frozen=True)
class Record:
    id: str
    title: Names
    slots: tuple[int, ...]


def scope(**names):
    base = {"seats": ["White", "Red", "Blue"], "rules": {"goals": 4},
            "scenes": [Record("mill", Names("Mill", "Млин", "Мельница"), (1, 2, 3))],
            "strings": {"back": {"en": "{who}'s cards", "uk": "Карти: {who}"}}}
    return Scope({**base, **names}, "uk")


def value(text, **names):
    return evaluate(compiled(text), scope(**names))


def test_a_text_that_is_one_expression_keeps_its_value_and_any_other_is_a_text():
    assert value("{rules.goals}") == 4
    assert value("{seats}") == ["White", "Red", "Blue"]
    assert value("{rules.goals > 3}") is True
    assert value("scene-spot:{rules.goals - 1}") == "scene-spot:3"
    assert value("Spot {2.0 * 3}") == "Spot 6"          # a whole number reads as one
    assert value("{{literal}} {seats[1]}") == "{literal} Red"


def test_arithmetic_is_pythons_to_the_last_bit():
    """A table moved from Python keeps its positions byte for byte: the same operations in the same order."""
    for i in range(7):
        expected = -19 + (3.1416 * 1.7 + 0.6 + 0.8) * (i + 1)
        assert value("{-19 + (w * 1.7 + 0.6 + 0.8) * (i + 1)}", w=3.1416, i=i) == expected
        assert value("{-16 + 16 * (i // 2)}", i=i) == -16 + 16 * (i // 2)
        assert value("{-26 if i % 2 == 0 else 26}", i=i) == (-26 if i % 2 == 0 else 26)


def test_records_lists_tables_and_texts_in_several_languages():
    assert value("{scenes[0].id}") == "mill"
    assert value("{scenes[0].title}") == "Млин"                 # the build language's text
    assert value("{len(scenes[0].slots)}") == 3
    assert value("{fill(strings.back, who=scenes[0].title)}") == "Карти: Млин"
    assert value("{[seats[0], max(1, 2)]}") == ["White", 2]
    assert value({"owner": "{seats[2]}", "n": ["{rules.goals}", 1]}) == {"owner": "Blue", "n": [4, 1]}


@pytest.mark.parametrize("text, words", [
    ("{nope}", 'no name "nope" here (names: rules, scenes, seats, strings)'),
    ("{scenes[0].colour}", 'has no field "colour" (fields: id, title, slots)'),
    ("{seats[5]}", "has no item 5"),
    ("{seats['a']}", "numbered"),
    ("{rules.goals + 'x'}", "not a number"),
    ("{'ab' + 3}", "cannot add"),
    ("{rules.goals / 0}", "division by zero"),
    ("{fill(3)}", "fills a text"),
])
def test_an_expression_that_cannot_be_evaluated_says_why(text, words):
    with pytest.raises(ExpressionError) as caught:
        value(text)
    assert words in str(caught.value)


@pytest.mark.parametrize("text, words", [
    ("{seats.__class__}", "does not start with _"),
    ("{__import__('os')}", "the functions are"),
    ("{__builtins__}", "does not start with _"),
    ("{open('x')}", "the functions are"),
    ("{(lambda: 1)()}", "the functions are"),
    ("{seats[0:2]}", "no slices"),
    ("{2 ** 99999}", "not one a table uses"),
    ("{~3}", "the operator Invert is not one a table uses"),     # not read as +3
    ("{[x for x in seats]}", "not part of a table expression"),
    ("{len(*seats)}", "no * or **"),
    ("{", 'no "}" after it'),
    ("}", 'no "{" before it'),
    ("{}", "empty"),
    ("{1 +}", "not an expression"),
    ("{" + "1+" * 300 + "1}", "longer than 400"),
])
def test_only_the_small_safe_part_of_the_syntax_is_read(text, words):
    with pytest.raises(ExpressionError) as caught:
        template(text)
    assert words in str(caught.value)


def test_no_expression_grows_a_value_without_bound():
    with pytest.raises(ExpressionError) as caught:
        value("{'ab' * 100000000}")
    assert "not a number" in str(caught.value)
    big = "x" * 60_000
    with pytest.raises(ExpressionError) as caught:
        value("{t + t}", t=big)
    assert "longer than" in str(caught.value)
