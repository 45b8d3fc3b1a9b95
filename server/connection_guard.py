"""uvicorn's HTTP/1.1 protocol (h11) with the deadlines and limits it lacks on its own.

Without them a client holds a connection for as long as it likes: uvicorn arms no timer before a
request's head is complete (its keep-alive timer starts only after a response, and any byte cancels
it), nor while a body trickles in, and has no limit per client. A client opening connections and
sending one header byte now and then ("slowloris"), or a body a byte at a time, could keep
descriptors and tasks until the server had none left for anyone else. Here:

- a request's line and headers must arrive within ``header_seconds`` of the connection opening (or
  of the previous response ending); its body within ``body_seconds`` of its head. Late ones get 408
  and the connection is closed. The run itself is not under these deadlines, only the upload;
- a response must keep reaching the client: when none of the bytes written for it was taken
  by the client's socket for ``send_seconds``, the connection is dropped at once (reset) with
  the output it buffered. A client that asks for something large and never reads would
  otherwise hold the response in the server's memory (a report, a stored session) or the route
  waiting for the socket to drain (a file), with its connection, for as long as it stays;
- what all connections together hold unsent is bounded too (``unsent_bytes``): the send deadline
  alone bounds only how long each holds its response, so many clients that never read could each
  hold a large report at once. A write that takes the total past the budget resets the other
  connections whose unsent output has waited longest (oldest backlog first) until it fits. Not a
  503 for the new response: that would let a few stalled clients deny every large answer to
  everyone for ``send_seconds``, while a client that reads keeps up and has no old backlog;
- one client (its address; an IPv6 client its /64, as for fair share) may hold
  ``client_connections`` connections; more are answered 429 at once and closed. A trusted proxy's
  connections carry many clients and are not counted (the proxy limits each client itself:
  ``docker/nginx/jaxplay.conf.template``);
- a request whose length is ambiguous is refused with 400 before any route sees it: Content-Length
  together with Transfer-Encoding, or Content-Length given twice (even with equal values, which h11
  would merge). Two parsers that frame such a request differently (a proxy and this server) would
  see different requests in one byte stream ("request smuggling"); h11 already refuses differing
  lengths and any transfer coding other than chunked.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import re
import socket
import struct
from typing import TYPE_CHECKING, Any, Callable, Optional, cast

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from .fairshare import client_key

if TYPE_CHECKING:
    from .settings import Settings

log = logging.getLogger("jaxplay.server")

# h11 ends a head at its first blank line, with or without the carriage returns.
_HEAD_END = re.compile(rb"\n\r?\n")


def framing_problem(head: bytes) -> Optional[str]:
    """Why a request head (request line and header lines) frames its body ambiguously, or None."""
    lengths = codings = 0
    for line in head.split(b"\n")[1:]:
        if line[:1] in (b" ", b"\t"):  # a folded continuation of the line before: no new field
            continue
        name, colon, value = line.partition(b":")
        if not colon:
            continue
        name = name.strip().lower()
        if name == b"content-length":
            lengths += 1 + value.count(b",")  # "5, 5" is the same field given twice
        elif name == b"transfer-encoding":
            codings += 1
    if lengths and codings:
        return "both Content-Length and Transfer-Encoding"
    if lengths > 1:
        return "Content-Length given more than once"
    return None


def _raw_response(status: bytes, extra: bytes = b"") -> bytes:
    """A complete response written around h11 on a connection about to close."""
    body = status + b"\n"
    fields = b"content-type: text/plain; charset=utf-8\r\nconnection: close\r\n" + extra
    return b"HTTP/1.1 %s\r\n%scontent-length: %d\r\n\r\n%s" % (status, fields, len(body), body)


class _CountingTransport:
    """A connection's transport as uvicorn uses it, telling ``on_write`` the size of every write
    and how much was waiting unsent before it; everything else is the transport's own."""

    def __init__(self, transport: asyncio.Transport, on_write: Callable[[int, int], None]) -> None:
        self._transport, self._on_write = transport, on_write

    def write(self, data: bytes) -> None:
        waiting = self._transport.get_write_buffer_size()
        self._transport.write(data)
        self._on_write(len(data), waiting)

    def writelines(self, chunks: Any) -> None:
        self.write(b"".join(chunks))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


def _reset(transport: asyncio.Transport) -> None:
    """Close at once, dropping what is buffered here and in the kernel: a reset rather than a FIN
    queued behind output the client is not reading (which the kernel would keep trying to send)."""
    sock = transport.get_extra_info("socket")
    if sock is not None:
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
    transport.abort()


def guarded_protocol(settings: "Settings") -> type[H11Protocol]:
    """The protocol class for ``uvicorn.Config(http=...)``, with ``settings``' limits; the connection
    counts are shared by every connection of this server (one event loop)."""
    proxies = [ipaddress.ip_network(p, strict=False) for p in settings.trusted_proxies]
    open_by_client: dict[str, int] = {}
    # The connections whose output waits unsent (in the transport's buffer), by when that backlog
    # began: a backlog can only begin with a write that finds the buffer empty.
    backlogged: dict["GuardedH11Protocol", float] = {}

    def hold_within_budget(writer: "GuardedH11Protocol") -> None:
        """Reset the connections with the oldest backlogs, never ``writer``, until what all hold
        unsent fits ``settings.unsent_bytes`` (or only ``writer``'s is left)."""
        for conn in [c for c in backlogged if not c.transport.get_write_buffer_size()]:
            del backlogged[conn]  # drained since (the loop empties buffers without telling us)
        total = sum(c.transport.get_write_buffer_size() for c in backlogged)
        for conn in sorted(backlogged, key=backlogged.__getitem__):
            if total <= settings.unsent_bytes:
                return
            if conn is writer:
                continue
            total -= conn.transport.get_write_buffer_size()
            del backlogged[conn]
            log.warning(
                "unsent responses past JAXPLAY_UNSENT_BYTES: reset %s, waiting %.0f s",
                conn.client[0] if conn.client else "a client",
                conn.loop.time() - conn._backlog_began,
            )
            _reset(conn.transport)

    def counted_key(host: str) -> Optional[str]:
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return client_key(host)
        if any(address in net for net in proxies):
            return None
        return client_key(host)

    class GuardedH11Protocol(H11Protocol):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._client_counted: Optional[str] = None
            self._refused = False  # over the client's connection cap: answered 429, closing
            self._head: Optional[bytearray] = None  # the bytes of the head being received
            self._deadline: Optional[asyncio.TimerHandle] = None
            # The send deadline: bytes written, and how many of them the kernel had taken when the
            # watch was last armed (it runs while output waits in the transport's buffer).
            self._written = 0
            self._delivered = 0
            self._send_watch: Optional[asyncio.TimerHandle] = None
            self._backlog_began = 0.0
            # Every event h11 gives uvicorn passes through here, and every byte it is fed.
            self._h11_next_event, self._h11_receive_data = self.conn.next_event, self.conn.receive_data
            self.conn.next_event = self._next_event  # type: ignore[method-assign]
            self.conn.receive_data = self._receive_data  # type: ignore[method-assign]

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            # uvicorn writes through self.transport only (its request cycles get it from here).
            super().connection_made(cast(asyncio.Transport, _CountingTransport(transport, self._wrote)))
            key = counted_key(self.client[0]) if self.client else None
            if key is not None:
                if open_by_client.get(key, 0) >= settings.client_connections:
                    self._refuse(self.transport)
                    return
                open_by_client[key] = open_by_client.get(key, 0) + 1
                self._client_counted = key
            self._arm(settings.header_seconds, self._head_too_slow)

        def _refuse(self, transport: asyncio.Transport) -> None:
            """429 at once, then only the write side shut: what the client sends is read and dropped
            until it closes (or a second passes), so closing does not reset the answer away unread."""
            self._refused = True
            transport.write(_raw_response(b"429 Too Many Requests", b"retry-after: 1\r\n"))
            if transport.can_write_eof():
                transport.write_eof()
            self._deadline = self.loop.call_later(1.0, transport.close)

        def data_received(self, data: bytes) -> None:
            if not self._refused:
                super().data_received(data)

        def connection_lost(self, exc: Optional[Exception]) -> None:
            backlogged.pop(self, None)
            self._disarm()
            if self._send_watch is not None:
                self._send_watch.cancel()
                self._send_watch = None
            key, self._client_counted = self._client_counted, None
            if key is not None:
                left = open_by_client[key] - 1
                if left:
                    open_by_client[key] = left
                else:
                    del open_by_client[key]
            super().connection_lost(exc)

        def _receive_data(self, data: bytes) -> None:
            if self._head is not None and self.conn.their_state is h11.IDLE:
                self._head += data
            self._h11_receive_data(data)

        def _next_event(self) -> Any:
            if self.conn.their_state is h11.IDLE and self._head is None:
                # A new request begins: what h11 holds unparsed is its start (once per request).
                self._head = bytearray(self.conn.trailing_data[0])
                if self._deadline is None:
                    self._arm(settings.header_seconds, self._head_too_slow)
            event = self._h11_next_event()
            if isinstance(event, h11.Request):
                head, self._head = bytes(self._head or b""), None
                self._disarm()
                end = _HEAD_END.search(head)
                problem = framing_problem(head[: end.start() if end else len(head)])
                if problem is not None:
                    # uvicorn answers h11's protocol errors with 400 and closes: this is one.
                    raise h11.RemoteProtocolError(f"ambiguous request framing: {problem}", 400)
                if self.conn.their_state is h11.SEND_BODY:
                    self._arm(settings.body_seconds, self._body_too_slow)
            elif isinstance(event, h11.EndOfMessage):
                self._disarm()
            return event

        def _wrote(self, size: int, waiting_before: int) -> None:
            self._written += size
            if not self.transport.get_write_buffer_size():
                return
            if not waiting_before or self not in backlogged:
                self._backlog_began = backlogged[self] = self.loop.time()
            hold_within_budget(self)
            if self._send_watch is None:
                self._watch_sending()

        def _watch_sending(self) -> None:
            self._delivered = self._written - self.transport.get_write_buffer_size()
            self._send_watch = self.loop.call_later(settings.send_seconds, self._check_sending)

        def _check_sending(self) -> None:
            self._send_watch = None
            waiting = self.transport.get_write_buffer_size()
            if not waiting:
                return  # all handed to the kernel; the next write that has to wait watches again
            if self._written - waiting > self._delivered:
                self._watch_sending()  # the client took some: a new period
                return
            # Nothing taken for a whole period. The route waiting to write more (uvicorn's flow
            # control) sees a disconnect when the connection is lost, and ends.
            _reset(self.transport)

        def _arm(self, seconds: float, handler: Any) -> None:
            self._disarm()
            self._deadline = self.loop.call_later(seconds, handler)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _head_too_slow(self) -> None:
            self._deadline = None
            if self.transport.is_closing():
                return
            if self._head or self.conn.trailing_data[0]:  # part of a head came: say why it ends
                self.transport.write(_raw_response(b"408 Request Timeout"))
            self.transport.close()

        def _body_too_slow(self) -> None:
            self._deadline = None
            if self.transport.is_closing():
                return
            cycle = self.cycle
            if cycle is not None and not cycle.response_started:
                self.transport.write(_raw_response(b"408 Request Timeout"))
            if cycle is not None:
                # The route reading the body sees a disconnect; nothing it sends reaches h11.
                cycle.disconnected = True
                cycle.message_event.set()
            self.transport.close()

    return GuardedH11Protocol
