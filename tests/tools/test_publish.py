"""Publishing against a real local HTTP server: PUT, retries on 5xx, HEAD verification."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from click.testing import CliRunner

from tools.cli import cli
from tools.publish import PublishError, publish


class Store(BaseHTTPRequestHandler):
    files: dict[str, bytes]
    failures: dict[str, int]  # path → PUTs to answer 503 first
    lie_about_length: bool = False

    def log_message(self, *args):  # keep test output quiet
        pass

    def do_PUT(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        if self.failures.get(self.path, 0) > 0:
            self.failures[self.path] -= 1
            self.send_response(503)
            self.end_headers()
            return
        self.files[self.path] = body
        self.send_response(201)
        self.end_headers()

    def do_HEAD(self):
        if self.path not in self.files:
            self.send_response(404)
            self.end_headers()
            return
        self.send_response(200)
        size = len(self.files[self.path]) + (1 if self.lie_about_length else 0)
        self.send_header("Content-Length", str(size))
        self.end_headers()


@pytest.fixture
def server():
    handler = type("Handler", (Store,), {"files": {}, "failures": {}, "lie_about_length": False})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield handler, f"http://127.0.0.1:{httpd.server_address[1]}/assets"
    httpd.shutdown()
    httpd.server_close()


def make_build(tmp_path: Path, base: str) -> Path:
    out = tmp_path / "build"
    (out / "sheets").mkdir(parents=True)
    (out / "sheets" / "scenes-0-abc.jpg").write_bytes(b"sheet-0" * 100)
    (out / "sheets" / "back-def.jpg").write_bytes(b"back")
    (out / "sheets" / "stale-old.jpg").write_bytes(b"old, not referenced")
    save = {"SaveName": "X", "ObjectStates": [{"CustomDeck": {"1": {
        "FaceURL": f"{base}/scenes-0-abc.jpg", "BackURL": f"{base}/back-def.jpg"}}}]}
    (out / "Game.json").write_text(json.dumps(save), encoding="utf-8")
    (out / "Game.png").write_bytes(b"thumb")
    return out


def test_publish_uploads_referenced_files_and_verifies(server, tmp_path):
    handler, base = server
    result = publish(make_build(tmp_path, base), base, sleep=lambda s: None)
    assert set(handler.files) == {"/assets/scenes-0-abc.jpg", "/assets/back-def.jpg", "/assets/Game.png"}
    assert handler.files["/assets/scenes-0-abc.jpg"] == b"sheet-0" * 100
    assert [u.url for u in result.uploaded][-1] == f"{base}/Game.png"
    assert not result.save_uses_local_urls


def test_publish_retries_server_errors_with_backoff(server, tmp_path):
    handler, base = server
    handler.failures["/assets/back-def.jpg"] = 2
    waits: list[float] = []
    result = publish(make_build(tmp_path, base), base, retries=3, backoff=0.1, sleep=waits.append)
    back = next(u for u in result.uploaded if u.file.name == "back-def.jpg")
    assert back.attempts == 3
    assert waits == [0.1, 0.2]


def test_publish_gives_up_after_the_retries(server, tmp_path):
    handler, base = server
    handler.failures["/assets/back-def.jpg"] = 5
    with pytest.raises(PublishError, match="back-def.jpg: upload .* failed after 3 attempts"):
        publish(make_build(tmp_path, base), base, retries=2, sleep=lambda s: None)


def test_publish_detects_a_wrong_content_length(server, tmp_path):
    handler, base = server
    handler.lie_about_length = True
    with pytest.raises(PublishError, match="Content-Length"):
        publish(make_build(tmp_path, base), base, sleep=lambda s: None)


def test_cli_publish(server, tmp_path):
    handler, base = server
    build = make_build(tmp_path, base)
    result = CliRunner().invoke(cli, ["publish", str(build), "--to", base])
    assert result.exit_code == 0, result.output
    assert "3 file(s) published" in result.output
    result = CliRunner().invoke(cli, ["publish", str(build), "--to", "ftp://nope"])
    assert result.exit_code == 2


def sheets_folder(tmp_path: Path, *extra: str) -> Path:
    """A folder as ``ttsmod sheets`` writes it: sheets and back beside the deck's JSON and ``.ttsmod-sheets.json``."""
    from PIL import Image

    tmp_path.mkdir(parents=True, exist_ok=True)
    faces = []
    for i in range(3):
        faces.append(str(tmp_path / f"face{i}.png"))
        Image.new("RGB", (50, 70), (i * 40, 90, 160)).save(faces[-1])
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["sheets", *faces, "--out", str(out), "--name", "Cards", *extra])
    assert result.exit_code == 0, result.output
    assert (out / ".ttsmod-sheets.json").is_file()
    return out


def test_a_sheets_folder_is_published_from_beside_its_json(server, tmp_path):
    """Issue #28: the sheets' manifest counted as a second save, and the images were looked for in sheets/."""
    handler, base = server
    out = sheets_folder(tmp_path)
    result = publish(out, base, sleep=lambda s: None, check_urls=False)
    saved = json.loads((out / "Cards.json").read_text(encoding="utf-8"))
    names = {url.rsplit("/", 1)[-1] for entry in saved["ObjectStates"][0]["CustomDeck"].values()
             for url in (entry["FaceURL"], entry["BackURL"])}
    assert len(names) == 2   # one sheet and the back
    assert set(handler.files) == {f"/assets/{name}" for name in names}
    assert result.save_uses_local_urls
    # with its file:/// URLs the deck is refused, and the advice names the command that wrote it
    refused = CliRunner().invoke(cli, ["publish", str(out), "--to", base])
    assert refused.exit_code == 2
    assert "run ttsmod sheets again with --asset-base-url" in refused.output
    assert "more than one save" not in refused.output


def test_the_sheets_manifest_name_is_the_one_sheets_writes():
    from tools.publish import SHEETS_MANIFEST
    from tools.sheets import MANIFEST_NAME

    assert SHEETS_MANIFEST == MANIFEST_NAME


def test_check_advice_on_a_sheets_deck_works_asset_base_url_then_publish(server, tmp_path):
    """What ``check`` advises for a ``sheets`` deck's file:/// URLs (host the files with ttsmod publish, pass
    --asset-base-url) can be followed: the deck gets hosted URLs, publish uploads them, check is then quiet."""
    handler, base = server
    local = sheets_folder(tmp_path / "local")
    advice = CliRunner().invoke(cli, ["check", str(local / "Cards.json"), "--json"])
    (finding,) = [f for f in json.loads(advice.stdout)["findings"] if f["code"] == "local-url"]
    assert "ttsmod publish" in finding["message"] and "--asset-base-url" in finding["message"]
    assert "ttsmod sheets" in finding["message"]

    out = sheets_folder(tmp_path, "--asset-base-url", base + "/", "--json")
    saved = json.loads((out / "Cards.json").read_text(encoding="utf-8"))
    urls = {url for entry in saved["ObjectStates"][0]["CustomDeck"].values()
            for url in (entry["FaceURL"], entry["BackURL"])}
    assert len(urls) == 2 and all(url.startswith(base + "/") and "//" not in url[len(base):] for url in urls)
    assert all((out / url.rsplit("/", 1)[-1]).is_file() for url in urls)
    result = CliRunner().invoke(cli, ["publish", str(out), "--to", base, "--json"])
    assert result.exit_code == 0, result.output
    assert {item["url"] for item in json.loads(result.stdout)["uploaded"]} == urls
    assert {base.rsplit("/", 1)[0] + path for path in handler.files} == urls
    checked = CliRunner().invoke(cli, ["check", str(out / "Cards.json"), "--json"])
    assert checked.exit_code == 0, checked.output
    assert json.loads(checked.stdout)["findings"] == []
