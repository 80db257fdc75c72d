"""Benchmark: ``unpack`` of a deck of same-named cards that share one GUID, against a deck of as many cards with
names and GUIDs of their own, in one process.

    .venv/bin/python benchmarks/unpack_duplicates.py [--cards 16000] [--runs 1]

TTS gives the cards of a new deck one GUID, so every card's folder name is the same ``Card.<guid>`` and unpack
numbers them ``~2``, ``~3``…; that numbering once took time growing with the square of the deck (16,000 cards:
311 s). Target: the deck of duplicates ≤ 1.5 × the deck of distinct names (the same files, the same bytes to
write). Prints the CPU time of each (best of ``--runs``; unpack syncs every file to disk, so its wall time is
mostly waiting for the disk, and on a shared machine varies more than the work does), their ratio, the CPU time
of half the deck of duplicates (a linear unpack takes about half as long), the wall times, and the peak RSS of
this process. Nothing here asserts speed.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bridge.luaproject.savetree import unpack  # noqa: E402


def peak_rss_mib() -> float:
    kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux, bytes on macOS
    return kib / (1024 * 1024) if sys.platform == "darwin" else kib / 1024


def deck_save(cards: int, *, duplicates: bool) -> dict:
    """A save holding one deck of ``cards`` cards: all named "Card" with the GUID ``c0ffee`` (``duplicates``),
    or each with a name and GUID of its own."""
    def card(index: int) -> dict:
        name, guid = ("Card", "c0ffee") if duplicates else (f"Card {index}", f"{index:06x}")
        return {"Name": "Card", "Nickname": name, "GUID": guid, "CardID": 100 + index,
                "Transform": {"posX": 0.0, "posY": 1.0, "posZ": 0.0}}

    deck = {"Name": "Deck", "Nickname": "Deck", "GUID": "d3c000", "DeckIDs": [100 + i for i in range(cards)],
            "ContainedObjects": [card(i) for i in range(cards)]}
    return {"SaveName": "Duplicates", "ObjectStates": [deck]}


def unpack_seconds(save: dict, work: Path, runs: int) -> tuple[float, float]:
    """Best CPU time and best wall time of ``runs`` unpacks of ``save`` into a new folder each (the save file
    written once)."""
    path = work / f"save-{len(list(work.iterdir()))}.json"
    path.write_text(json.dumps(save), encoding="utf-8")
    cpu = wall = float("inf")
    for run in range(runs):
        started, started_cpu = time.perf_counter(), time.process_time()
        unpack(path, work / f"{path.stem}-tree-{run}")
        cpu = min(cpu, time.process_time() - started_cpu)
        wall = min(wall, time.perf_counter() - started)
    return cpu, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cards", type=int, default=16000)
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ttsmod-unpack-bench-") as tmp:
        work = Path(tmp)
        distinct = unpack_seconds(deck_save(args.cards, duplicates=False), work, args.runs)
        same = unpack_seconds(deck_save(args.cards, duplicates=True), work, args.runs)
        half = unpack_seconds(deck_save(args.cards // 2, duplicates=True), work, args.runs)
    ratio = same[0] / distinct[0]
    verdict = "meets" if ratio <= 1.5 else "misses"
    print(f"cards                    {args.cards:8d}")
    print(f"distinct names           {distinct[0]:8.2f} s CPU  (the baseline)")
    print(f"one name, one GUID       {same[0]:8.2f} s CPU")
    print(f"ratio                    {ratio:8.2f}        ({verdict} the ≤ 1.5 target)")
    print(f"half the duplicates      {half[0]:8.2f} s CPU  (the whole deck takes {same[0] / half[0]:.2f} × as "
          "long: 2 is linear, 4 quadratic)")
    print(f"wall times               {distinct[1]:8.2f} s, {same[1]:.2f} s, {half[1]:.2f} s (the same three)")
    print(f"peak RSS                 {peak_rss_mib():8.1f} MiB (this process)")


if __name__ == "__main__":
    main()
