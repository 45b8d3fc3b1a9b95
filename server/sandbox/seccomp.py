"""A seccomp filter as a hand-assembled classic-BPF program, installed with ctypes.

The filter is a deny-list on top of namespaces, rlimits and a separate uid: Python, numpy,
numba and multiprocessing use too wide a set of system calls for an allow-list to stay
maintainable, so instead we close the doors that matter for escaping or for hurting others:
sockets (stream socketpairs of AF_UNIX stay, multiprocessing and pmap need them; nothing that
takes an address), tracing, signals outside the run's process group, async-I/O signal
redirection (F_SETOWN, FIOSETOWN, SIOCSPGRP), other processes' rlimits, pidfds, new
namespaces, mounts, bpf, io_uring, keyrings, modules, System V IPC and POSIX message queues
(they outlive a run), memfds and growing socket buffers (memory the watchdog cannot measure), and leaving the process group (so killing the group kills all).
Only x86_64 is supported; elsewhere ``supported()`` is False and the probe logs that.
"""

from __future__ import annotations

import ctypes
import errno
import platform
import struct

# --- classic BPF opcodes -----------------------------------------------------------------------
LD_W_ABS = 0x20
JEQ_K = 0x15
JGE_K = 0x35
JSET_K = 0x45
RET_K = 0x06
ALU_AND_K = 0x54

RET_KILL_PROCESS = 0x80000000
RET_ERRNO = 0x00050000
RET_ALLOW = 0x7FFF0000

AUDIT_ARCH_X86_64 = 0xC000003E
X32_SYSCALL_BIT = 0x40000000

# offsets into struct seccomp_data
OFF_NR, OFF_ARCH = 0, 4


def off_arg_lo(i: int) -> int:
    return 16 + 8 * i  # little endian: the low 32 bits come first


def off_arg_hi(i: int) -> int:
    return 20 + 8 * i


# x86_64 system call numbers
NR = dict(
    ioctl=16,
    shmget=29,
    sendto=44,
    connect=42,
    accept=43,
    bind=49,
    listen=50,
    semget=64,
    msgget=68,
    mq_open=240,
    memfd_create=319,
    memfd_secret=447,
    accept4=288,
    prlimit64=302,
    socket=41,
    socketpair=53,
    setsockopt=54,
    clone=56,
    kill=62,
    fcntl=72,
    ptrace=101,
    syslog=103,
    setpgid=109,
    setsid=112,
    rt_sigqueueinfo=129,
    personality=135,
    vhangup=153,
    pivot_root=155,
    adjtimex=159,
    chroot=161,
    acct=163,
    settimeofday=164,
    mount=165,
    umount2=166,
    swapon=167,
    swapoff=168,
    reboot=169,
    sethostname=170,
    setdomainname=171,
    iopl=172,
    ioperm=173,
    init_module=175,
    delete_module=176,
    quotactl=179,
    tkill=200,
    clock_settime=227,
    tgkill=234,
    kexec_load=246,
    add_key=248,
    request_key=249,
    keyctl=250,
    unshare=272,
    rt_tgsigqueueinfo=297,
    perf_event_open=298,
    name_to_handle_at=303,
    open_by_handle_at=304,
    setns=308,
    process_vm_readv=310,
    process_vm_writev=311,
    kcmp=312,
    finit_module=313,
    kexec_file_load=320,
    bpf=321,
    userfaultfd=323,
    pidfd_send_signal=424,
    io_uring_setup=425,
    io_uring_enter=426,
    io_uring_register=427,
    open_tree=428,
    move_mount=429,
    fsopen=430,
    fsconfig=431,
    fsmount=432,
    fspick=433,
    pidfd_open=434,
    clone3=435,
    pidfd_getfd=438,
    mount_setattr=442,
)

ALWAYS_DENIED = [
    "socket",
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "kcmp",
    "tkill",
    "pidfd_open",
    "pidfd_send_signal",
    "pidfd_getfd",
    "mount",
    "umount2",
    "mount_setattr",
    "open_tree",
    "move_mount",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "pivot_root",
    "chroot",
    "unshare",
    "setns",
    "bpf",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "perf_event_open",
    "keyctl",
    "add_key",
    "request_key",
    "userfaultfd",
    "kexec_load",
    "kexec_file_load",
    "init_module",
    "finit_module",
    "delete_module",
    "reboot",
    "swapon",
    "swapoff",
    "acct",
    "quotactl",
    "name_to_handle_at",
    "open_by_handle_at",
    "syslog",
    "vhangup",
    "settimeofday",
    "clock_settime",
    "adjtimex",
    "sethostname",
    "setdomainname",
    "iopl",
    "ioperm",
    "personality",
    # Staying in the run's process group is what makes "kill the group" kill every descendant.
    "setsid",
    "setpgid",
    # A socket pair is already connected: naming an address could only reach something outside.
    "connect",
    "bind",
    "listen",
    "accept",
    "accept4",
    # System V and POSIX message-queue objects outlive the processes that made them.
    "shmget",
    "semget",
    "msgget",
    "mq_open",
    # Memory no file system holds: a memfd's pages are in no process's PSS until mapped and
    # touched, and in none of the run's tmpfs mounts, so the memory watchdog cannot see them.
    "memfd_create",
    "memfd_secret",
]

AF_UNIX = 1
SOL_SOCKET = 1
# A socket's buffers are kernel memory the watchdog charges at the default size (slot.SOCKET_CHARGE);
# growing them (up to net.core.wmem_max, MiBs each) would hold memory it cannot see.
BUFFER_SIZE_OPTIONS = (7, 8, 32, 33)  # SO_SNDBUF, SO_RCVBUF, SO_SNDBUFFORCE, SO_RCVBUFFORCE
SOCK_STREAM, SOCK_SEQPACKET, SOCK_TYPE_MASK = 1, 5, 0xF
F_SETOWN, F_SETSIG, F_SETOWN_EX = 8, 10, 15
TIOCSTI, TIOCLINUX = 0x5412, 0x541C
FIOSETOWN, SIOCSPGRP = 0x8901, 0x8902  # ioctl twins of F_SETOWN: who gets SIGIO/SIGURG
NAMESPACE_FLAGS = 0x00020000 | 0x40000000 | 0x10000000 | 0x20000000 | 0x08000000 | 0x04000000 | 0x02000000


def supported() -> bool:
    return platform.system() == "Linux" and platform.machine() == "x86_64"


Target = int | str  # a jump: an offset, or a label resolved by ``assemble``


class Assembler:
    """Instructions with symbolic forward jump targets, resolved to relative offsets at the end."""

    def __init__(self) -> None:
        self.code: list[tuple[int, Target, Target, int]] = []
        self.labels: dict[str, int] = {}

    def emit(self, code: int, k: int = 0, jt: Target = 0, jf: Target = 0) -> None:
        self.code.append((code, jt, jf, k & 0xFFFFFFFF))

    def label(self, name: str) -> None:
        self.labels[name] = len(self.code)

    def assemble(self) -> bytes:
        out = []
        for pc, (code, jt, jf, k) in enumerate(self.code):
            offs: list[int] = []
            for target in (jt, jf):
                if isinstance(target, str):
                    delta = self.labels[target] - pc - 1
                    if not 0 <= delta <= 255:
                        raise ValueError(f"jump to {target} out of range")
                    offs.append(delta)
                else:
                    offs.append(target)
            out.append(struct.pack("=HBBI", code, offs[0], offs[1], k))
        return b"".join(out)


PGID_PLACEHOLDER = 0x7FFFFFFE


class FilterTemplate:
    """The filter assembled once (in the zygote) with a placeholder where the run's process group
    goes; ``for_group`` patches in the real group, so a run pays for no assembly."""

    def __init__(self, protected_pids: tuple[int, ...] = ()):
        self.program = build_filter(PGID_PLACEHOLDER, protected_pids)
        needle = struct.pack("=HBBI", JEQ_K, 0, 0, -PGID_PLACEHOLDER & 0xFFFFFFFF)
        matches = [
            i
            for i in range(0, len(self.program), 8)
            if self.program[i : i + 2] == needle[:2] and self.program[i + 4 : i + 8] == needle[4:]
        ]
        if len(matches) != 1:
            raise ValueError("the process-group test is not unique in the filter")
        self.offset = matches[0] + 4

    def for_group(self, pgid: int) -> bytes:
        program = bytearray(self.program)
        struct.pack_into("=I", program, self.offset, -pgid & 0xFFFFFFFF)
        return bytes(program)


def build_filter(pgid: int, protected_pids: tuple[int, ...] = ()) -> bytes:
    """The filter for a run whose process group is ``pgid``.

    ``kill``-like calls may target the caller's group (0 or -pgid) or single processes, except pid 1
    and ``protected_pids`` (the zygote, the server). Other negative targets, including -1, fail.
    A per-slot uid or user namespace stops signals to anything else the run does not own.
    """
    a = Assembler()
    a.emit(LD_W_ABS, OFF_ARCH)
    a.emit(JEQ_K, AUDIT_ARCH_X86_64, 0, "kill_process")
    a.emit(LD_W_ABS, OFF_NR)
    a.emit(JGE_K, X32_SYSCALL_BIT, "deny", 0)
    for name in ALWAYS_DENIED:
        a.emit(JEQ_K, NR[name], "deny", 0)
    a.emit(JEQ_K, NR["clone3"], "enosys", 0)  # flags live in memory BPF cannot read; libc falls back to clone
    a.emit(JEQ_K, NR["socketpair"], "socketpair", 0)
    for name in ("kill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo"):
        a.emit(JEQ_K, NR[name], "signal", 0)
    a.emit(JEQ_K, NR["fcntl"], "fcntl", 0)
    a.emit(JEQ_K, NR["clone"], "clone", 0)
    a.emit(JEQ_K, NR["ioctl"], "ioctl", 0)
    a.emit(JEQ_K, NR["prlimit64"], "prlimit", 0)
    a.emit(JEQ_K, NR["sendto"], "sendto", 0)
    a.emit(JEQ_K, NR["setsockopt"], "setsockopt", 0)
    a.emit(RET_K, RET_ALLOW)

    a.label("setsockopt")
    a.emit(LD_W_ABS, off_arg_lo(1))
    a.emit(JEQ_K, SOL_SOCKET, 0, "allow")
    a.emit(LD_W_ABS, off_arg_lo(2))
    for option in BUFFER_SIZE_OPTIONS:
        a.emit(JEQ_K, option, "deny", 0)
    a.emit(RET_K, RET_ALLOW)

    # Stream and seqpacket pairs ignore or refuse a destination address; datagram ones would
    # deliver to any unix socket path the run can see.
    a.label("socketpair")
    a.emit(LD_W_ABS, off_arg_lo(0))
    a.emit(JEQ_K, AF_UNIX, 0, "deny")
    a.emit(LD_W_ABS, off_arg_lo(1))
    a.emit(ALU_AND_K, SOCK_TYPE_MASK)
    a.emit(JEQ_K, SOCK_STREAM, "allow", 0)
    a.emit(JEQ_K, SOCK_SEQPACKET, "allow", "deny")

    # Only the caller's own limits (pid 0): never another process's.
    a.label("prlimit")
    a.emit(LD_W_ABS, off_arg_lo(0))
    a.emit(JEQ_K, 0, 0, "deny")
    a.emit(LD_W_ABS, off_arg_hi(0))
    a.emit(JEQ_K, 0, "allow", "deny")

    a.label("sendto")
    a.emit(LD_W_ABS, off_arg_lo(4))
    a.emit(JEQ_K, 0, 0, "deny")
    a.emit(LD_W_ABS, off_arg_hi(4))
    a.emit(JEQ_K, 0, "allow", "deny")

    a.label("signal")
    a.emit(LD_W_ABS, off_arg_lo(0))
    a.emit(JEQ_K, 0, "allow", 0)
    a.emit(JEQ_K, -pgid, "allow", 0)
    a.emit(JGE_K, 0x80000000, "deny", 0)  # any other negative target: another group, or -1 (everyone)
    for pid in (1, *protected_pids):
        a.emit(JEQ_K, pid, "deny", 0)
    a.emit(RET_K, RET_ALLOW)

    a.label("fcntl")
    a.emit(LD_W_ABS, off_arg_lo(1))
    for cmd in (F_SETOWN, F_SETSIG, F_SETOWN_EX):
        a.emit(JEQ_K, cmd, "deny", 0)
    a.emit(RET_K, RET_ALLOW)

    a.label("clone")
    a.emit(LD_W_ABS, off_arg_lo(0))
    a.emit(JSET_K, NAMESPACE_FLAGS, "deny", "allow")

    a.label("ioctl")
    a.emit(LD_W_ABS, off_arg_lo(1))
    for cmd in (TIOCSTI, FIOSETOWN, SIOCSPGRP):
        a.emit(JEQ_K, cmd, "deny", 0)
    a.emit(JEQ_K, TIOCLINUX, "deny", "allow")

    a.label("allow")
    a.emit(RET_K, RET_ALLOW)
    a.label("deny")
    a.emit(RET_K, RET_ERRNO | errno.EPERM)
    a.label("enosys")
    a.emit(RET_K, RET_ERRNO | errno.ENOSYS)
    a.label("kill_process")
    a.emit(RET_K, RET_KILL_PROCESS)
    return a.assemble()


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2


_libc = ctypes.CDLL(None, use_errno=True)  # loaded once in the zygote, not in every run
_libc.prctl  # noqa: B018  and the symbol resolved there too (a lookup through every loaded library)


def install(program: bytes) -> None:
    """Apply ``program`` to the calling thread (and everything it later forks). Irreversible."""
    libc = _libc
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
    buf = ctypes.create_string_buffer(program, len(program))
    prog = _SockFprog(len(program) // 8, ctypes.cast(buf, ctypes.c_void_p))
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP)")


def active() -> bool:
    try:
        with open("/proc/self/status") as f:
            return any(line.startswith("Seccomp:") and line.split()[1] == "2" for line in f)
    except OSError:
        return False
