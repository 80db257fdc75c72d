"""The shipped layouts.toml holds every kind the Four Humours renderer draws."""

from __future__ import annotations

from tools.games.four_humours.render import REQUIRED_BOXES, load_four_humours_layouts


def test_the_shipped_layouts_hold_every_kind_the_renderer_draws(repo_root):
    layouts = load_four_humours_layouts(repo_root / "assets" / "four_humours")
    assert set(REQUIRED_BOXES) <= set(layouts.layouts)
    assert layouts.layouts["scene"].width > layouts.layouts["scene"].height  # scene cards are landscape
    assert layouts.string("win", "uk") and layouts.player_colours["Red"]
