"""``ttsmod publish``: upload a build's images to a web host with HTTP PUT, then verify each with HEAD.

What is uploaded: every file under ``<build>/sheets/`` that the build's save references (by file name, whether
the save holds ``file:///`` or hosted URLs), plus the ``<Game>.png`` thumbnail.  A folder ``ttsmod sheets`` wrote
(it holds ``.ttsmod-sheets.json``, or has no ``sheets/``) keeps its images beside the deck's JSON: those are
uploaded from the folder itself (``ttsmod sheets … --asset-base-url URL`` then ``ttsmod publish OUT --to URL``).  Each file goes to
``<to>/<file name>`` — the same URL ``ttsmod build --asset-base-url <to>`` writes into the save, so a
hosted build is: ``ttsmod build GAME --asset-base-url URL`` then ``ttsmod publish build/<game> --to URL``.

Before anything is sent, the build is refused (:class:`bridge.errors.InputError`) when its save would not load
what is published: a save with ``file:///`` URLs (built without ``--asset-base-url``), or one whose hosted URLs
are not ``<to>/<file name>`` (built for another place); the message names the URL the save holds and the one
publishing would create.

Each PUT is retried on connection errors, timeouts, 429 and 5xx, with exponential back-off (``backoff``,
``2 × backoff``, …); any other 4xx fails at once.  After the upload a HEAD must answer 200 with a
``Content-Length`` equal to the file's size, otherwise :class:`PublishError` names the file.

Every request has a connect timeout and a total deadline (``timeout``): a server that answers one byte at a
time, each within any per-read timeout, is cut off when the deadline passes (its connection is shut down), and
that attempt counts as a timeout.
"""

from __future__ import annotations

import json
import mimetypes
import socket
import threading
import time
import weakref
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Callable, Mapping
from urllib.parse import quote, unquote, urlparse

import requests

from bridge.errors import InputError, TtsmodError
from tools.install import find_save

SHEETS_MANIFEST = ".ttsmod-sheets.json"
""":data:`tools.sheets.MANIFEST_NAME`, the mark of a folder ``ttsmod sheets`` wrote (not imported from there: that
module loads Pillow, which publishing does not need)."""


class PublishError(TtsmodError):
    """An upload or its verification failed (network or server side): exit status 1."""

    exit_code = 1


@dataclass(frozen=True)
class Uploaded:
    file: Path
    url: str
    size: int
    attempts: int


    def to_json(self) -> dict[str, object]:
        return {"file": str(self.file), "url": self.url, "size": self.size, "attempts": self.attempts}


@dataclass(frozen=True)
class PublishResult:
    uploaded: tuple[Uploaded, ...]
    save_uses_local_urls: bool  # the save still points at file:/// (only with check_urls=False)

    def to_json(self, to: str) -> dict[str, object]:
        """What ``ttsmod publish --json`` prints (documented in docs/building.md)."""
        return {"to": to, "save_uses_local_urls": self.save_uses_local_urls,
                "uploaded": [item.to_json() for item in self.uploaded]}


def _referenced_urls(save: dict) -> dict[str, set[str]]:
    """File name → the URLs of the save that end in it (every string value that looks like a URL)."""
    urls: dict[str, set[str]] = {}
    stack: list = [save]
    while stack:  # iterative: a save can nest deeper than Python's recursion limit
        value = stack.pop()
        if isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, str) and "://" in value[:12]:
            try:
                path = unquote(urlparse(value).path)
            except ValueError:
                continue
            if path:
                urls.setdefault(PurePosixPath(path.replace("\\", "/")).name, set()).add(value)
    return urls


def _referenced_names(save: dict) -> set[str]:
    return set(_referenced_urls(save))


def check_save_urls(build_dir: Path, to: str) -> None:
    """Refuse (``InputError``) a build whose save would not load the files publishing puts at ``to``.

    Every URL the save holds for a file it publishes must be exactly ``<to>/<file name>``: a ``file:///``
    URL means the build was made without ``--asset-base-url``, another base means it was made for another
    place.  The message names what the save holds and what it would need.
    """
    files, _local = files_to_publish(build_dir)
    save = _read_save(find_save(Path(build_dir)))
    urls = _referenced_urls(save)
    wrong: list[tuple[str, str]] = []
    for path in files:
        expected = url_for(to, path.name)
        wrong += [(url, expected) for url in sorted(urls.get(path.name, ())) if url != expected]
    if not wrong:
        return
    url, expected = wrong[0]
    count = f" (and {len(wrong) - 1} more)" if len(wrong) > 1 else ""
    rebuild = ("run ttsmod sheets again with" if is_sheets_folder(Path(build_dir)) else "rebuild with")
    if url.lower().startswith("file:"):
        raise InputError(f"{build_dir}: the save loads its images from this computer ({url}{count}), so players "
                         f"would not see what is published; {rebuild} --asset-base-url {to} first")
    raise InputError(f"{build_dir}: the save loads {url}{count}, but publishing puts the file at {expected}; "
                     f"{rebuild} --asset-base-url {to}, or publish --to the base URL the build used")


def _read_save(save_file: Path) -> dict:
    try:
        save = json.loads(save_file.read_text(encoding="utf-8-sig"))
    except (OSError, ValueError, RecursionError):
        raise InputError(f"{save_file}: not a JSON save file") from None
    if not isinstance(save, dict):
        raise InputError(f"{save_file}: not a JSON save file")
    return save


def is_sheets_folder(folder: Path) -> bool:
    """Whether ``folder`` is one ``ttsmod sheets`` wrote (images beside the JSON) rather than a build folder
    (images in ``sheets/``): it holds the sheets manifest, or has no ``sheets/`` folder."""
    return (folder / SHEETS_MANIFEST).is_file() or not (folder / "sheets").is_dir()


def files_to_publish(build_dir: Path) -> tuple[list[Path], bool]:
    """The files of ``build_dir`` to upload (referenced sheets/images, then the thumbnail), and whether the
    save still uses ``file:///`` URLs."""
    build_dir = Path(build_dir)
    if not build_dir.is_dir():
        raise InputError(f"{build_dir}: not a build folder")
    save_file = find_save(build_dir)
    save = _read_save(save_file)
    referenced = _referenced_names(save)
    sheets_folder = is_sheets_folder(build_dir)
    images = build_dir if sheets_folder else build_dir / "sheets"
    thumbnail = save_file.with_suffix(".png")
    files = sorted(p for p in images.iterdir()
                   if p.is_file() and p.name in referenced and p not in (save_file, thumbnail)
                   and not p.name.startswith("."))
    if not files:
        hint = "run ttsmod sheets first" if sheets_folder else "run ttsmod build first"
        raise InputError(f"{build_dir}: the save references no file in {images}; {hint}")
    if thumbnail.is_file():
        files.append(thumbnail)
    local = "file:///" in save_file.read_text(encoding="utf-8-sig")
    return files, local


def url_for(base_url: str, name: str) -> str:
    """``<base_url>/<name>`` with the name percent-encoded."""
    return base_url.rstrip("/") + "/" + quote(name)


def _retryable(status: int) -> bool:
    return status == 429 or status >= 500


class DeadlineSession(requests.Session):
    """A session whose every request must finish within ``deadline`` seconds, however slowly bytes arrive.

    ``requests``' read timeout bounds each wait for a byte, not the whole answer: a server trickling one byte
    every 20 s never trips a 30 s read timeout.  Here a timer shuts the session's sockets down when the
    deadline passes, which ends the blocked read at once; the request then raises ``requests.Timeout``.
    Requests are expected one at a time (publish uploads sequentially).
    """

    def __init__(self, deadline: float) -> None:
        super().__init__()
        self.deadline = deadline
        self._sockets: weakref.WeakSet = weakref.WeakSet()
        for adapter in self.adapters.values():
            pools = adapter.poolmanager.pool_classes_by_scheme
            adapter.poolmanager.pool_classes_by_scheme = {
                scheme: self._recording_pool(pool) for scheme, pool in pools.items()}

    def _recording_pool(self, pool_class: type) -> type:
        """A subclass of ``requests``' connection pool class whose connections register their sockets."""
        sockets = self._sockets

        class RecordingConnection(pool_class.ConnectionCls):  # type: ignore[name-defined]
            def connect(self) -> None:
                super().connect()
                if self.sock is not None:
                    sockets.add(self.sock)

        return type(f"Deadline{pool_class.__name__}", (pool_class,), {"ConnectionCls": RecordingConnection})

    def request(self, method, url, *args, **kwargs):  # noqa: D102 - requests.Session.request
        expired = threading.Event()

        def expire() -> None:
            expired.set()
            for sock in list(self._sockets):
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass  # already closed

        timer = threading.Timer(self.deadline, expire)
        timer.daemon = True
        timer.start()
        try:
            return super().request(method, url, *args, **kwargs)
        except requests.RequestException as exc:
            if expired.is_set():
                raise requests.Timeout(f"no complete answer within {self.deadline:g} s") from exc
            raise
        finally:
            timer.cancel()
            if expired.is_set():
                self.close()  # its connections were shut down: never reuse them


def upload_file(session: requests.Session, path: Path, url: str, *, retries: int, backoff: float,
                timeout: float | tuple[float, float], headers: Mapping[str, str],
                sleep: Callable[[float], None]) -> Uploaded:
    """PUT ``path`` to ``url`` (retrying as the module docstring says), then verify it with HEAD.

    ``timeout`` is passed to ``requests`` (a ``(connect, read)`` pair or one number for both); the total
    deadline per request is the session's (:class:`DeadlineSession`).
    """
    data = path.read_bytes()
    content_type = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    attempt = 0
    while True:
        attempt += 1
        problem: str
        try:
            response = session.put(url, data=data, timeout=timeout,
                                   headers={"Content-Type": content_type, **headers})
            if response.status_code < 300:
                break
            problem = f"HTTP {response.status_code}"
            if not _retryable(response.status_code):
                raise PublishError(f"{path.name}: upload to {url} refused ({problem})")
        except requests.Timeout as exc:
            problem = _timeout_reason(exc)
        except requests.RequestException as exc:
            problem = exc.__class__.__name__
        if attempt > retries:
            raise PublishError(f"{path.name}: upload to {url} failed after {attempt} attempts ({problem})")
        sleep(backoff * 2 ** (attempt - 1))
    try:
        head = session.head(url, timeout=timeout, headers=dict(headers), allow_redirects=True)
    except requests.Timeout as exc:
        raise PublishError(f"{path.name}: cannot verify {url} ({_timeout_reason(exc)})") from None
    except requests.RequestException as exc:
        raise PublishError(f"{path.name}: cannot verify {url} ({exc.__class__.__name__})") from None
    if head.status_code != 200:
        raise PublishError(f"{path.name}: {url} answers HTTP {head.status_code} after upload")
    length = head.headers.get("Content-Length")
    if length is None or not length.isdigit() or int(length) != len(data):
        raise PublishError(f"{path.name}: {url} has Content-Length {length}, expected {len(data)}")
    return Uploaded(path, url, len(data), attempt)


def _timeout_reason(exc: requests.Timeout) -> str:
    if isinstance(exc, requests.ConnectTimeout):
        return "connect timed out"
    text = str(exc)
    return text if text.startswith("no complete answer") else "timed out"


DEFAULT_TIMEOUT = 60.0
DEFAULT_CONNECT_TIMEOUT = 10.0


def publish(build_dir: Path, to: str, *, retries: int = 3, backoff: float = 0.5, timeout: float = DEFAULT_TIMEOUT,
            connect_timeout: float = DEFAULT_CONNECT_TIMEOUT, headers: Mapping[str, str] | None = None,
            session: requests.Session | None = None, progress: Callable[[Uploaded], None] | None = None,
            sleep: Callable[[float], None] = time.sleep, check_urls: bool = True) -> PublishResult:
    """Upload the build's referenced images and thumbnail to ``to`` (an http(s) URL folder).

    ``timeout`` is the total deadline of each request in seconds (connect, send, answer), ``connect_timeout``
    the limit for opening a connection.  With ``check_urls`` (the default) a build whose save would not load
    the published files is refused first (:func:`check_save_urls`).
    """
    parsed = urlparse(to)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise InputError(f'--to must be an http(s) URL, not "{to}"')
    if not timeout > 0 or not connect_timeout > 0:
        raise InputError("timeouts must be more than 0 seconds")
    files, local = files_to_publish(build_dir)
    if check_urls:
        check_save_urls(build_dir, to)
    own_session = session is None
    session = session or DeadlineSession(timeout)
    try:
        done = []
        for path in files:
            item = upload_file(session, path, url_for(to, path.name), retries=retries, backoff=backoff,
                               timeout=(min(connect_timeout, timeout), timeout), headers=dict(headers or {}),
                               sleep=sleep)
            done.append(item)
            if progress is not None:
                progress(item)
    finally:
        if own_session:
            session.close()
    return PublishResult(tuple(done), local)
