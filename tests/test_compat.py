"""``import jax`` resolving to the engine, device-count flags, ``python -m engine run``, and
``jax.debug`` (print/callback as a primitive that transformations and DCE keep)."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import engine
from conftest import ROOT
import engine.debug
from engine import compat, ir, lax


@pytest.fixture
def jax():
    compat.install()
    import jax as jax_alias

    yield jax_alias
    compat.uninstall()


def test_jax_modules_are_the_engine_modules(jax):
    import jax.errors
    import jax.lax
    import jax.tree
    import jax.tree_util
    import jax.debug
    import jax.experimental  # noqa: F401 - minimal, but importable

    assert jax.lax is engine.lax and jax.tree_util is engine.tree_util and jax.tree is engine.tree
    assert jax.errors.ConcretizationTypeError is engine.errors.ConcretizationTypeError
    assert jax.debug is engine.debug
    assert jax.grad is engine.grad and jax.Array is engine.Array
    from jax import random

    assert random.__name__.startswith("engine.")
    # aliasing leaves the engine modules' own identity intact
    assert engine.lax.__spec__.name == "engine.lax" and engine.lax.__name__ == "engine.lax"


def test_missing_names_say_so(jax):
    # a name JAX 0.10.2 has and the engine lacks says so; one JAX lacks too gets JAX's words
    with pytest.raises(
        AttributeError, match=r"^module 'jax' has no attribute 'host_id' \(the engine does not"
    ):
        jax.host_id  # noqa: B018
    with pytest.raises(AttributeError, match="^module 'jax' has no attribute 'no_such_function'$"):
        jax.no_such_function  # noqa: B018
    with pytest.raises(ModuleNotFoundError):
        import jax.no_such_module  # noqa: F401


def test_a_missing_name_of_a_submodule_is_reported_under_its_jax_name(jax):
    # (a playground user who typed jnp.lingalg saw "module 'engine.numpy' has no attribute ...")
    import jax.numpy as jnp
    import jax.scipy.special as special

    for module, alias in [
        (jnp, "jax.numpy"),
        (jax.lax, "jax.lax"),
        (jax.random, "jax.random"),
        (special, "jax.scipy.special"),
        (jnp.linalg, "jax.numpy.linalg"),  # (imported with jax.numpy, reached as attributes)
        (jnp.fft, "jax.numpy.fft"),
    ]:
        with pytest.raises(AttributeError, match=f"^module '{alias}' has no attribute 'nope'$"):
            module.nope  # noqa: B018
    assert hasattr(jnp, "sum") and not hasattr(jax.lax, "nope")


def test_submodules_jax_does_not_import_are_attributes_once_imported(tmp_path):
    # (JAX 0.10.2: `import jax` leaves jax.flatten_util unimported; jax.experimental.ode imports it)
    proc = run_cli(
        tmp_path,
        """\
        import jax
        for name in ["flatten_util", "example_libraries", "ad_checkpoint"]:
            try:
                getattr(jax, name)
            except AttributeError as e:
                print(e, name in dir(jax))
        import jax.experimental.ode
        print(jax.flatten_util.ravel_pytree([1.0])[0])
        from jax.example_libraries import optimizers
        print(jax.example_libraries.optimizers is optimizers, hasattr(jax, "ad_checkpoint"))
        """,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "module 'jax' has no attribute 'flatten_util' False",
        "module 'jax' has no attribute 'example_libraries' False",
        "module 'jax' has no attribute 'ad_checkpoint' False",
        "[1.]",
        "True False",
    ]


def test_submodules_jax_packages_do_not_import_on_use(tmp_path):
    # (JAX 0.10.2: jax.scipy's lazy loader leaves out optimize and spatial; jax.experimental has none)
    proc = run_cli(
        tmp_path,
        """\
        import jax, jax.scipy, jax.experimental
        print(hasattr(jax.scipy, "optimize"), hasattr(jax.scipy, "spatial"), hasattr(jax.scipy, "stats"))
        print(hasattr(jax.experimental, "ode"), hasattr(jax.experimental, "checkify"))
        import jax.scipy.optimize
        from jax.experimental import ode
        print(jax.scipy.optimize.minimize is not None, jax.experimental.ode is ode)
        """,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["False False True", "False False", "True True"]


def test_an_experimental_module_not_imported_yet_is_missing_in_jaxs_words(tmp_path):
    # (the engine said "(the engine does not implement it)" of jax.experimental.checkify, which it
    # implements: JAX's own message, which a user answers by importing it)
    proc = run_cli(
        tmp_path,
        """\
        import jax
        for name in ["checkify", "no_such_thing"]:
            try:
                getattr(jax.experimental, name)
            except AttributeError as e:
                print(e)
        """,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "module 'jax.experimental' has no attribute 'checkify'",
        "module 'jax.experimental' has no attribute 'no_such_thing' (the engine does not implement it)",
    ]


def test_overrides_are_scoped(jax):
    marker = object()
    undo = compat.set_overrides({"grad": marker})
    try:
        assert jax.grad is marker
    finally:
        undo()
    assert jax.grad is engine.grad


def run_cli(tmp_path, code, *args, env_extra=None):
    (tmp_path / "prog.py").write_text(textwrap.dedent(code))
    env = dict(os.environ, PYTHONPATH=str(ROOT), ENGINE_CACHE_DIR=str(tmp_path / "kernels"))
    env.pop("XLA_FLAGS", None)
    env.update(env_extra or {})
    return subprocess.run(
        [sys.executable, "-m", "engine", "run", "prog.py", *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_cli_runs_unmodified_jax_script(tmp_path):
    proc = run_cli(
        tmp_path,
        """\
        import sys
        import jax
        from jax import lax
        print(__name__, sys.argv, float(jax.grad(lax.sin)(0.0)))
        """,
        "x",
        "-y",
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["__main__", "['prog.py',", "'x',", "'-y']", "1.0"]


def test_xla_flags_device_count_read_at_import(tmp_path, monkeypatch):
    monkeypatch.delenv("JAXPLAY_DEVICE_COUNT", raising=False)
    monkeypatch.delenv("ENGINE_DEVICE_COUNT", raising=False)
    code = """\
        import os
        os.environ['XLA_FLAGS'] = '--xla_force_host_platform_device_count=4'
        import jax
        print(os.environ['JAXPLAY_DEVICE_COUNT'], jax.device_count())
        """
    proc = run_cli(tmp_path, code)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["4", "4"]
    # Without any setting the engine offers 8 devices, as the pmap examples expect.
    proc = run_cli(tmp_path, "import jax\nprint(jax.device_count())\n")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["8"]


def test_requested_device_count_parsing(monkeypatch):
    monkeypatch.setenv("XLA_FLAGS", "--foo --xla_force_host_platform_device_count=4")
    assert compat.requested_device_count() == 4
    monkeypatch.delenv("XLA_FLAGS")
    monkeypatch.setenv("JAXPLAY_DEVICE_COUNT", "3")
    assert compat.requested_device_count() == 3


# --- jax.debug ---------------------------------------------------------------------------------


def printed(fn, *args):
    lines = []
    with engine.debug.capture(lambda text, device: lines.append((text, device))):
        out = fn(*args)
    return out, lines


def test_debug_print_eager_jit_and_dce():
    def f(x):
        engine.debug.print("x={x}", x=x)
        return lax.mul(x, 2.0)

    _, lines = printed(f, 1.5)
    assert lines == [("x=1.5", None)]
    jf = engine.jit(f)
    for v in (1.0, 2.0):  # compiled once, prints runtime values every call
        out, lines = printed(jf, v)
        assert lines == [(f"x={v}", None)] and float(out) == 2 * v
    # the print has no outputs, yet dead-code elimination keeps it
    jaxpr = engine.make_jaxpr(f)(1.0).jaxpr
    assert [e.primitive.name for e in ir.dce_jaxpr(jaxpr, [False]).eqns] == ["debug_print"]


def test_debug_print_under_vmap_and_grad():
    def f(x):
        engine.debug.print("{}", x)
        return lax.sin(x)

    _, lines = printed(engine.vmap(f), np.array([1.0, 2.0, 3.0], np.float32))
    assert [t for t, _ in lines] == ["1.0", "2.0", "3.0"]  # once per example, in order
    g, lines = printed(engine.grad(f), 0.5)
    assert [t for t, _ in lines] == ["0.5"] and np.isclose(float(g), np.cos(0.5))
    _, lines = printed(engine.jit(engine.vmap(f)), np.array([4.0, 5.0], np.float32))
    assert [t for t, _ in lines] == ["4.0", "5.0"]


def test_loops_and_branches_that_print_are_kept_under_jit():
    # Their outputs are unused (a scan with no carry or ys, a while or cond whose result is
    # dropped), yet their bodies print, as JAX 0.10.2's jit printed: s 0.0, s 1.0, s 2.0; w 0, w 1;
    # c 1.0 (the engine's jit dropped them, printing nothing).
    xs = np.arange(3, dtype=np.float32)
    body = lambda c, y: (engine.debug.print("s {}", y), (c, None))[1]  # noqa: E731
    _, lines = printed(engine.jit(lambda x: lax.scan(body, 0.0, x)), xs)
    assert [t for t, _ in lines] == ["s 0.0", "s 1.0", "s 2.0"]
    step = lambda c: (engine.debug.print("w {}", c), c + 1)[1]  # noqa: E731
    _, lines = printed(engine.jit(lambda x: (lax.while_loop(lambda c: c < 2, step, 0), x)[1]), xs)
    assert [t for t, _ in lines] == ["w 0", "w 1"]
    branch = lambda x: (engine.debug.print("c {}", x), x * 2)[1]  # noqa: E731
    _, lines = printed(engine.jit(lambda p, x: (lax.cond(p, branch, lambda x: x, x), x)[1]), True, 1.0)
    assert [t for t, _ in lines] == ["c 1.0"]


def test_debug_print_device_tag_and_callback():
    with engine.debug.device_context(3):
        _, lines = printed(lambda: engine.debug.print("on {}", 1))
    assert lines == [("on 1", 3)]
    seen = []
    engine.jit(lambda x: (engine.debug.callback(lambda v, k: seen.append((float(v), k)), x, k="s"), x)[1])(
        2.0
    )
    assert seen == [(2.0, "s")]


def test_device_prints_collected_then_replayed_in_device_order():
    def f(x):
        engine.debug.print("x={}", x)
        return x

    collected = {}
    for dev in (3, 1):  # as device processes would, in any order
        with engine.debug.device_prints(dev) as lines:
            engine.jit(f)(float(dev))
        collected[dev] = lines
    assert collected == {3: ["x=3.0"], 1: ["x=1.0"]}
    seen = []
    with engine.debug.capture(lambda text, device: seen.append((device, text))):
        engine.debug.replay_device_prints(collected)
    assert seen == [(1, "x=1.0"), (3, "x=3.0")]
