"""The device pool: crash recovery, and no orphan processes or shared memory after any exit."""

import errno
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import engine as jax
import engine.numpy as jnp
from engine import core, lax, monitoring
from engine.parallel import DeviceError, device_put_sharded, runtime

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# A primitive that kills the device process running it when its operand is 3.
crash_p = core.Primitive("crash_on_three")
crash_p.def_abstract_eval(lambda x: x)


@crash_p.def_impl
def _crash(x):
    if float(np.asarray(x)) == 3.0:
        os.kill(os.getpid(), signal.SIGKILL)
    return x


def crashy(x):
    return lax.psum(crash_p.bind(x), "i")


def test_dead_device_is_reported_and_the_pool_heals():
    runtime.shutdown()  # fresh workers that know crash_p
    f = jax.pmap(crashy, axis_name="i")
    np.testing.assert_allclose(f(jnp.array([0.0, 1.0, 2.0, 4.0])), [7.0] * 4)
    before = runtime.worker_pids()
    with pytest.raises(
        DeviceError, match=r"device 3 \(process \d+\) was killed by signal 9 .*pmap\(crashy\)"
    ):
        f(jnp.arange(4.0))
    assert not any(os.path.exists(f"/proc/{p}") and _state(p) != "Z" for p in before)
    np.testing.assert_allclose(f(jnp.array([0.0, 1.0, 2.0, 4.0])), [7.0] * 4)  # healed
    assert set(runtime.worker_pids()).isdisjoint(before)


@pytest.mark.skipif(jax.device_count() < 8, reason="needs 8 devices")
def test_a_run_forks_only_its_devices_and_later_ones_join():
    runtime.shutdown()
    psum = jax.pmap(lambda x: lax.psum(x, "i"), axis_name="i")
    np.testing.assert_allclose(psum(jnp.arange(4.0)), [6.0] * 4)
    first = runtime.worker_pids()
    assert len(first) == 4
    # four more join the running four; collectives span old and new devices
    np.testing.assert_allclose(psum(jnp.arange(8.0)), [28.0] * 8)
    assert len(runtime.worker_pids()) == 8 and runtime.worker_pids()[:4] == first
    np.testing.assert_allclose(psum(jnp.arange(4.0) + 1), [10.0] * 4)
    np.testing.assert_allclose(
        jax.pmap(lambda x: lax.pmax(x, "i"), axis_name="i")(jnp.arange(8.0)), [7.0] * 8
    )


def test_device_side_exception_names_the_device():
    runtime.shutdown()
    bad_p = core.Primitive("bad")
    bad_p.def_abstract_eval(lambda x: x)
    bad_p.def_impl(lambda x: (_ for _ in ()).throw(ZeroDivisionError("boom")) if float(x) == 2 else x)
    with pytest.raises(ZeroDivisionError, match="on device 2 while running pmap"):
        jax.pmap(lambda x: lax.psum(bad_p.bind(x), "i"), axis_name="i")(jnp.arange(4.0))
    np.testing.assert_allclose(jax.pmap(lambda x: lax.psum(x, "i"), axis_name="i")(jnp.ones(4)), [4.0] * 4)


def test_many_collectives_in_a_row_keep_their_order():
    """Barriers on rotating counters and alternating exchange regions: a long chain of small and
    large collectives (with axis_index between them, which has no barrier) stays consistent."""

    def chain(x):
        for _ in range(12):
            x = x + lax.psum(x, "i") * 1e-3 + lax.axis_index("i")
            x = x - lax.pmax(x, "i") * 1e-3
        return x

    x = np.random.default_rng(3).standard_normal((jax.device_count(), 20_000)).astype(np.float32)
    got = jax.pmap(chain, axis_name="i")(x)
    want = jax.vmap(chain, axis_name="i")(x)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-5)


openblas_threads_p = core.Primitive("openblas_threads")
openblas_threads_p.def_abstract_eval(lambda x: x)


@openblas_threads_p.def_impl
def _openblas_threads(x):
    import ctypes

    with open("/proc/self/maps") as f:  # (numpy's own: scipy, once imported, maps another)
        paths = [ln.split()[-1] for ln in f if "openblas" in ln.lower() and "/" in ln]
    path = next((p for p in paths if "numpy" in p), paths[0])
    lib = ctypes.CDLL(path)
    get = next(
        getattr(lib, n)
        for n in (
            "openblas_get_num_threads",
            "scipy_openblas_get_num_threads64_",
            "scipy_openblas_get_num_threads_64_",
        )
        if hasattr(lib, n)
    )
    return np.full_like(x, get())


def test_devices_share_the_cores_out_for_blas():
    from engine.parallel import worker

    if not any("openblas" in ln.lower() for ln in open("/proc/self/maps")):
        pytest.skip("numpy is not linked to OpenBLAS here")
    runtime.shutdown()  # fresh workers that know the primitive
    n = jax.device_count()
    per_device = worker.blas_threads(n)
    assert per_device == max(1, (os.cpu_count() or 1) // n)
    got = jax.pmap(lambda x: openblas_threads_p.bind(x))(jnp.zeros(n))
    np.testing.assert_array_equal(np.asarray(got), [per_device] * n)


def _state(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0]
    except OSError:
        return None


def _gone(pids, timeout=5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        alive = [p for p in pids if _state(p) not in (None, "Z")]
        if not alive:
            return True
        time.sleep(0.05)
    return False


# The program takes Ctrl-C as a terminal's foreground job does, with Python's handler, whatever it
# inherited: a non-interactive shell starts background jobs (`make test &`) with SIGINT ignored,
# an ignored signal stays ignored across exec, and Python then installs no handler (the host would
# loop on through the test's SIGINT).
SCRIPT = textwrap.dedent("""
    import os, signal, sys, time
    signal.signal(signal.SIGINT, signal.default_int_handler)
    import engine as jax, engine.numpy as jnp
    from engine import lax
    from engine.parallel import runtime
    f = jax.pmap(lambda x: lax.psum(x, 'i'), axis_name='i')
    f(jnp.arange(8.))
    print('PIDS', os.getpid(), *runtime.worker_pids(), flush=True)
    mode = sys.argv[1]
    if mode == 'raise':
        raise RuntimeError('user error')
    if mode == 'loop':
        while True:
            f(jnp.arange(8.))
""")


def _shm_files(pid):
    return (
        [n for n in os.listdir("/dev/shm") if n.startswith(f"engine-{pid}-")]
        if os.path.isdir("/dev/shm")
        else []
    )


@pytest.mark.parametrize("mode", ["exit", "raise", "sigint", "sigkill"])
def test_no_orphans_or_leaked_shared_memory(mode, tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, PYTHONPATH=ROOT, ENGINE_DEVICE_COUNT="8")
    env.pop("XLA_FLAGS", None)
    proc = subprocess.Popen(
        [sys.executable, str(script), "loop" if mode.startswith("sig") else mode],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,
    )
    line = proc.stdout.readline()
    assert line.startswith("PIDS"), proc.stderr.read()
    host, *workers = map(int, line.split()[1:])
    assert len(workers) == 8
    if mode == "sigint":  # Ctrl-C: the whole foreground group gets it
        time.sleep(0.2)
        os.killpg(proc.pid, signal.SIGINT)
    elif mode == "sigkill":
        time.sleep(0.2)
        os.kill(host, signal.SIGKILL)
    try:
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    err = proc.stderr.read()
    if mode == "sigint":
        assert "KeyboardInterrupt" in err
    assert _gone(workers), f"orphan device processes after {mode}: {workers}"
    assert not _shm_files(host)


def test_collecting_device_buffers_runs_no_python_code():
    """Python code run by the collector (a ``__del__``) is where a Ctrl-C gets printed as
    "Exception ignored in" and dropped: a program looping on pmap then never stops (1 Ctrl-C in
    20 was lost under load). Collecting a buffer only queues its block; the next alloc frees it."""
    pool = runtime.get_runtime()
    allocator = pool.allocators[0]
    before = allocator.bytes_in_use
    bufs = pool.alloc_each([0, 0, 0], (256,), np.float32)
    assert allocator.bytes_in_use == before + 3 * 1024
    frames: list = []
    sys.setprofile(lambda frame, event, arg: frames.append(frame.f_code.co_name) if event == "call" else None)
    try:
        del bufs
    finally:
        sys.setprofile(None)
    assert frames == []
    assert allocator.bytes_in_use == before
    again = pool.alloc(0, (256,), np.float32)  # a freed block is handed out again
    assert allocator.bytes_in_use == before + 1024 and again.offset >= 0


@pytest.mark.parametrize("other_thread", [False, True], ids=["alone", "beside_a_thread"])
def test_ctrl_c_while_devices_start_leaves_none_unrecorded(monkeypatch, other_thread):
    """A Ctrl-C that lands while the host forks its devices is taken once every fork is recorded:
    a device forked but not entered in the pool would be nobody's to stop. With another thread
    running (a server's, a test run's), the kernel may hand the signal to that thread."""
    done = threading.Event()
    if other_thread:
        threading.Thread(target=done.wait, daemon=True).start()
    runtime.shutdown()
    pool = runtime.get_runtime()
    fork = pool._fork

    def fork_then_ctrl_c(slot):
        worker = fork(slot)
        if slot == 0:
            os.kill(os.getpid(), signal.SIGINT)
        return worker

    monkeypatch.setattr(pool, "_fork", fork_then_ctrl_c)
    # (as a terminal's foreground job: a test run started in the background ignores SIGINT)
    saved = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            pool.start()
    finally:
        signal.signal(signal.SIGINT, saved)
    pids = [w.pid for w in pool.workers if w is not None]
    done.set()
    assert len(pids) == pool.n
    runtime.shutdown()
    assert _gone(pids)


def test_small_and_large_shards_reach_the_devices_in_c_order():
    # Shards up to SMALL_PUT_BYTES are copied as bytes, larger ones through an array view: both
    # paths give each device its piece, from contiguous and strided inputs of several dtypes.
    n = min(4, jax.device_count())
    base = np.arange(n * 6 * 1100, dtype=np.float32).reshape(n, 6, 1100)
    cases = [
        base[:, :2, :3],  # small, strided
        base[:, ::2, :],  # 8.8 KB per device, strided
        base[:, 0, 0].astype(np.int32),  # 0-d pieces
        (base[:, :3, :5] > 50).astype(np.bool_),
        base[:, :, :],  # contiguous, large
    ]
    f = jax.pmap(lambda v: jnp.logical_not(v) if v.dtype == np.bool_ else -v)
    for x in cases:
        got = np.asarray(f(jnp.asarray(x)))
        assert got.dtype == x.dtype and np.array_equal(got, ~x if x.dtype == np.bool_ else -x)


def test_pmap_programs_pickle_to_the_devices():
    # A program that does not pickle reaches the devices only by forking them again; source info
    # (which holds a code object to find the column) must pickle, with its column.
    import pickle

    from engine.parallel import programs

    closed = jax.make_jaxpr(lambda x: jnp.sin(x) * 2.0)(1.0)
    programs.dumps(closed)
    info = closed.jaxpr.eqns[0].source_info
    assert info is not None and info.column is not None
    back = pickle.loads(pickle.dumps(info))
    assert (back.file, back.line, back.function, back.column) == (
        info.file,
        info.line,
        info.function,
        info.column,
    )


def test_reductions_of_program_inputs_read_every_copy_in_place():
    """A psum/pmax/pmin whose operand is a program input reads each device's copy where the host
    wrote it: no exchange and no barrier (the record shows no device waiting), also when a copy
    lies beyond what the reading device has mapped of that device's memory (its arena grew since),
    and the results are those of the same reductions of computed operands (which do exchange)."""
    n = jax.device_count()
    f = jax.pmap(
        lambda v: (lax.psum(v, "i"), lax.pmax(v, "i"), lax.pmin(v, "i"), lax.psum(v * 1.0, "i")),
        axis_name="i",
    )
    x = np.random.default_rng(4).standard_normal((n, 4000)).astype(np.float32)
    f(x)  # every device is up and has mapped every arena at its current size
    last = jax.devices()[n - 1]
    mapped = runtime.get_runtime().arenas[n - 1].size
    fillers = [jax.device_put(x[0], last)]
    while fillers[-1]._buffers[0].offset < mapped:  # fill the last device's memory up to there
        fillers.append(jax.device_put(x[0], last))
    on_devices = device_put_sharded(list(x), jax.devices()[:n])
    assert on_devices._buffers[-1].offset >= mapped
    events = []
    with monitoring.listen(lambda kind, data: events.append((kind, data))):
        total, top, bottom, computed = f(on_devices)
    np.testing.assert_array_equal(np.asarray(total), np.asarray(computed))
    np.testing.assert_allclose(np.asarray(total), np.broadcast_to(x.sum(0), x.shape), rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(top), np.broadcast_to(x.max(0), x.shape))
    np.testing.assert_array_equal(np.asarray(bottom), np.broadcast_to(x.min(0), x.shape))
    (rec,) = [d for k, d in events if k == "pmap_execute"]
    waits = [set(e["waits_ms"].values()) for e in rec["collectives"]]
    assert waits[:3] == [{0.0}, {0.0}, {0.0}]  # the inputs' reductions: nobody waited


def test_a_forked_host_whose_inherited_descriptors_were_closed_runs_pmap():
    """A sandboxed run is a fork of a zygote that had a device pool, with every descriptor it does
    not hand over closed. Its new pool's arenas reuse those numbers; the parent's pool, let go of,
    must not close them (its mmap objects did: the arena's number then became a socket's and the
    first growth failed, ``OSError: [Errno 22] Invalid argument`` from ftruncate)."""
    f = jax.pmap(lambda x: x * 2.0)
    f(jnp.ones((8, 4)))  # a pool with running devices, as the zygote's
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the "run": keep only the pipe home (as the sandbox keeps its result pipe)
        code = 1
        try:
            os.dup2(write, 3)
            os.closerange(4, 1 << 16)
            out = np.asarray(f(jnp.ones((8, 600, 600))))  # 1.4 MB a device: the arenas grow
            os.write(3, repr(float(out.sum())).encode())
            code = 0
        except BaseException as e:
            os.write(3, repr(e).encode())
        finally:
            os._exit(code)
    os.close(write)
    with os.fdopen(read) as r:
        said = r.read()
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, said
    assert said == repr(2.0 * 8 * 600 * 600)


def test_device_memory_growth_names_the_file_size_limit():
    """A device's arrays live in one shared-memory file, so RLIMIT_FSIZE bounds them: growth stays
    within the limit when what is needed fits, and past it the error says which limit refused it."""
    import resource

    from engine.parallel.shm import DeviceMemoryError

    runtime.shutdown()
    rt = runtime.get_runtime()
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (6 << 20, hard))
    try:
        first = rt.put(0, np.ones(7 << 17, np.float32))  # 3.5 MiB
        # 5 MiB needed; doubling would ask for 7 MiB, over the limit: the arena takes 6 MiB
        second = rt.put(0, np.full(3 << 17, 2.0, np.float32))
        assert rt.arenas[0].size == 6 << 20
        assert second.read().sum() == 2.0 * (3 << 17) and first.read().sum() == 7 << 17
        with pytest.raises(DeviceMemoryError) as info:
            rt.put(0, np.ones(2 << 20, np.float32))  # 8 MiB more: 13 MiB with the free 1 MiB at the end
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        runtime.shutdown()
    message = str(info.value)
    assert isinstance(info.value, OSError) and info.value.errno == errno.EFBIG
    assert "could not grow a device's memory to 13.0 MiB" in message, message
    assert "larger than 6 MiB" in message and "RLIMIT_FSIZE" in message and "[Errno" not in message


def test_messages_larger_than_a_socket_buffer_reach_the_devices_and_back():
    """A program closing over a large constant goes to a running pool through the device's socket,
    as does a device's long error: the host used to send before ringing the device, and the device
    to send before counting itself done, so a message over the socket's buffer hung both sides."""
    code = textwrap.dedent(
        """
        import numpy as np
        import engine as jax, engine.numpy as jnp
        from engine import core, lax
        long_p = core.Primitive("long_error")  # (defined before the devices fork: they know it)
        long_p.def_abstract_eval(lambda x: x)
        long_p.def_impl(lambda x: (_ for _ in ()).throw(ValueError("x" * 1_000_000)) if float(x) == 1 else x)
        n = jax.device_count()
        jax.pmap(lambda x: x * 2)(jnp.arange(float(n)))  # (the pool runs: later programs are sent)
        big = np.arange(300_000, dtype=np.float32)  # 1.2 MB in the program
        print(np.asarray(jax.pmap(lambda x: x + jnp.sum(jnp.asarray(big[:4])) + jnp.asarray(big)[-1])(jnp.zeros(n)))[0])
        try:
            jax.pmap(lambda x: lax.psum(long_p.bind(x), "i"), axis_name="i")(jnp.arange(float(n)))
        except ValueError as e:
            print(len(str(e)) >= 1_000_000)
        """
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["300005.0", "True"]
