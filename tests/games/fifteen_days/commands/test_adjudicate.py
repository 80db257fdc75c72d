"""``ttsmod adjudicate fifteen-days FILE`` as a referee uses it from the docs alone: the documented setup body is
the default request, and a snapshot copied from a TTS log (whole numbers as floats, empty tables as ``[]``, the
bookkeeping the mod leaves out) gets the bridge's answer (docs/games/fifteen_days/protocol.md)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from bridge.catalog import load_game
from bridge.rules.fifteen_days.game import FIFTEEN_DAYS
from tools.cli import cli


def adjudicate(tmp_path, document, *options):
    path = tmp_path / "request.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    done = CliRunner().invoke(cli, ["adjudicate", "fifteen-days", str(path), *options])
    return done.exit_code, done.output


def test_the_documented_setup_body_is_the_default_request(tmp_path):
    code, out = adjudicate(tmp_path, {"players": 2, "seed": 7})
    assert code == 0, out
    assert json.loads(out) == FIFTEEN_DAYS.handle(load_game("fifteen-days"), "setup", {"players": 2, "seed": 7})


def test_a_snapshot_as_lua_wrote_it_is_scored_as_the_engines_own(tmp_path):
    data = load_game("fifteen-days")
    snapshot = FIFTEEN_DAYS.handle(data, "setup", {"players": 2, "seed": 7})["snapshot"]
    from_the_log = {**snapshot, "animals": [], "end": [], "over": False, "pending": False,
                    "players": [{**p, "feathers": float(p["feathers"])} for p in snapshot["players"]]}
    for key in ("turn", "actions_left", "feathers_out", "rng"):
        del from_the_log[key]
    code, out = adjudicate(tmp_path, from_the_log, "--type", "score")
    assert code == 0, out
    assert json.loads(out) == FIFTEEN_DAYS.handle(data, "score", {"snapshot": snapshot})
    # a pass in text form, while the seat to move has actions to make, is refused naming why
    code, out = adjudicate(tmp_path, {"snapshot": from_the_log, "action": f"pass {snapshot['active']}"},
                           "--type", "legal")
    assert code == 0, out
    assert json.loads(out)["reason"] == "can_act"
