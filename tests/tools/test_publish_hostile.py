"""publish against slow or wrong servers, and builds that would not load what it publishes."""

from __future__ import annotations

import json
import socket
import threading
import time

import click
import pytest
from click.testing import CliRunner

from tools.cli import cli
from bridge.errors import InputError
from tools.publish import PublishError, publish

from tests.tools.test_publish import make_build, server  # noqa: F401 - the fixture


@pytest.fixture
def trickler():
    """A server on 127.0.0.1 that reads the request, then answers one byte every 0.4 s for about 20 s.

    Yields its base URL and a list that gets one entry per connection the client hung up on before the slow
    answer was complete.
    """
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()
    cut_off: list[int] = []
    answer = b"HTTP/1.1 200 OK\r\nX-Slow: " + b"a" * 30

    def serve_one(conn: socket.socket) -> None:
        with conn:
            conn.settimeout(0.2)
            try:
                while conn.recv(65536):
                    pass
            except OSError:
                pass  # the request has been read (the client now waits for the answer)
            for sent, byte in enumerate(answer):
                if stop.wait(0.4):
                    return
                try:
                    conn.sendall(bytes([byte]))
                except OSError:
                    cut_off.append(sent)  # the client hung up mid-answer
                    return

    def accept_loop() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            threading.Thread(target=serve_one, args=(conn,), daemon=True).start()

    thread = threading.Thread(target=accept_loop, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}/assets", cut_off
    stop.set()
    thread.join()
    listener.close()


def test_a_trickling_server_is_cut_off_at_the_deadline(trickler, tmp_path):
    base, cut_off = trickler
    build = make_build(tmp_path, base)
    with pytest.raises(PublishError) as caught:
        publish(build, base, retries=1, timeout=1.5, connect_timeout=1.0, sleep=lambda s: None)
    assert "failed after 2 attempts (no complete answer within 1.5 s)" in str(caught.value)
    # Both attempts hung up while the server was still trickling (before the fix each waited for all of it).
    deadline = time.monotonic() + 10
    while len(cut_off) < 2 and time.monotonic() < deadline:  # the server notices on its next byte
        time.sleep(0.1)
    assert len(cut_off) == 2


def test_cli_timeout_option(trickler, tmp_path):
    base, _ = trickler
    result = CliRunner().invoke(cli, ["publish", str(make_build(tmp_path, base)), "--to", base, "--retries", "0",
                                      "--timeout", "1"])
    assert result.exit_code == 1
    assert result.output.strip().endswith("failed after 1 attempts (no complete answer within 1 s)")


def test_a_file_url_build_is_refused_before_anything_is_sent(server, tmp_path):  # noqa: F811
    handler, base = server
    build = make_build(tmp_path, "file:///home/me/build/sheets")
    with pytest.raises(InputError) as caught:
        publish(build, base, sleep=lambda s: None)
    message = str(caught.value)
    assert "file:///home/me/build/sheets/back-def.jpg" in message and "(and 1 more)" in message
    assert f"rebuild with --asset-base-url {base} first" in message
    assert handler.files == {}
    result = CliRunner().invoke(cli, ["publish", str(build), "--to", base])
    assert result.exit_code == 2 and result.output.startswith("error: ") and len(result.output.splitlines()) == 1


def test_a_build_for_another_url_is_refused_naming_both(server, tmp_path):  # noqa: F811
    handler, base = server
    build = make_build(tmp_path, "https://cdn.example.org/old")
    with pytest.raises(InputError) as caught:
        publish(build, base, sleep=lambda s: None)
    assert str(caught.value) == (
        f"{build}: the save loads https://cdn.example.org/old/back-def.jpg (and 1 more), but publishing puts the "
        f"file at {base}/back-def.jpg; rebuild with --asset-base-url {base}, or publish --to the base URL the "
        "build used")
    assert handler.files == {}
    # The same base with a trailing slash is the same place.
    assert len(publish(make_build(tmp_path / "b", base), base + "/", sleep=lambda s: None).uploaded) == 3


def test_json_output_says_what_went_where(server, tmp_path):  # noqa: F811
    handler, base = server
    build = make_build(tmp_path, base)
    result = CliRunner().invoke(cli, ["publish", str(build), "--to", base, "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert payload["to"] == base and payload["save_uses_local_urls"] is False
    assert [(item["url"], item["size"], item["attempts"]) for item in payload["uploaded"]] == [
        (f"{base}/back-def.jpg", 4, 1), (f"{base}/scenes-0-abc.jpg", 700, 1), (f"{base}/Game.png", 5, 1)]
    assert payload["uploaded"][0]["file"] == str(build / "sheets" / "back-def.jpg")


def test_every_publish_option_has_help():
    from tools.commands.publish import publish as command

    options = [param for param in command.params if isinstance(param, click.Option)]
    assert {o.name for o in options} >= {"retries", "timeout", "connect_timeout", "as_json"}
    assert all(o.help for o in options), [o.name for o in options if not o.help]
    assert "Extra attempts per file" in CliRunner().invoke(cli, ["publish", "--help"]).output
