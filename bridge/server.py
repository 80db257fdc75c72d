"""The asyncio transport of the bridge: listen for TTS on 39998, send to TTS on 39999.

One message per connection in both directions, read to end of stream, with a time limit on every read and
every connect. Bytes become messages in ``bridge.protocol``; messages are handled by ``bridge.session``.

A frame that is not a message (garbage, too large, too slow, cut short) is logged, counted and ignored: the
server keeps serving whatever the peer sends.
"""

from __future__ import annotations

import asyncio
import errno
import ipaddress
import logging
from typing import Any, Callable

from bridge.games import GameRegistry, default_registry
from bridge.protocol import (
    BRIDGE_PORT,
    DEFAULT_MAX_SIZE,
    TTS_PORT,
    FromTTS,
    MessageReceiver,
    RemoteProtocolError,
    ToTTS,
    encode,
)
from bridge.session import BridgeError, Console, ErrorLocator, Session, TtsNotRunning
from bridge.errors import InputError

log = logging.getLogger("ttsmod.bridge")

LOOPBACK = "127.0.0.1"
READ_CHUNK = 64 * 1024

# accept() fails with these when the process or the system runs out of file descriptors or memory; asyncio
# retries by itself a second later, so one warning now and then is all a user needs to see.
RESOURCE_ERRNOS = frozenset(
    code for code in (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM) if isinstance(code, int)
)
RESOURCE_WARNING_INTERVAL = 60.0


class PortInUse(BridgeError):
    """Another program holds the bridge's port."""


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine only (``localhost``, ``127.x.x.x``, ``::1``)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_host(host: str, allow_remote: bool, option: str = "--host") -> None:
    """Raise :class:`bridge.errors.InputError` for a non-loopback host unless ``allow_remote``."""
    if not allow_remote and not is_loopback(host):
        raise InputError(
            f"{option} {host} is not this machine; the bridge only talks to 127.0.0.1 unless --allow-remote is given"
        )


async def write_frame(host: str, port: int, data: bytes) -> None:
    """One External Editor API frame: connect, write ``data``, close (the peer reads to end of stream)."""
    _reader, writer = await asyncio.open_connection(host, port)
    try:
        writer.write(data)
        await writer.drain()
    finally:
        writer.close()
        try:
            await writer.wait_closed()
        except (ConnectionError, OSError):
            pass


async def send_message(message: ToTTS, host: str = LOOPBACK, port: int = TTS_PORT, *, timeout: float = 2.0) -> None:
    """Deliver one message to TTS: connect, write, close. Raises :class:`TtsNotRunning` when nothing accepts
    the connection (or it does not complete within ``timeout``)."""
    data = encode(message)
    try:
        async with asyncio.timeout(timeout):
            await write_frame(host, port, data)
    except TimeoutError:
        raise TtsNotRunning(
            f"Tabletop Simulator did not accept a message on {host}:{port} within {timeout:g} s."
        ) from None
    except (ConnectionError, OSError) as exc:
        raise TtsNotRunning(
            f"Tabletop Simulator is not listening on {host}:{port} ({exc.strerror or exc}): start it and load a game."
        ) from None


class Bridge:
    """The bridge process's network side: a server for TTS's messages and a client for ours.

    Use as ``async with Bridge(...) as bridge:``; ``bridge.session`` does the work, ``bridge.port`` is the port
    actually bound (useful with ``port=0``). Raises :class:`PortInUse` (one sentence) when the port is taken
    and :class:`bridge.errors.InputError` for a non-loopback host without ``allow_remote``.
    """

    def __init__(
        self,
        *,
        registry: GameRegistry | None = None,
        host: str = LOOPBACK,
        port: int = BRIDGE_PORT,
        tts_host: str = LOOPBACK,
        tts_port: int = TTS_PORT,
        allow_remote: bool = False,
        journal: Any = None,
        console: Console | None = None,
        locate_error: ErrorLocator | None = None,
        max_size: int = DEFAULT_MAX_SIZE,
        read_timeout: float = 10.0,
        connect_timeout: float = 2.0,
        echo_limit: int | None = None,
    ) -> None:
        check_host(host, allow_remote, "--host")
        check_host(tts_host, allow_remote, "--tts-host")
        self.host = host
        self.port = port
        self.tts_host = tts_host
        self.tts_port = tts_port
        self.max_size = max_size
        self.read_timeout = read_timeout
        self.connect_timeout = connect_timeout
        self._registry = registry if registry is not None else default_registry()
        self._journal = journal
        self._console = console
        self._locate_error = locate_error
        self.echo_limit = echo_limit
        self._server: asyncio.AbstractServer | None = None
        self.session: Session | None = None
        self.resource_errors = 0
        """How many times accepting a connection failed for lack of file descriptors (or memory)."""
        self._resource_warned_at: float | None = None
        self._resource_errors_warned = 0
        self._previous_handler: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None

    async def _send(self, message: ToTTS) -> None:
        await send_message(message, self.tts_host, self.tts_port, timeout=self.connect_timeout)

    async def start(self) -> "Bridge":
        self.session = Session(
            self._registry, self._send, journal=self._journal, console=self._console, locate_error=self._locate_error,
            echo_limit=self.echo_limit,
        )
        try:
            self._server = await asyncio.start_server(self._on_connection, self.host, self.port)
        except OSError as exc:
            if exc.errno in (errno.EADDRINUSE, getattr(errno, "WSAEADDRINUSE", -1), 10048):
                raise PortInUse(
                    f"port {self.port} on {self.host} is already in use: another editor is holding it "
                    "(the VS Code or Atom Tabletop Simulator plugin, or a second ttsmod bridge); close it and retry."
                ) from None
            raise BridgeError(f"cannot listen on {self.host}:{self.port}: {exc.strerror or exc}") from None
        self.port = self._server.sockets[0].getsockname()[1]
        self._loop = asyncio.get_running_loop()
        self._previous_handler = self._loop.get_exception_handler()
        self._loop.set_exception_handler(self._on_loop_exception)
        return self

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None
        if self.session is not None:
            await self.session.drain()
        if self._loop is not None:
            self._loop.set_exception_handler(self._previous_handler)
            self._loop = None

    def _on_loop_exception(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        """Out of file descriptors: one warning a minute instead of a traceback per failed accept."""
        exc = context.get("exception")
        if isinstance(exc, OSError) and exc.errno in RESOURCE_ERRNOS:
            self.resource_errors += 1
            now = loop.time()
            if self._resource_warned_at is None or now - self._resource_warned_at >= RESOURCE_WARNING_INTERVAL:
                since = self.resource_errors - self._resource_errors_warned
                more = f" ({since} times since the last warning)" if self._resource_warned_at is not None else ""
                log.warning(
                    "cannot accept connections from TTS: %s%s; they wait until other connections close "
                    "(raise the limit of open files, e.g. ulimit -n)", exc.strerror or exc, more,
                )
                self._resource_warned_at = now
                self._resource_errors_warned = self.resource_errors
            return
        if self._previous_handler is not None:
            self._previous_handler(loop, context)
        else:
            loop.default_exception_handler(context)

    async def __aenter__(self) -> "Bridge":
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def serve_forever(self) -> None:
        assert self._server is not None, "start() first"
        await self._server.serve_forever()

    async def _on_connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        session = self.session
        assert session is not None
        receiver = MessageReceiver(FromTTS.direction, max_size=self.max_size)
        message = None
        try:
            async with asyncio.timeout(self.read_timeout):
                while True:
                    chunk = await reader.read(READ_CHUNK)
                    if not chunk:
                        break
                    receiver.receive_data(chunk)
            message = receiver.finish()
        except RemoteProtocolError as exc:
            session.on_malformed(exc.reason, receiver.size)
        except TimeoutError:
            session.on_malformed("timeout", receiver.size)
        except asyncio.CancelledError:
            # the bridge is stopping while TTS holds this connection open: the frame is dropped, quietly (asyncio's
            # streams ask a cancelled connection task for its exception, which logs a traceback at exit)
            return
        except (ConnectionError, OSError):
            session.on_malformed("connection_error", receiver.size)
        except Exception as exc:  # never let one connection take the server down
            log.exception("unexpected error reading a frame")
            session.on_malformed(type(exc).__name__, receiver.size)
        finally:
            writer.close()
        if message is not None:
            session.on_message(message)


async def run_bridge(bridge: Bridge, *, on_ready: Callable[[Bridge], None] | None = None, stop: asyncio.Event | None = None) -> None:
    """Start ``bridge`` and serve until ``stop`` is set (or the task is cancelled)."""
    async with bridge:
        if on_ready is not None:
            on_ready(bridge)
        if stop is None:
            await bridge.serve_forever()
        else:
            await stop.wait()
