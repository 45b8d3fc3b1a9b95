"""Importing the engine leaves its heavy optional modules unimported until a program needs them:
ml_dtypes (most of a second) until a narrow dtype is named, numba until a jit compiles or a float32
exp/log/tanh/... runs (XLA's kernels, engine/lax/xla_f32.py). Each check
runs in a fresh interpreter, as the modules a test process has imported say nothing."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
LAZY = ("ml_dtypes", "numba", "scipy")


def _run(code: str) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.splitlines()[-1])


def _loaded_after(imports: str) -> dict:
    return _run(f"import json, sys\n{imports}\nprint(json.dumps({{m: m in sys.modules for m in {LAZY!r}}}))")


def test_import_engine_leaves_heavy_optional_modules_unimported():
    loaded = _loaded_after("import engine, engine.numpy, engine.lax, engine.random")
    assert not any(loaded.values()), loaded


def test_import_jax_through_compat_leaves_them_unimported():
    """The playground's path (and ``python -m engine run``'s): ``import jax`` resolved to the engine."""
    loaded = _loaded_after(
        "from engine import compat\ncompat.install()\nimport jax, jax.numpy, jax.lax, jax.nn, jax.dtypes"
    )
    assert not any(loaded.values()), loaded


def test_a_plain_program_does_not_import_ml_dtypes():
    loaded = _loaded_after(
        "import engine as jax, engine.numpy as jnp\n"
        "x = jnp.arange(4.0)\n"
        "jax.grad(lambda x: jnp.sum(jnp.tanh(x) * jnp.finfo(jnp.float32).eps))(x)\n"
        "jax.vmap(jnp.cumsum)(x.reshape(2, 2).astype(jnp.int8)); jnp.iinfo(jnp.int32)\n"
        "jax.dtypes.itemsize_bits('float32'); jnp.issubdtype(x.dtype, jnp.floating)"
    )
    assert not loaded["ml_dtypes"]


def test_narrow_dtypes_work_however_they_are_first_named():
    """By attribute, by name (numpy knows the names only once ml_dtypes is imported), or by the
    user's own ml_dtypes: each fresh process computes as with the engine's tables loaded."""
    checks = {
        "attribute": "y = (jnp.ones(3, jnp.bfloat16) / 3).astype(jnp.float32)",
        "name": "y = (jnp.ones(3, 'bfloat16') / 3).astype('float32')",
        "lax name": "y = jax.lax.convert_element_type(jnp.ones(3) / 3, 'bfloat16').astype('float32')",
        "dtype name": "y = (jnp.ones(3).astype(jnp.dtype('bfloat16')) / 3).astype('float32')",
        "user's ml_dtypes": "import ml_dtypes\nx = jnp.asarray(np.ones(3, ml_dtypes.bfloat16))\n"
        "assert jnp.issubdtype(x.dtype, jnp.floating) and jnp.finfo(x.dtype).bits == 16\n"
        "y = (x / 3).astype(jnp.float32)",
        "jax.dtypes": "y = (jnp.ones(3).astype(jax.dtypes.bfloat16) / 3).astype(jnp.float32)",
    }
    # 1/3 in bfloat16 (8 significant bits), widened back: 0.333984375
    for how, code in checks.items():
        got = _run(
            "import json, numpy as np, engine as jax, engine.numpy as jnp\n"
            f"{code}\nprint(json.dumps([float(v) for v in np.asarray(y)]))"
        )
        assert got == [0.333984375] * 3, how
    info = _run(
        "import json, engine as jax, engine.numpy as jnp\n"
        "print(json.dumps([float(jnp.finfo('bfloat16').eps), int(jnp.iinfo('int4').min),"
        " jax.dtypes.itemsize_bits('int4'), jnp.issubdtype('float8_e4m3fn', jnp.floating)]))"
    )
    assert info == [2.0**-7, -8, 4, True]


def test_a_serialized_narrow_program_deserializes_in_a_fresh_process(tmp_path):
    """The program's dtypes are names in its data, which numpy reads only once ml_dtypes is imported."""
    import engine as jax
    import engine.numpy as jnp
    from engine import export

    exported = export.export(jax.jit(lambda x: x * 2))(jax.ShapeDtypeStruct((3,), jnp.bfloat16))
    (tmp_path / "program.bin").write_bytes(exported.serialize())
    got = _run(
        "import json\nfrom engine import export\n"
        f"e = export.deserialize(bytearray(open({str(tmp_path / 'program.bin')!r}, 'rb').read()))\n"
        "print(json.dumps([str(a) for a in e.in_avals + e.out_avals]))"
    )
    assert got == ["bfloat16[3]", "bfloat16[3]"]
