"""Places in data and snapshots: an error names exactly where the bad value sits."""

from __future__ import annotations

import pytest

import bridge.errors
from bridge.rules.errors import DataError, SnapshotError
from bridge.rules.reader import At


def test_a_place_below_another_is_spelt_with_its_keys_and_indices():
    scene = At.data("scenes.toml", 'scene "mill"')
    assert scene.field is None
    assert scene.sub("slots").sub(2).sub("humours").field == "slots[2].humours"
    assert At.snapshot().sub(0).sub("hand").field == "[0].hand"
    assert At.snapshot("players").sub(1).field == "players[1]"


def test_data_places_raise_data_errors_and_snapshot_places_snapshot_errors():
    error = At.data("scenes.toml", 'scene "mill"').sub("slots").sub(2).error("a nun has no such humour")
    assert isinstance(error, DataError)
    assert str(error) == 'scenes.toml: scene "mill": slots[2]: a nun has no such humour'
    error = At.snapshot().sub("players").sub(0).sub("bag").error("must be a table")
    assert isinstance(error, SnapshotError) and "players[0].bag" in str(error)



def test_the_data_error_of_the_rules_is_the_one_the_cli_reports():
    """One class under both names: the CLI catches ``bridge.errors.TtsmodError`` and exits with its status."""
    error = At.data("scenes.toml", 'scene "mill"', "title").error("is empty")
    assert bridge.errors.DataError is DataError and isinstance(error, bridge.errors.TtsmodError)
    assert error.exit_code == 2


def test_places_are_values():
    made = At.data("goals.toml", 'goal "g"').sub("text").sub("en")
    spelt = At.data("goals.toml", 'goal "g"', "text.en")
    assert made == spelt and hash(made) == hash(spelt) and {made: 1}[spelt] == 1
    assert made != At.data("goals.toml", 'goal "h"', "text.en")
    assert repr(made) == "At(file='goals.toml', entry='goal \"g\"', field='text.en')"


def test_a_place_nested_far_deeper_than_the_interpreter_recurses_is_still_spelt():
    place = At.snapshot()
    for depth in range(5000):
        place = place.sub(depth % 3)
    assert place.field.count("[") == 5000
    with pytest.raises(SnapshotError):
        raise place.error("too deep")
