"""File names from untrusted text: one safe component on every OS, distinct inputs stay distinct, writes stay put."""

from __future__ import annotations

import os

import pytest

from bridge.errors import InputError
from bridge.safenames import MAX_COMPONENT_BYTES, contained_path, is_safe_token, safe_component


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("../../x", "____x"),
        ("/etc/x", "_etc_x"),
        ("a\\b", "a_b"),
        ("CON", "CON_"),
        ("con.txt", "con_.txt"),
        ("nul ", "nul_"),
        ("LPT1", "LPT1_"),
        ("COMPUTER", "COMPUTER"),
        ("Deck: A/B", "Deck_ A_B"),
        ("Колода зілля", "Колода зілля"),
        (".hidden", "hidden"),
        ("...", "_"),
        ("", "Object"),
        ("a\x1b[31mred\x00", "a_[31mred_"),
        ("\u202egnp.exe", "_gnp.exe"),
        ("lone \ud800 surrogate", "lone _ surrogate"),
    ],
)
def test_names_become_one_safe_component(text, expected):
    assert safe_component(text) == expected


def test_long_names_are_capped_and_stay_distinct():
    first = "x" * 299 + "a"
    second = "x" * 299 + "b"
    cyrillic = "Ж" * 300
    for text in (first, second, cyrillic):
        component = safe_component(text)
        assert len(component.encode("utf-8")) <= MAX_COMPONENT_BYTES
        assert "~" in component
    assert safe_component(first) != safe_component(second)
    assert safe_component(cyrillic).startswith("ЖЖЖ")  # cut between characters, never inside one
    assert safe_component(first) == safe_component(first)  # deterministic


@pytest.mark.parametrize("guid", ["a1b2c3", "-1", "PlayerBagYellow", "Setup_Checker"])
def test_ordinary_guids_are_usable_tokens(guid):
    assert is_safe_token(guid)


@pytest.mark.parametrize("guid", ["", "../../x", "/etc/x", "a\\b", "a.b", "x" * 65, "a\nb", " a", "a:b"])
def test_guids_that_cannot_round_trip_through_a_file_name_are_not_tokens(guid):
    assert not is_safe_token(guid)


def test_contained_path_refuses_anything_that_leaves_the_folder(tmp_path):
    folder = tmp_path / "out"
    folder.mkdir()
    assert contained_path(folder, "Board.abc123.lua") == folder.resolve() / "Board.abc123.lua"
    for bad in ("../x.lua", "/etc/x.lua", "a/b.lua", "a\\b.lua", "..", "", "nul\x00.lua"):
        with pytest.raises(InputError):
            contained_path(folder, bad)


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")
def test_contained_path_refuses_a_link_that_points_outside(tmp_path):
    folder = tmp_path / "out"
    folder.mkdir()
    (tmp_path / "secret.lua").write_text("keep", encoding="utf-8")
    (folder / "Global.-1.lua").symlink_to(tmp_path / "secret.lua")
    with pytest.raises(InputError):
        contained_path(folder, "Global.-1.lua")
