"""Reading a built save as a test does: every object (contents included), by tag, its memo."""

from __future__ import annotations

import json


def objects(save: dict) -> list[dict]:
    """Every object of the save, top level first, each followed by what it contains."""
    found = []

    def walk(objs):
        for o in objs:
            found.append(o)
            walk(o.get("ContainedObjects", []))

    walk(save["ObjectStates"])
    return found


def by_tag(save: dict, tag: str) -> list[dict]:
    return [o for o in objects(save) if tag in o.get("Tags", [])]


def memo(o: dict) -> dict:
    return json.loads(o["Memo"])
