"""End to end: `ttsmod build four-humours` → the headless table → a real `ttsmod bridge` over sockets."""

from __future__ import annotations

import pytest

from tests.e2e.harness import Bridge, build, free_port, table_for, with_hand_zones


@pytest.fixture(scope="module")
def built(tmp_path_factory, repo_root):
    return build(repo_root, tmp_path_factory.mktemp("build"))


@pytest.fixture
def live(built, repo_root):
    port = free_port()
    table = table_for(with_hand_zones(built, ["White", "Red"]), port)
    bridge = Bridge(repo_root, port, table.endpoint.port)
    bridge.start()
    try:
        yield table, bridge
    finally:
        bridge.stop()
        table.close()


def _connected(table):
    return "bridge connected" in table.ui_value("bridgeStatus")


def test_hello_setup_and_bridge_restart(live):
    table, bridge = live
    table.seat("White", "Red")
    table.boot()
    assert table.run_until(lambda: _connected(table), max_seconds=30, real_pause=0.05)

    table.click("setupButton", "White")
    assert table.run_until(lambda: table.turns["turn_color"] in ("White", "Red"), max_seconds=5)
    # four goals and four scenes lie on their spots, each player holds four potions of their own colour
    assert len(table.with_tag("fh-goal")) == 4 and len(table.with_tag("fh-scene")) == 4
    for colour in ("White", "Red"):
        hand = table.hand(colour)
        assert len(hand) == 4 and all(p.memo_json()["owner"] == colour for p in hand)
        assert len(table.find("fh-bag", owner=colour)[0].contents) == 16
    assert not table.ui_visible("setupButton")
    starter = table.turns["turn_color"]
    assert table.ui_visible(f"pass_{starter}", starter)
    assert any(f"Round 1: {starter} begins." == m for m, _ in table.broadcasts)

    # the bridge goes away: after the request timeout the host sees how to start it, nothing else changes
    bridge.stop()
    hands_before = {c: sorted(p.guid for p in table.hand(c)) for c in ("White", "Red")}
    table.click(f"pass_{starter}", starter)
    assert table.run_until(lambda: "ttsmod bridge" in table.ui_value("bridgeStatus"), max_seconds=30)
    assert {c: sorted(p.guid for p in table.hand(c)) for c in ("White", "Red")} == hands_before
    assert table.turns["turn_color"] == starter

    # it comes back: the mod's periodic hello finds it again
    bridge.start()
    assert table.run_until(lambda: _connected(table), max_seconds=60, real_pause=0.05)
