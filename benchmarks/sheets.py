"""Benchmark: pack 138 faces of 409 × 585 into TTS sheets with ``pack_faces`` vs ImageMagick ``montage``.

Both pack the same PNG faces from disk into two 10 × 7 JPEG sheets (69 faces + the hidden face each), in the
same run.  Target: ``pack_faces`` ≤ 0.25 × montage's wall time.  Prints wall times, the ratio and peak RSS.

Setup (not for CI): if no real ``montage`` is on PATH, the script installs Debian's ``imagemagick`` with
``apt-get install -y imagemagick`` (needs root).  Run: ``.venv/bin/python benchmarks/sheets.py``.
"""

from __future__ import annotations

import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from PIL import Image, ImageDraw  # noqa: E402

from tools.sheets import pack_faces  # noqa: E402

COUNT = 138
SIZE = (409, 585)


def real_montage() -> str | None:
    """The path of ImageMagick's montage, or None (a stand-in ``convert`` is no reason to trust PATH)."""
    path = shutil.which("montage")
    if path is None:
        return None
    try:
        out = subprocess.run([path, "-version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return path if "ImageMagick" in out else None


def ensure_montage() -> str:
    path = real_montage()
    if path is None:
        print("installing imagemagick (apt-get) ...", flush=True)
        subprocess.run(["apt-get", "install", "-y", "-q", "imagemagick"], check=True,
                       stdout=subprocess.DEVNULL)
        path = real_montage()
    if path is None:
        sys.exit("montage (ImageMagick) is not available")
    return path


def make_faces(folder: Path) -> list[Path]:
    """138 distinct, deterministic faces: a colour per card, its number and a few shapes."""
    paths = []
    for i in range(COUNT):
        image = Image.new("RGB", SIZE, ((i * 53) % 256, (i * 97) % 256, (i * 151) % 256))
        draw = ImageDraw.Draw(image)
        draw.rectangle((20, 20, SIZE[0] - 21, SIZE[1] - 21), outline=(255, 255, 255), width=8)
        draw.ellipse((60 + i % 50, 120, 340, 400 + i % 80), fill=((i * 29) % 256, 40, 200))
        draw.text((40, 40), f"card {i + 1}", fill=(0, 0, 0))
        path = folder / f"face{i:03d}.png"
        image.save(path)
        paths.append(path)
    return paths


def run_montage(montage: str, faces: list[Path], hidden: Path, out: Path) -> None:
    for n, start in enumerate(range(0, COUNT, 69)):
        group = [str(p) for p in faces[start : start + 69]]
        subprocess.run([montage, *group, str(hidden), "-tile", "10x7", "-geometry", f"{SIZE[0]}x{SIZE[1]}!+0+0",
                        "-depth", "8", "-quality", "90", str(out / f"montage-{n}.jpg")], check=True)


def main() -> None:
    montage = ensure_montage()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        faces = make_faces(root)
        back = root / "back.png"
        Image.new("RGB", SIZE, (30, 30, 60)).save(back)
        (root / "ours").mkdir()
        (root / "montage").mkdir()

        start = time.perf_counter()
        deck = pack_faces(faces, root / "ours", "bench", back=back, fmt="jpg", quality=90)
        ours = time.perf_counter() - start
        ours_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

        start = time.perf_counter()
        run_montage(montage, faces, back, root / "montage")
        theirs = time.perf_counter() - start
        child_rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss

        with Image.open(deck.sheets[0].path) as a, Image.open(root / "montage" / "montage-0.jpg") as b:
            sizes = f"ours {a.size}, montage {b.size}"
    print(f"faces: {COUNT} of {SIZE[0]}x{SIZE[1]} -> {len(deck.sheets)} sheets ({sizes})")
    print(f"pack_faces: {ours:.2f} s   montage: {theirs:.2f} s   ratio: {ours / theirs:.3f} (target <= 0.25)")
    print(f"peak RSS: this process {ours_rss / 1024:.0f} MiB, montage {child_rss / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
