"""Host callbacks (``pure_callback``, ``io_callback``) called by a program running on the
simulated devices run in the host process, as JAX runs them on the host: what they change (a list
they append to, a counter) is the program's own state, not a device process's copy.

The device sends the callback's number and its arguments over its socket and wakes the host, which
serves the request while it waits for the run to finish (``serve``), and blocks for the answer:
the results, or the error the callback raised, and what it printed, which the device then prints
itself, so that its output keeps its place among the device's other prints.

Each callback object is numbered when it is made (``register``); the numbers are the same in the
host and in devices forked from it or given a pickled program.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import pickle
import sys
import weakref
from typing import Any, Callable

import numpy as np

_callbacks: weakref.WeakValueDictionary[int, Any] = weakref.WeakValueDictionary()
_numbers = itertools.count()
# In a device process: (its socket to the host, a function waking the host); None on the host.
_link: list[tuple[Any, Callable[[], None]] | None] = [None]


def register(callback: Any) -> int:
    """A number for ``callback`` (held weakly: a program that can still run holds the callback);
    negative for one a device made itself (tracing a rule's expansion there), which it runs itself:
    the host does not have it."""
    n = next(_numbers)
    if on_device():
        return -1 - n
    _callbacks[n] = callback
    return n


def runs_on_host(callback: Any) -> bool:
    """Whether a device calls ``callback`` through the host."""
    return on_device() and getattr(callback, "host_number", -1) >= 0


class HostCallback:
    """What a device holds in place of a callback: its number (the function stays on the host,
    where it may have been defined after the devices were forked)."""

    def __init__(self, host_number: int):
        self.host_number = host_number


def stub(callback: Any) -> tuple | None:
    """How a program sent to the devices pickles ``callback``: as its number (None: not a callback)."""
    number = getattr(callback, "host_number", None)
    return None if number is None else (HostCallback, (number,))


def on_device() -> bool:
    return _link[0] is not None


def connect(conn, wake: Callable[[], None]) -> None:
    """Called by a device process when it starts."""
    _link[0] = (conn, wake)


def call(number: int, name: str, args) -> list:
    """In a device process: run callback ``number`` (of primitive ``name``) on the host with
    ``args``; its results."""
    from ..errors import JaxRuntimeError

    conn, wake = _link[0]  # type: ignore[misc]
    request = ("callback", number, name, [np.asarray(a) for a in args])
    conn.send_bytes(pickle.dumps(request, pickle.HIGHEST_PROTOCOL))
    wake()
    status, payload, printed = pickle.loads(conn.recv_bytes())
    if printed:
        sys.stdout.write(printed)
    if status == "error":
        raise JaxRuntimeError(payload)
    return payload


_early_replies: dict[int, bytes] = {}  # id(socket) -> a device's reply read while serving


def serve(conn) -> None:
    """On the host: answer every callback request waiting on a device's socket. (A device that
    finished sends a long reply there too: it is kept for ``receive``.)"""
    while id(conn) not in _early_replies and conn.poll(0):
        data = conn.recv_bytes()
        message = pickle.loads(data)
        if message[0] != "callback":
            _early_replies[id(conn)] = data
            return
        _, number, name, args = message
        conn.send_bytes(pickle.dumps(_run(number, name, args), pickle.HIGHEST_PROTOCOL))


def receive(conn) -> bytes:
    """The device's next message on ``conn``: one ``serve`` read early, else from the socket."""
    early = _early_replies.pop(id(conn), None)
    return conn.recv_bytes() if early is None else early


def _run(number: int, name: str, args) -> tuple[str, Any, str]:
    from .. import debug
    from ..callbacks import host_run

    callback = _callbacks.get(number)
    if callback is None:
        return "error", f"the host no longer has callback {number} of this program", ""
    printed = io.StringIO()
    line = lambda text, _device: printed.write(text + "\n")  # noqa: E731  (jax.debug.print's)
    with contextlib.redirect_stdout(printed), debug.capture(line):
        try:
            if name == "debug_callback":
                debug._call_back(callback, args)
                status, payload = "ok", []
            else:
                status, payload = "ok", [np.asarray(x) for x in host_run(callback, name, args)]
        except Exception as e:  # noqa: BLE001 - the device raises it in JAX's words
            status, payload = "error", str(e)
    return status, payload, printed.getvalue()
