"""What every hand-made test table shares (``tests/games/<game>/mod/handmade.py``): objects written as a save's
``ObjectStates`` entries, the game's Global script bundled with a stand-in for its generated modules, the save
loaded on the headless table with players seated, and answers to the mod's requests given as the bridge would."""

from __future__ import annotations

import json
from typing import Any

from tests.mod.luasrc import MOD, bundle
from tools.headless import Fidelity, Table
from bridge.luaproject.scriptfolder import expand_includes


def obj(guid: str, name: str, tags: list[str], memo: dict | None = None, pos=(0, 1, 0), rot=(0, 0, 0),
        scale=(1, 1, 1), *, ttsmod: bool = True, **extra: Any) -> dict[str, Any]:
    """An ``ObjectStates`` entry tagged ``tags`` (and first ``ttsmod`` unless told), with ``memo`` as its JSON memo
    and ``extra`` keys."""
    d = {"GUID": guid, "Name": name, "Tags": ["ttsmod", *tags] if ttsmod else list(tags),
         "Transform": {"posX": pos[0], "posY": pos[1], "posZ": pos[2], "rotX": rot[0], "rotY": rot[1],
                       "rotZ": rot[2], "scaleX": scale[0], "scaleY": scale[1], "scaleZ": scale[2]}}
    if memo is not None:
        d["Memo"] = json.dumps(memo)
    d.update(extra)
    return d


def generated_game(game: str, data: dict[str, Any], mode: str = "standard") -> str:
    """The source of a ``generated.game`` module carrying ``data``."""
    return f"return {{ game = {json.dumps(game)}, mode = {json.dumps(mode)}, data = {json.dumps(json.dumps(data))} }}"


def generated_ttsmod(game: str, mode: str = "standard") -> str:
    """The source of a ``generated.ttsmod`` module for ``game``."""
    return (f'MOD_VERSION = "0.0.0-test"\nMOD_GAME = "{game}"\n'
            f'return {{ version = "0.0.0-test", protocol = 1, game = "{game}", mode = "{mode}" }}')


def root(mod: str) -> str:
    """The game's global.lua with two test hooks: ``test_snapshot()`` (its table map's snapshot of the ledger)
    and ``test_ledger()``. The ledger is the script's own ``ledger`` or, for a game on lib.play, the library's."""
    return (MOD / mod / "global.lua").read_text(encoding="utf-8") + f"""
local function test_the_ledger() return ledger or require("lib.play").ledger() end
function test_snapshot() return JSON.encode(require("{mod}.tablemap").snapshot(test_the_ledger())) end
function test_ledger() return JSON.encode(test_the_ledger()) end
"""


def save(mod: str, game: str, data: dict[str, Any], objects: list[dict[str, Any]],
         script_state: str = "") -> dict[str, Any]:
    """A save of ``objects`` whose Global is the game's mod, with ``data`` as its generated game data."""
    return {"LuaScript": bundle(root(mod), {"generated.game": generated_game(game, data),
                                            "generated.ttsmod": generated_ttsmod(game)}),
            "LuaScriptState": script_state,
            # the build expands <Include src> (the shared seat buttons of lib/bots.xml); so does this save
            "XmlUI": expand_includes((MOD / mod / "ui.xml").read_text(encoding="utf-8"), [MOD / mod, MOD], "ui.xml"),
            "ObjectStates": objects}


def table(save_data: dict[str, Any], colours: list[str], *, seed: int = 1, fidelity: Fidelity | None = None,
          **kwargs: Any) -> Table:
    """``save_data`` on a headless table (faithful unless told), no bridge, ``colours`` seated, booted."""
    t = Table.load(save_data, seed=seed, bridge_port=None, listen_port=0,
                   fidelity=fidelity if fidelity is not None else Fidelity.faithful(), **kwargs)
    t.seat(*colours)
    t.boot()
    return t


def answer(t: Table, kind: str, body: dict[str, Any], ok: bool = True) -> dict[str, Any]:
    """Answer the mod's last request of ``kind`` as the bridge would; returns that request."""
    request = [m for m in t.sent_custom if m["type"] == kind][-1]
    reply: dict[str, Any] = {"ttsmod": 1, "re": request["id"], "type": kind, "ok": ok}
    if ok:
        reply["body"] = body
    else:
        reply["error"] = body
    t.fire("onExternalMessage", reply)
    return request


def connect(t: Table) -> None:
    """Answer the mod's hello."""
    answer(t, "hello", {"bridge": "1.0"})
