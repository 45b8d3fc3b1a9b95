"""jaxpr_wire: programs as plain data for the server's compile service. A program decoded from
its data generates exactly the module source the original does (so the service compiles what
the run would load), and the decoder refuses everything outside its strict format."""

import copy
import json

import numpy as np
import pytest

from conftest import numba_backend

nb_jit = numba_backend()
import engine as jax  # noqa: E402
import engine.numpy as jnp  # noqa: E402
from engine import lax  # noqa: E402
from engine.backends import jaxpr_wire as W  # noqa: E402


def _tanh(x):
    y = jnp.exp(-2.0 * x)
    return (1.0 - y) / (1.0 + y)


def _loss(w, x, y):
    return jnp.sum((jnp.tanh(x @ w) - y) ** 2)


PROGRAMS = {
    "page: jit(vmap(grad(loss)))": (
        jax.vmap(jax.grad(_loss), in_axes=(None, 0, 0)),
        (jnp.ones((3, 2)) * 0.1, jnp.ones((4, 3)), jnp.zeros((4, 2))),
    ),
    "grad of composite tanh": (jax.grad(_tanh), (1.0,)),
    "fori_loop": (lambda x: lax.fori_loop(0, 3, lambda i, c: c * 2.0 + i, x), (jnp.ones(3),)),
    "cond": (lambda x: lax.cond(x.sum() > 0, jnp.sin, jnp.cos, x), (jnp.ones(3),)),
    "custom_jvp (relu, softplus)": (lambda x: jax.nn.relu(x) + jax.nn.softplus(x), (jnp.ones(4),)),
    "gather (indexing)": (lambda x, i: x[i] + x[1:3].sum(), (jnp.arange(5.0), 2)),
    "scatter (.at[].add)": (lambda x: x.at[jnp.array([0, 2])].add(1.0), (jnp.zeros(4),)),
    "int64-typed shape dims": (jax.jacfwd(lambda x: jnp.tanh(x) * x), (jnp.ones(2),)),
    "constants": (lambda x: x + np.arange(3, dtype=np.float32), (jnp.ones(3),)),
    # (jnp.ones is a stride-0 broadcast: a program specialised on that layout is compiled too)
    "layout variant": (lambda x: jnp.sum(x * 2.0, axis=0), (jnp.ones((300, 100)),)),
}


def _compiled(fun, args):
    """Every (closed jaxpr, name, layouts) the numba backend compiles for ``jit(fun)(*args)``."""
    # Earlier tests' first calls may still be compiling on the background lane: not this program's.
    __import__("engine.jit", fromlist=["wait_for_compiles"]).wait_for_compiles()
    seen = []
    original = nb_jit.NumbaBackend.compile

    def spy(self, closed, name, layouts=None):
        seen.append((closed, name, layouts))
        return original(self, closed, name, layouts)

    nb_jit.NumbaBackend.compile = spy
    try:
        jitted = jax.jit(fun)
        jitted(*args)
        jax_jit = __import__("engine.jit", fromlist=["wait_for_compiles"])
        jax_jit.wait_for_compiles()
        if not seen:  # (interpreted first call: the kernels compile on the background lane)
            jax_jit.executable(next(iter(jitted._cache.values()))[0], jitted.name)
    finally:
        nb_jit.NumbaBackend.compile = original
    return seen


@pytest.mark.parametrize("label", list(PROGRAMS))
def test_decoded_program_generates_the_same_module(label):
    fun, args = PROGRAMS[label]
    programs = _compiled(fun, args)
    assert programs
    if label == "layout variant":
        assert any(layouts is not None for _, _, layouts in programs)
    backend = nb_jit.NumbaBackend()
    for closed, name, layouts in programs:
        data = json.loads(json.dumps(W.encode(closed, name, layouts)))  # through JSON, as sent
        decoded = W.decode(data)
        original = nb_jit.Codegen(backend, closed, name, layouts).generate()
        again = nb_jit.Codegen(backend, decoded.closed, decoded.name, decoded.layouts).generate()
        assert again == original, label


def _page_data():
    fun, args = PROGRAMS["page: jit(vmap(grad(loss)))"]
    return W.encode(jax.make_jaxpr(fun)(*args), "loss")


def _first_eqn(data):
    return data["program"]["jaxpr"]["eqns"][0]


def _refused(data, match):
    with pytest.raises(W.WireError, match=match):
        W.decode(data)


def test_unknown_primitive_refused():
    data = _page_data()
    _first_eqn(data)[0] = "os.system"
    _refused(data, "unknown primitive")


def test_code_like_strings_refused():
    for text in ["__import__('os').system('id')", "a; b", "x\nimport os", "f(1)", "'q'", "a b"]:
        data = _page_data()
        data["name"] = text
        _refused(copy.deepcopy(data), "malformed name")
        data = _page_data()
        _first_eqn(data)[2]["extra"] = text
        _refused(data, "string parameter refused")
    data = _page_data()
    _first_eqn(data)[2]["x = 1"] = 1
    _refused(data, "parameter name")
    with pytest.raises(W.WireError, match="cannot be sent"):
        W.encode(jax.make_jaxpr(lambda x: x + 1.0)(1.0), "f(); import os")


def test_huge_shapes_refused():
    data = _page_data()
    data["program"]["jaxpr"]["in"][0] = [[1 << 20, 1 << 20], "float32", False]
    _refused(data, "over the limit")
    data = _page_data()
    data["program"]["jaxpr"]["in"][0] = [[-1], "float32", False]
    _refused(data, "malformed shape")
    data = _page_data()
    data["program"]["jaxpr"]["in"][0] = [[1] * 40, "float32", False]
    _refused(data, "too deep shape")
    data = _page_data()
    data["program"]["consts"] = [[[1 << 30], "float32", False]]
    data["program"]["jaxpr"]["constvars"] = [[[1 << 30], "float32", False]]
    _refused(data, "constants too large")


def test_malformed_structure_refused():
    data = _page_data()
    _first_eqn(data)[1] = [10_000]
    _refused(data, "read before it is bound")
    data = _page_data()
    data["program"]["jaxpr"]["in"][0] = [[3], "object", False]
    _refused(data, "malformed dtype")
    data = _page_data()
    _first_eqn(data)[2]["p"] = {"pickle": "gASVAAAA"}
    _refused(data, "malformed value")
    data = _page_data()
    _first_eqn(data)[2]["p"] = {"struct": "Popen", "v": []}
    _refused(data, "unknown struct")
    data = _page_data()
    data["v"] = 2
    _refused(data, "format version")
    _refused([], "malformed request")
    _refused(
        {"v": 1, "name": "f", "layouts": None, "program": {"consts": [], "jaxpr": "x"}}, "malformed jaxpr"
    )


def test_size_limits_refused():
    data = _page_data()
    _first_eqn(data)[2]["p"] = {"tuple": [1] * 10_000}
    _refused(data, "too long sequence")
    data = _page_data()
    data["program"]["jaxpr"]["eqns"] *= 100
    with pytest.raises(W.WireError, match="too many equations"):
        W.decode(data, W.Limits(equations=1000))
    nested = {"consts": [], "jaxpr": {"constvars": [], "in": [], "eqns": [], "outs": []}}
    for _ in range(20):
        nested = {
            "consts": [],
            "jaxpr": {
                "constvars": [],
                "in": [],
                "eqns": [["jit", [], {"jaxpr": {"closed": nested}}, []]],
                "outs": [],
            },
        }
    _refused({"v": 1, "name": "f", "layouts": None, "program": nested}, "nested too deep")


def test_callables_are_not_sent():
    closed = jax.make_jaxpr(lambda x: (jax.debug.callback(print, x), x)[1])(1.0)
    with pytest.raises(W.WireError, match="of type function cannot be sent"):
        W.encode(closed, "f")


def test_device_put_between_memory_spaces_travels():
    # (its enums travel by name; the service compiles values, so the types' memory spaces stay home)
    closed = jax.make_jaxpr(lambda v: jax.device_put(v, jax.memory.Space.Host) * 2)(jnp.ones(3))
    text = str(W.decode(W.encode(closed, "f")).closed)
    assert (
        "copy_semantics=(ArrayCopySemantics.REUSE_INPUT,)" in text and "devices=(MemorySpace.Host,)" in text
    )


def test_real_fft_types_travel():
    # (fft_type is lax.FftType, an IntEnum: it travels by name and prints as JAX's number)
    closed = jax.make_jaxpr(lambda v: jnp.fft.irfft(jnp.fft.rfft(v), n=7))(jnp.ones(7))
    decoded = W.decode(W.encode(closed, "f")).closed
    assert str(decoded) == str(closed)
    assert "fft_type=2" in str(decoded) and "fft_type=3" in str(decoded)
