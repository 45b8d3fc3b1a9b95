"""A run's attempts at the doors the seccomp filter closes that other tests do not knock on
(README, "The sandbox": tracing, namespaces, mounts, bpf, io_uring, keyrings, POSIX message
queues, naming an address on a pair), as raw system calls with arguments that work: run as an
unprivileged uid without the filter on the test host, all but bpf (unprivileged bpf is off) and
listen (EINVAL on a pair) went through. ``CODE`` is a run's program; ``not_refused`` reads its
output."""

from __future__ import annotations

import json

CODE = """
import ctypes, errno, json, os, signal, socket, time

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def call(nr, *args):
    ctypes.set_errno(0)
    r = libc.syscall(ctypes.c_long(nr), *(ctypes.c_long(a) if isinstance(a, int) else a for a in args))
    if r == 0 and nr == 56:  # a clone that went through: this is its child
        os._exit(0)
    return "allowed" if r >= 0 else errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))


class Iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]


buf = ctypes.create_string_buffer(64)
iov = Iovec(ctypes.addressof(buf), 8)  # the same address in a forked child
bpf_attr = ctypes.create_string_buffer(bytes([2, 0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0]), 64)
pair = socket.socketpair()
child = os.fork()
if child == 0:
    time.sleep(60)
    os._exit(0)
results = {
    "ptrace attach": call(101, 16, child, 0, 0),
    "process_vm_readv": call(310, child, ctypes.byref(iov), 1, ctypes.byref(iov), 1, 0),
    "mount": call(165, b"none", b"/tmp", b"tmpfs", 0, None),
    "umount2": call(166, b"/tmp", 2),
    "fsopen": call(430, b"tmpfs", 0),
    "open_tree": call(428, -100, b"/tmp", 1),
    "bpf": call(321, 0, bpf_attr, 64),
    "io_uring_setup": call(425, 4, ctypes.create_string_buffer(120)),
    "add_key": call(248, b"user", b"jaxplay-probe", b"v", 1, -2),
    "keyctl": call(250, 0, -2, 1),
    "request_key": call(249, b"user", b"jaxplay-probe", None, 0),
    "mq_open": call(240, b"jaxplay-probe", os.O_CREAT | os.O_RDWR, 0o600, None),
    "listen on a pair": call(50, pair[0].fileno(), 1),
    "setns": call(308, os.open("/proc/self/ns/net", os.O_RDONLY), 0),
    "clone into a user namespace": call(56, 0x10000000 | signal.SIGCHLD, 0, 0, 0, 0),
    "unshare user": call(272, 0x10000000),
    "unshare net": call(272, 0x40000000),
    "unshare mount": call(272, 0x00020000),
}
if results["mq_open"] == "allowed":
    call(241, b"jaxplay-probe")  # mq_unlink: a queue outlives the run
os.kill(child, signal.SIGKILL)
os.waitpid(child, 0)
status = dict(line.split(":", 1) for line in open("/proc/self/status"))
print("RESULT", status["Seccomp"].strip(), status["NoNewPrivs"].strip(), json.dumps(results))
"""


def not_refused(stdout: str) -> dict[str, str]:
    """What ``CODE`` printed that the filter did not answer with EPERM (each call's result), plus
    the process's seccomp mode and no_new_privs when they are not a filter that cannot be lifted."""
    seccomp_mode, no_new_privs, results = stdout.split("RESULT ", 1)[1].split(" ", 2)
    found = {k: v for k, v in json.loads(results).items() if v != "EPERM"}
    if (seccomp_mode, no_new_privs) != ("2", "1"):
        found["Seccomp, NoNewPrivs"] = f"{seccomp_mode}, {no_new_privs}"
    return found
