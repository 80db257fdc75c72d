"""tools.imageio: the one door for untrusted images (bomb limit, EXIF orientation, 16-bit grey)."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import pytest
from PIL import Image

from bridge.errors import InputError
from tools.imageio import DEFAULT_MAX_PIXELS, ImageTooLargeError, image_size, open_image


def bomb_png(path: Path, width: int = 30000, height: int = 30000) -> Path:
    """A few-hundred-byte PNG whose header claims ``width × height`` (a decompression bomb's shape)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\0" * 64))
                     + chunk(b"IEND", b""))
    return path


def test_a_bomb_is_refused_from_its_header_naming_file_and_size(tmp_path):
    path = bomb_png(tmp_path / "bomb.png")
    with pytest.raises(ImageTooLargeError) as caught:
        open_image(path)
    message = str(caught.value)
    assert str(path) in message and "30000x30000" in message and "900,000,000 pixels" in message
    assert f"{DEFAULT_MAX_PIXELS:,}" in message
    assert isinstance(caught.value, InputError) and caught.value.exit_code == 2
    with pytest.raises(ImageTooLargeError):
        image_size(path)


def test_the_limit_is_the_callers(tmp_path):
    path = tmp_path / "small.png"
    Image.new("RGB", (100, 100), (1, 2, 3)).save(path)
    assert open_image(path, max_pixels=10_000).size == (100, 100)
    with pytest.raises(ImageTooLargeError, match="100x100 = 10,000 pixels, over the limit of 9,999"):
        open_image(path, max_pixels=9_999)


def test_a_limit_above_pillows_own_is_honoured_not_overridden_by_pillow(tmp_path):
    # Pillow refuses more than 2 × Image.MAX_IMAGE_PIXELS (~179 M) by itself; a caller allowing more gets
    # past it (the header is all that is read here), and Pillow's global is left as it was.
    before = Image.MAX_IMAGE_PIXELS
    assert image_size(bomb_png(tmp_path / "big.png"), max_pixels=10**9) == (30000, 30000)
    assert Image.MAX_IMAGE_PIXELS == before


def test_exif_orientation_is_applied(tmp_path):
    # Stored 40 wide × 20 high, left half red; orientation 6 = "rotate 90° clockwise to view".
    stored = Image.new("RGB", (40, 20), (0, 0, 255))
    stored.paste((255, 0, 0), (0, 0, 20, 20))
    exif = Image.Exif()
    exif[0x0112] = 6
    path = tmp_path / "phone.jpg"
    stored.save(path, exif=exif.tobytes(), quality=95)
    shown = open_image(path)
    assert shown.size == (20, 40) == image_size(path)
    top, bottom = shown.convert("RGB").getpixel((10, 5)), shown.convert("RGB").getpixel((10, 35))
    assert top[0] > 200 and top[2] < 60  # the red half is now on top
    assert bottom[2] > 200 and bottom[0] < 60


def test_sixteen_bit_grey_keeps_its_greys(tmp_path):
    stored = Image.new("I;16", (3, 1))
    for x, value in enumerate((0, 32896, 65535)):  # black, mid grey, white
        stored.putpixel((x, 0), value)
    path = tmp_path / "grey16.png"
    stored.save(path)
    image = open_image(path)
    assert image.mode == "L"
    assert [image.getpixel((x, 0)) for x in range(3)] == [0, 128, 255]
    assert image.convert("RGB").getpixel((1, 0)) == (128, 128, 128)  # not white


@pytest.mark.parametrize("content, reason", [
    (None, "no such file"),
    (b"not an image at all", "not a readable image"),
])
def test_unusable_files_are_one_line_input_errors(tmp_path, content, reason):
    path = tmp_path / "face.png"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(InputError, match=reason) as caught:
        open_image(path)
    assert str(caught.value).startswith(str(path)) and "\n" not in str(caught.value)


def test_a_truncated_image_is_an_input_error(tmp_path):
    path = tmp_path / "cut.png"
    Image.effect_noise((200, 200), 50).save(path)
    path.write_bytes(path.read_bytes()[:300])
    with pytest.raises(InputError, match="not a readable image"):
        open_image(path)


def test_a_folder_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="is a folder"):
        open_image(tmp_path)
