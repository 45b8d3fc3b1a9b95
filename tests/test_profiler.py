"""jax.profiler on the engine (engine/profiler.py): traces in JAX's directory layout, JAX's errors,
and a pprof memory profile whose samples are the live arrays' sizes."""

import gzip
import json
import pathlib

import pytest

import engine as jax
import engine.numpy as jnp
from engine import profiler


def _trace_events(log_dir: pathlib.Path) -> list[dict]:
    (path,) = log_dir.glob("plugins/profile/*/*.trace.json.gz")
    return json.loads(gzip.decompress(path.read_bytes()))["traceEvents"]


def test_trace_records_jit_work_and_annotations(tmp_path):
    @jax.profiler.annotate_function
    def step(x):
        return jax.jit(lambda x: jnp.sin(x) * 2)(x).block_until_ready()

    with jax.profiler.trace(tmp_path, create_perfetto_trace=True):
        with jax.profiler.TraceAnnotation("outer"):
            step(jnp.ones(3))
    names = [e["name"] for e in _trace_events(tmp_path)]
    assert "jit_trace <lambda>" in names and "jit_execute <lambda>" in names
    assert names[-2:] == ["test_trace_records_jit_work_and_annotations.<locals>.step", "outer"]
    (perfetto,) = tmp_path.glob("plugins/profile/*/perfetto_trace.json.gz")
    assert "metadata" not in json.loads(gzip.decompress(perfetto.read_bytes()))


def test_one_trace_at_a_time_and_stop_needs_a_start(tmp_path):
    jax.profiler.start_trace(tmp_path)
    with pytest.raises(RuntimeError, match="Profile has already been started"):
        jax.profiler.start_trace(tmp_path)
    jax.profiler.stop_trace()
    with pytest.raises(RuntimeError, match="No profile started"):
        jax.profiler.stop_trace()
    with pytest.raises(NotImplementedError, match="perfetto"):
        jax.profiler.start_trace(tmp_path, create_perfetto_link=True)


def _fields(buf: bytes) -> list[tuple[int, int | bytes]]:
    """The (field number, value) pairs of a protocol buffer message (varints and bytes only)."""
    out, i = [], 0

    def varint() -> int:
        nonlocal i
        n = shift = 0
        while True:
            b = buf[i]
            i += 1
            n |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                return n

    while i < len(buf):
        key = varint()
        if key & 7 == 0:
            out.append((key >> 3, varint()))
        else:
            n = varint()
            out.append((key >> 3, buf[i : i + n]))
            i += n
    return out


def test_device_memory_profile_samples_are_live_arrays(tmp_path):
    big = jnp.zeros((1000, 250))  # 1,000,000 bytes of float32
    profile = _fields(gzip.decompress(profiler.device_memory_profile()))
    strings = [v.decode() for k, v in profile if k == 6]
    assert strings[0] == "" and {"allocations", "count", "space", "bytes"} <= set(strings)
    functions = {dict(_fields(v))[1]: strings[dict(_fields(v))[2]] for k, v in profile if k == 5}
    sizes = [
        (functions[dict(_fields(v))[1]], [n for f, n in _fields(v) if f == 2]) for k, v in profile if k == 2
    ]
    assert ("f32[1000,250]", [1, big.nbytes]) in sizes
    jax.profiler.save_device_memory_profile(tmp_path / "memory.prof")
    assert gzip.decompress((tmp_path / "memory.prof").read_bytes())
