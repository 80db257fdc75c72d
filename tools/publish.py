"""``ttsmod publish``: upload a build's images to a web host with HTTP PUT, then verify each with HEAD.

What is uploaded: every file under ``<build>/sheets/`` that the build's save references (by file name, whether
the save holds ``file:///`` or hosted URLs), plus the ``<Game>.png`` thumbnail.  Each file goes to
``<to>/<file name>`` — the same URL ``ttsmod build --asset-base-url <to>`` writes into the save, so a
hosted build is: ``ttsmod build GAME --asset-base-url URL`` then ``ttsmod publish build/<game> --to URL``.

Each PUT is retried on connection errors, timeouts, 429 and 5xx, with exponential back-off (``backoff``,
``2 × backoff``, …); any other 4xx fails at once.  After the upload a HEAD must answer 200 with a
``Content-Length`` equal to the file's size, otherwise :class:`PublishError` names the file.
"""

from __future__ import annotations

import json
import mimetypes
import time
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Callable, Mapping
from urllib.parse import quote, unquote, urlparse

import requests

from tools.errors import InputError, TtsmodError
from tools.install import find_save


class PublishError(TtsmodError):
    """An upload or its verification failed (network or server side): exit status 1."""

    exit_code = 1


@dataclass(frozen=True)
class Uploaded:
    file: Path
    url: str
    size: int
    attempts: int


@dataclass(frozen=True)
class PublishResult:
    uploaded: tuple[Uploaded, ...]
    save_uses_local_urls: bool  # the save still points at file:/// (rebuild with --asset-base-url)


def _referenced_names(save: dict) -> set[str]:
    names: set[str] = set()

    def walk(value) -> None:
        if isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)
        elif isinstance(value, str) and "://" in value[:12]:
            path = unquote(urlparse(value).path)
            if path:
                names.add(PurePosixPath(path.replace("\\", "/")).name)

    walk(save)
    return names


def files_to_publish(build_dir: Path) -> tuple[list[Path], bool]:
    """The files of ``build_dir`` to upload (referenced sheets/images, then the thumbnail), and whether the
    save still uses ``file:///`` URLs."""
    build_dir = Path(build_dir)
    if not build_dir.is_dir():
        raise InputError(f"{build_dir}: not a build folder")
    save_file = find_save(build_dir)
    try:
        save = json.loads(save_file.read_text(encoding="utf-8-sig"))
    except (OSError, ValueError):
        raise InputError(f"{save_file}: not a JSON save file") from None
    referenced = _referenced_names(save)
    sheets = build_dir / "sheets"
    files = sorted(p for p in sheets.iterdir() if p.is_file() and p.name in referenced) if sheets.is_dir() else []
    if not files:
        raise InputError(f"{build_dir}: the save references no file in {sheets}; run ttsmod build first")
    thumbnail = save_file.with_suffix(".png")
    if thumbnail.is_file():
        files.append(thumbnail)
    local = "file:///" in save_file.read_text(encoding="utf-8-sig")
    return files, local


def url_for(base_url: str, name: str) -> str:
    """``<base_url>/<name>`` with the name percent-encoded."""
    return base_url.rstrip("/") + "/" + quote(name)


def _retryable(status: int) -> bool:
    return status == 429 or status >= 500


def upload_file(session: requests.Session, path: Path, url: str, *, retries: int, backoff: float,
                timeout: float, headers: Mapping[str, str], sleep: Callable[[float], None]) -> Uploaded:
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
        except requests.RequestException as exc:
            problem = exc.__class__.__name__
        if attempt > retries:
            raise PublishError(f"{path.name}: upload to {url} failed after {attempt} attempts ({problem})")
        sleep(backoff * 2 ** (attempt - 1))
    try:
        head = session.head(url, timeout=timeout, headers=dict(headers), allow_redirects=True)
    except requests.RequestException as exc:
        raise PublishError(f"{path.name}: cannot verify {url} ({exc.__class__.__name__})") from None
    if head.status_code != 200:
        raise PublishError(f"{path.name}: {url} answers HTTP {head.status_code} after upload")
    length = head.headers.get("Content-Length")
    if length is None or not length.isdigit() or int(length) != len(data):
        raise PublishError(f"{path.name}: {url} has Content-Length {length}, expected {len(data)}")
    return Uploaded(path, url, len(data), attempt)


def publish(build_dir: Path, to: str, *, retries: int = 3, backoff: float = 0.5, timeout: float = 60.0,
            headers: Mapping[str, str] | None = None, session: requests.Session | None = None,
            progress: Callable[[Uploaded], None] | None = None,
            sleep: Callable[[float], None] = time.sleep) -> PublishResult:
    """Upload the build's referenced images and thumbnail to ``to`` (an http(s) URL folder)."""
    parsed = urlparse(to)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise InputError(f'--to must be an http(s) URL, not "{to}"')
    files, local = files_to_publish(build_dir)
    own_session = session is None
    session = session or requests.Session()
    try:
        done = []
        for path in files:
            item = upload_file(session, path, url_for(to, path.name), retries=retries, backoff=backoff,
                               timeout=timeout, headers=dict(headers or {}), sleep=sleep)
            done.append(item)
            if progress is not None:
                progress(item)
    finally:
        if own_session:
            session.close()
    return PublishResult(tuple(done), local)
