"""Attacks on the server's HTTP front at the socket level (server/connection_guard.py).

A client trickling request heads or bodies ("slowloris") must not hold connections past their
deadlines nor more connections than its share, nor can one that asks for large responses and
never reads them, and others' requests go on meanwhile; a request whose body length two parsers
could read differently (request smuggling) is refused with 400. The nginx balancer in front of
replicas (a real one, Debian's) caps each client's connections and cuts slow heads and bodies itself.
Another client is another loopback address (127.0.0.2): the server tells clients apart by address.
"""

from __future__ import annotations

import os
import shutil
import socket
import struct
import threading
import time

import httpx
import pytest

from server.connection_guard import framing_problem
from server.launch import ServerProcess
from server.services import Nginx

PLAIN = "server.sandbox.plain_runner:run_request"
CAP = 6
BUNDLE = 32 << 20  # a web bundle far larger than any socket buffer: served a piece at a time
OUTPUT = 8 << 20  # a run report of this much output: buffered whole in the server, then written


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    web = tmp_path_factory.mktemp("web")
    (web / "index.html").write_text("<!doctype html>")
    with open(web / "bundle.js", "wb") as f:
        f.truncate(BUNDLE)
    settings = {
        "runner": PLAIN,
        "database_path": tmp_path_factory.mktemp("db") / "s.sqlite",
        "workers": 1,
        "client_connections": CAP,
        "header_seconds": 2,
        "body_seconds": 2,
        "send_seconds": 2,
        "web_dist": web,
        "output_bytes": OUTPUT + (1 << 20),
    }
    with ServerProcess(settings, log_path=str(tmp_path_factory.mktemp("log") / "server.log")) as s:
        yield s


def connect(server, source="127.0.0.1"):
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.settimeout(60)  # a bound for a broken server, not a measurement
    sock.bind((source, 0))
    sock.connect(("127.0.0.1", server.port))
    return sock


def read_all(sock) -> bytes:
    """Everything the server sends until it closes the connection."""
    chunks = []
    while True:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


def drip(sock, data: bytes, stop: threading.Event) -> None:
    """Send ``data`` a byte at a time, a byte every 0.2 s, until it is sent, stopped or refused."""
    for i in range(len(data)):
        if stop.wait(0.2):
            return
        try:
            sock.send(data[i : i + 1])
        except OSError:
            return


def test_slow_heads_and_bodies_are_cut_and_capped_while_others_are_served(server):
    head = b"GET /api/health HTTP/1.1\r\nHost: x\r\n" + b"X-Pad: " + b"a" * 200 + b"\r\n\r\n"
    body_head = (
        b"POST /api/run HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 400\r\n\r\n"
    )
    stop = threading.Event()
    attackers, threads = [], []
    for i in range(CAP):
        sock = connect(server)
        if i % 2:
            sock.sendall(body_head)  # the head at once, then the body a byte at a time
            data = b'{"code": "' + b"x" * 380 + b'"}'
        else:
            data = head  # the head a byte at a time, long enough to outlast the deadline
        attackers.append(sock)
        threads.append(threading.Thread(target=drip, args=(sock, data, stop), daemon=True))
    for t in threads:
        t.start()
    try:
        # Past its share, the same client is refused at once...
        extra = connect(server)
        refused = read_all(extra)
        extra.close()
        assert refused.startswith(b"HTTP/1.1 429 "), refused
        # ...also when its request is on the way: the answer is not reset away by the close.
        extra = connect(server)
        extra.sendall(body_head + b'{"code": "' + b"x" * 380 + b'"}')
        refused = read_all(extra)
        extra.close()
        assert refused.startswith(b"HTTP/1.1 429 ") and refused.count(b"HTTP/1.1") == 1, refused
        # ...while another client is served, a run included.
        transport = httpx.HTTPTransport(local_address="127.0.0.2")
        with httpx.Client(base_url=server.base_url, transport=transport, timeout=60) as other:
            assert other.get("/api/health").status_code == 200
            assert other.post("/api/run", json={"code": "print(6 * 7)"}).json()["stdout"] == "42\n"
        # Each trickling connection is answered 408 and closed at its deadline, though it kept
        # sending: the deadline is for the whole head (body), not for silence.
        for sock in attackers:
            answer = read_all(sock)
            assert answer.startswith(b"HTTP/1.1 408 "), answer
    finally:
        stop.set()
        for t in threads:
            t.join()
        for sock in attackers:
            sock.close()
    # Their connections no longer count: the client is served again.
    assert httpx.get(server.base_url + "/api/health", timeout=60).status_code == 200


def slow_reader(server, request: bytes) -> socket.socket:
    """A connection that sends ``request`` and then never reads: its receive buffer is made as
    small as the kernel allows, so it offers the server almost no window."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.settimeout(60)  # a bound for a broken server, not a measurement
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1)  # before connecting: fixes the window
    sock.connect(("127.0.0.1", server.port))
    sock.sendall(request)
    return sock


TCP_ESTABLISHED = 1


def closed_by_peer(sock: socket.socket) -> bool:
    """Whether the peer has ended the connection, seen without reading from it (the state the
    kernel reports, the first field of struct tcp_info)."""
    info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)
    return struct.unpack("B", info[:1])[0] != TCP_ESTABLISHED


def wait_until_closed_by_peer(sock: socket.socket, bound: float = 90.0) -> bool:
    """Whether the peer ends the connection within ``bound`` seconds."""
    deadline = time.monotonic() + bound
    while time.monotonic() < deadline:
        if closed_by_peer(sock):
            return True
        time.sleep(0.2)
    return False


def test_clients_that_never_read_are_dropped_while_others_are_served(server):
    bundle = b"GET /bundle.js HTTP/1.1\r\nHost: x\r\n\r\n"
    body = b'{"code": "import sys; sys.stdout.write(\'x\' * %d)"}' % OUTPUT
    report = b"POST /api/run HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    report += b"Content-Length: %d\r\n\r\n" % len(body) + body
    # The client's whole share: half ask for the bundle, half for a big run report.
    readers = [slow_reader(server, bundle if i % 2 else report) for i in range(CAP)]
    try:
        # Another client is served meanwhile, a run included.
        transport = httpx.HTTPTransport(local_address="127.0.0.2")
        with httpx.Client(base_url=server.base_url, transport=transport, timeout=60) as other:
            assert other.get("/api/health").status_code == 200
            assert other.post("/api/run", json={"code": "print(6 * 7)"}).json()["stdout"] == "42\n"
        # Each reader is dropped by the server, short of its whole response.
        for sock in readers:
            assert wait_until_closed_by_peer(sock)
            assert len(read_all(sock)) < min(BUNDLE, OUTPUT)
    finally:
        for sock in readers:
            sock.close()
    # Their connections are freed: the client may hold its whole share again.
    held = [connect(server) for _ in range(CAP)]
    try:
        for sock in held:
            sock.sendall(b"GET /api/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        for sock in held:
            assert read_all(sock).startswith(b"HTTP/1.1 200 ")
    finally:
        for sock in held:
            sock.close()


# A run report this large: even after the kernel takes what it buffers for a socket (Linux's
# tcp_wmem allows up to 4 MiB) 12 MiB of it stay in the server.
HELD_OUTPUT = 16 << 20


@pytest.fixture(scope="module")
def budgeted_server(tmp_path_factory):
    """A server whose send deadline is far off (10 min), so only the budget for unsent responses
    (HELD_OUTPUT: room for one such report's remainder, not two) can free what never-reading
    clients hold. Six runs queue for its one worker: the queue's own deadline is far off too."""
    settings = {
        "runner": PLAIN,
        "database_path": tmp_path_factory.mktemp("db") / "s.sqlite",
        "workers": 1,
        "queue_timeout": 300,
        "send_seconds": 600,
        "unsent_bytes": HELD_OUTPUT,
        "output_bytes": HELD_OUTPUT + (1 << 20),
        "web_dist": tmp_path_factory.mktemp("web"),
    }
    with ServerProcess(settings, log_path=str(tmp_path_factory.mktemp("log") / "server.log")) as s:
        yield s


def test_what_never_reading_clients_hold_together_is_bounded(budgeted_server):
    # Many clients (each its own address, so no per-client cap applies) ask for a large run report
    # and never read it. Their send deadline is 10 minutes away: without a global budget all their
    # reports stay in the server's memory until then. With it, the oldest backlogs are reset as
    # newer reports are written, so at most one besides the newest is held at once.
    body = b'{"code": "import sys; sys.stdout.write(\'x\' * %d)"}' % HELD_OUTPUT
    report = b"POST /api/run HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    report += b"Content-Length: %d\r\n\r\n" % len(body) + body
    readers = []
    try:
        for i in range(6):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.settimeout(60)  # a bound for a broken server, not a measurement
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1)
            sock.bind((f"127.0.1.{i + 1}", 0))
            sock.connect(("127.0.0.1", budgeted_server.port))
            sock.sendall(report)
            readers.append(sock)
        deadline = time.monotonic() + 240  # a bound that fails the test, far short of the 600 s
        while time.monotonic() < deadline:
            if sum(map(closed_by_peer, readers)) >= len(readers) - 2:
                break
            time.sleep(0.2)
        assert sum(map(closed_by_peer, readers)) >= len(readers) - 2
        assert not all(map(closed_by_peer, readers))  # the newest report is never the one reset
        # A client that reads gets its large report whole meanwhile.
        transport = httpx.HTTPTransport(local_address="127.0.0.2")
        with httpx.Client(base_url=budgeted_server.base_url, transport=transport, timeout=60) as other:
            answer = other.post(
                "/api/run", json={"code": "import sys; sys.stdout.write('y' * %d)" % HELD_OUTPUT}
            )
            assert answer.json()["stdout"] == "y" * HELD_OUTPUT
    finally:
        for sock in readers:
            sock.close()


def test_a_silent_connection_is_closed(server):
    sock = connect(server)
    try:
        assert read_all(sock) == b""  # nothing was asked: closed without an answer
    finally:
        sock.close()


AMBIGUOUS = {
    "length and chunked": b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n",
    "chunked and length": b"Transfer-Encoding: chunked\r\nContent-Length: 5\r\n",
    "length twice, equal": b"Content-Length: 5\r\nContent-Length: 5\r\n",
    "length listed twice": b"Content-Length: 5, 5\r\n",
    "length twice, differing": b"Content-Length: 5\r\nContent-Length: 44\r\n",
    "length and chunked, odd case": b"content-LENGTH: 5\r\ntransfer-encoding: Chunked\r\n",
}


@pytest.mark.parametrize("headers", AMBIGUOUS.values(), ids=AMBIGUOUS.keys())
def test_ambiguous_body_length_is_refused(server, headers):
    # The body holds what a parser taking the other length would read as a second request.
    smuggled = b"GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n"
    body = b"0\r\n\r\n" + smuggled
    request = b"POST /api/snippets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" + headers
    sock = connect(server)
    try:
        sock.sendall(request + b"\r\n" + body)
        answer = read_all(sock)
    finally:
        sock.close()
    assert answer.startswith(b"HTTP/1.1 400 "), answer
    assert answer.count(b"HTTP/1.1 ") == 1  # one answer, then closed: nothing smuggled through


def test_unambiguous_framing_is_served(server):
    # One length, or chunked alone: served as before (422: the body is no snippet).
    for framing, body in (
        (b"Content-Length: 2\r\n", b"{}"),
        (b"Transfer-Encoding: chunked\r\n", b"2\r\n{}\r\n0\r\n\r\n"),
    ):
        sock = connect(server)
        try:
            sock.sendall(
                b"POST /api/snippets HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                b"Content-Type: application/json\r\n" + framing + b"\r\n" + body
            )
            answer = read_all(sock)
        finally:
            sock.close()
        assert answer.startswith(b"HTTP/1.1 422 "), answer


def test_framing_problem_reads_fields_as_h11_does():
    head = b"POST / HTTP/1.1\r\nX-Note: Content-Length: 5\r\nContent-Length: 5\r\n"
    assert framing_problem(head) is None  # a value that mentions the name is no field
    folded = b"POST / HTTP/1.1\r\nX-Note: a\r\n Content-Length: 5\r\nContent-Length: 5\r\n"
    assert framing_problem(folded) is None  # a folded line continues X-Note
    assert framing_problem(b"POST / HTTP/1.1\nContent-Length: 1\nContent-Length: 1\n") is not None


@pytest.fixture(scope="module")
def balancer(server):
    """nginx in front of the server with the repository's config (docker/nginx/jaxplay.conf.template),
    from Debian's nginx-light, which make install-test installs where apt-get works."""
    if not (shutil.which("nginx") or os.path.exists("/usr/sbin/nginx")):
        if shutil.which("apt-get") and os.geteuid() == 0:
            pytest.fail("nginx is missing but installable here: run make install-test (Debian's nginx-light)")
        pytest.skip("nginx is not installed, and cannot be here (Debian's nginx-light needs apt-get as root)")
    with Nginx([f"127.0.0.1:{server.port}"]) as n:
        yield n


RUN_HEAD = (
    b"POST /api/run HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n"
)


def test_the_balancer_caps_a_clients_slow_bodies(balancer):
    # The replicas do not count the balancer's connections per client, so it caps them itself
    # (32 per address).
    held = []
    try:
        for _ in range(32):
            sock = connect(balancer)
            sock.sendall(RUN_HEAD + b'{"code": ')  # the rest of the body never comes
            held.append(sock)
        extra = connect(balancer)
        extra.sendall(RUN_HEAD + b'{"code": ')
        refused = read_all(extra)
        extra.close()
        assert refused.startswith(b"HTTP/1.1 429 "), refused
        transport = httpx.HTTPTransport(local_address="127.0.0.2")
        with httpx.Client(base_url=balancer.base_url, transport=transport, timeout=60) as other:
            assert other.post("/api/run", json={"code": "print(6 * 7)"}).json()["stdout"] == "42\n"
    finally:
        for sock in held:
            sock.close()


def test_the_balancer_cuts_slow_heads_stalled_bodies_and_readers_that_stop(balancer):
    # Its own deadlines end these (client_header_timeout, client_body_timeout: 10 s; send_timeout:
    # 30 s), the first two before any replica sees them. The head keeps coming, a byte every 0.2 s,
    # for 200 s and never ends: the head's deadline is for all of it. Bounds that fail the test:
    # 30 s without an answer or a close for the head and body, 55 s for the reader (nginx's own
    # defaults, were the config to lose its lines, are 60 s).
    reader = slow_reader(balancer, b"GET /bundle.js HTTP/1.1\r\nHost: x\r\n\r\n")
    head = b"GET /api/health HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"a" * 1000
    stop = threading.Event()
    loris = connect(balancer, "127.0.0.3")
    stalled = connect(balancer, "127.0.0.3")
    stalled.sendall(RUN_HEAD + b'{"code": ')
    for sock in (loris, stalled):
        sock.settimeout(30)
    dripping = threading.Thread(target=drip, args=(loris, head, stop), daemon=True)
    dripping.start()
    try:
        transport = httpx.HTTPTransport(local_address="127.0.0.2")
        with httpx.Client(base_url=balancer.base_url, transport=transport, timeout=60) as other:
            assert other.post("/api/run", json={"code": "print(6 * 7)"}).json()["stdout"] == "42\n"
        for sock in (loris, stalled):
            answer = read_all(sock)  # nginx closes these without an answer (or with a 408)
            assert answer == b"" or answer.startswith(b"HTTP/1.1 408 "), answer
        # The reader is reset (reset_timedout_connection: a plain close would leave the kernel
        # holding its unsent output), short of the bundle.
        assert wait_until_closed_by_peer(reader, bound=55)
        assert len(read_all(reader)) < BUNDLE
    finally:
        stop.set()
        dripping.join()
        for sock in (loris, stalled, reader):
            sock.close()
