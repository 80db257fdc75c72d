"""TTS's side of the External Editor API, over real sockets.

TTS listens for editor messages (normally on 39999) and connects to the editor (normally on 39998) to deliver
each message it emits; both directions carry one JSON object per connection, ended by closing it.
:class:`ExternalEditorEndpoint` listens on 127.0.0.1 (port 0 = an ephemeral port) in a background thread and
queues every message it receives; the table drains the queue on its own thread between frames, so Lua only ever
runs on the table's thread. :meth:`send` opens a connection to the editor port, writes, closes.
"""

from __future__ import annotations

import json
import queue
import socket
import threading
import time
from typing import Any

MAX_MESSAGE_BYTES = 16 * 1024 * 1024
READ_TIMEOUT = 5.0


def expects_answer(custom: Any) -> bool:
    """Whether a custom message the scripts send waits for a bridge's answer: every one but the mod's
    ``broadcast`` note, which carries no id and is only journaled (docs/protocol.md)."""
    return not (isinstance(custom, dict) and custom.get("type") == "broadcast" and "id" not in custom)


class ExternalEditorEndpoint:
    def __init__(self, editor_port: int | None, listen_port: int = 0, host: str = "127.0.0.1") -> None:
        self.host = host
        self.editor_port = editor_port
        self.inbox: "queue.Queue[dict[str, Any]]" = queue.Queue()
        self.sent: list[dict[str, Any]] = []      # every message handed to the editor (delivered or not)
        self.received: list[dict[str, Any]] = []  # every message received, in order (for tests to inspect)
        self.undelivered: list[dict[str, Any]] = []
        self.bad_input: list[str] = []           # connections whose bytes were not one JSON object
        self._owed = 0                           # messages delivered and not yet matched by one received
        self._owed_lock = threading.Lock()
        self._server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._server.bind((host, listen_port))
        self._server.listen(16)
        self._server.settimeout(0.2)
        self.port: int = self._server.getsockname()[1]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="headless-eea", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._server.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            with conn:
                conn.settimeout(READ_TIMEOUT)
                chunks: list[bytes] = []
                size = 0
                try:
                    while size <= MAX_MESSAGE_BYTES:
                        chunk = conn.recv(65536)
                        if not chunk:
                            break
                        chunks.append(chunk)
                        size += len(chunk)
                except OSError:
                    self.bad_input.append("read failed")
                    continue
            raw = b"".join(chunks)
            if size > MAX_MESSAGE_BYTES:
                self.bad_input.append(f"message over {MAX_MESSAGE_BYTES} bytes")
                continue
            try:
                message = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, ValueError):
                self.bad_input.append(raw[:200].decode("utf-8", "replace"))
                continue
            if isinstance(message, dict):
                with self._owed_lock:
                    self._owed = max(0, self._owed - 1)
                self.received.append(message)
                self.inbox.put(message)
            else:
                self.bad_input.append("not a JSON object")

    def send(self, message: dict[str, Any]) -> bool:
        """Deliver one message to the editor port; False (and kept in ``undelivered``) if nobody listens."""
        self.sent.append(message)
        if self.editor_port is None:
            self.undelivered.append(message)
            return False
        payload = json.dumps(message, indent=2).encode("utf-8")
        # Only a custom message (messageID 4) is a request a bridge answers; prints, errors, Execute Lua
        # results and "game loaded" notices expect nothing back, so waiting for an answer to them would stall.
        # Nor does the mod's broadcast note (no id: the bridge only journals it, docs/protocol.md).
        owes = message.get("messageID") == 4 and expects_answer(message.get("customMessage"))
        if owes:
            with self._owed_lock:
                self._owed += 1        # before sending: the answer may arrive before sendall returns
        try:
            with socket.create_connection((self.host, self.editor_port), timeout=READ_TIMEOUT) as s:
                s.sendall(payload)
        except OSError:
            if owes:
                with self._owed_lock:
                    self._owed = max(0, self._owed - 1)
            self.undelivered.append(message)
            return False
        return True

    @property
    def owed(self) -> int:
        """Messages delivered to the editor that no received message has answered yet (one answer each).

        The External Editor API has no acknowledgement; this counts a delivery as expecting one message back,
        which is how a request/reply bridge behaves. :meth:`Table.run_until` waits in real time only while
        something is owed, so the simulated clock never outruns a live bridge and never idles without one."""
        with self._owed_lock:
            return self._owed

    def wait_for_input(self, timeout: float) -> bool:
        """Block up to ``timeout`` real seconds until a message is queued; whether one is."""
        deadline = time.monotonic() + timeout
        while self.inbox.empty():
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            time.sleep(min(0.001, left))
        return True

    def forgive(self) -> None:
        """Stop expecting answers (the editor went quiet)."""
        with self._owed_lock:
            self._owed = 0

    def close(self) -> None:
        self._stop.set()
        try:
            self._server.close()
        finally:
            self._thread.join(timeout=2.0)
