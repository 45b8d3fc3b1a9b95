"""A closed jaxpr as plain data (JSON), and back: what a sandboxed run sends to the server's
kernel compile service, which must not trust it.

The format is strict and versioned (``VERSION``). Primitives travel by name and must be in the
registry; avals are ``[shape, dtype, weak]`` with dtypes from a fixed list; parameter values
are plain types (None, bool, int, float, short strings of a safe alphabet, dtypes, numpy
scalars, tuples/lists of them, the lax NamedTuples and enums listed in ``_STRUCTS``, nested
jaxprs). Literals are typed numbers or small arrays. Constants travel as avals only: the
generated code names them and never inlines their values, so the service binds zeros.
Everything has a size limit (``Limits``); ``decode`` raises ``WireError`` on anything else.

Parameters that are Python callables cannot travel. The only ones dropped on purpose are the
custom-derivative rules of ``custom_jvp_call``/``custom_vjp_call``, a ``remat2``'s saving policy
and a ``composite``'s name and attributes, which evaluation (and so the generated code) never uses; any other callable makes ``encode`` raise ``WireError``: that
program is compiled by the run alone.

>>> import engine as jax, engine.numpy as jnp
>>> closed = jax.make_jaxpr(lambda x: jnp.sin(x) * 2.0)(1.0)
>>> data = encode(closed, "f")
>>> print(decode(data).closed)
{ lambda ; a:f32[]. let b:f32[] = sin a; c:f32[] = mul b 2.0:f32[] in (c,) }
"""

from __future__ import annotations

import base64
import enum
import math
import re
from dataclasses import dataclass
from typing import Any, NamedTuple, Optional

import numpy as np

from .. import core, narrow_dtypes
from ..core import ShapedArray
from ..ir import ClosedJaxpr, DropVar, Jaxpr, JaxprEqn, Literal, Var

VERSION = 1

DTYPES = frozenset(
    ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
    + ["float16", "float32", "float64", "complex64", "complex128", "bfloat16"]
)
# Strings in params (a jit's name, a mode): letters, digits and a few separators, never quotes,
# brackets, spaces or operators, so no value can read as code wherever it is put.
SAFE_STRING = re.compile(r"[A-Za-z0-9_<>./\-]*")
# Parameters evaluation never reads (custom-derivative rules): dropped by ``encode``.
_DROPPED = {
    "custom_jvp_call": ("call_jaxpr",),
    "custom_vjp_call": ("call_jaxpr",),
    "remat2": ("jaxpr", "prevent_cse", "differentiated"),  # (its policy is for AD only)
    "composite": ("jaxpr",),  # (its name and attributes are for a compiler that knows the operation)
    "jit": ("jaxpr", "name"),  # (its shardings, layouts and options: JAX's defaults, put back by decode)
}


class WireError(ValueError):
    """The data is not a program this format can describe (or it is over a limit)."""


@dataclass(frozen=True)
class Limits:
    equations: int = 20_000  # over the whole program, nested jaxprs included
    depth: int = 12  # nesting of jaxprs in params
    rank: int = 12
    elements: int = 1 << 31  # of any one aval
    const_bytes: int = 256 << 20  # zeros the service allocates for constants
    literal_elements: int = 4096
    string: int = 200
    sequence: int = 4096  # items of one tuple/list param
    values: int = 200_000  # param values, literals and avals over the whole program


def _structs() -> dict[str, type]:
    from ..lax.convolution import ConvDimensionNumbers
    from ..lax.dot_general import Precision
    from ..lax.fft import FftType
    from ..lax.slicing import GatherDimensionNumbers, GatherScatterMode, ScatterDimensionNumbers
    from ..lax.solves import _LinearSolveTuple

    from ..device_put_primitive import ArrayCopySemantics

    kinds = (ConvDimensionNumbers, GatherDimensionNumbers, ScatterDimensionNumbers, GatherScatterMode)
    puts = (ArrayCopySemantics, core.MemorySpace)  # (device_put's: memory spaces travel as names)
    return {t.__name__: t for t in (*kinds, Precision, FftType, _LinearSolveTuple, *puts)}


# --- encoding (in the run) ---------------------------------------------------------------------


def _export_dtype(dtype) -> Optional[str]:
    """The name of a dtype only exported programs carry: float0 (integers' cotangents) and the
    typed PRNG key types (``key<fry>``)."""
    from ..random_keys import key_dtypes

    if dtype == core.float0:
        return "float0"
    return dtype.name if any(dtype == k for k in key_dtypes.values()) else None


def _export_dtypes() -> dict:
    from ..random_keys import key_dtypes

    return {"float0": core.float0, **{k.name: k for k in key_dtypes.values()}}


def _aval(a, values: bool = False) -> list:
    if values and type(a) is ShapedArray and _export_dtype(a.dtype) is not None:
        return [
            [d if type(d) is int else _value(d) for d in a.shape],
            _export_dtype(a.dtype),
            bool(a.weak_type),
        ]
    if type(a) is not ShapedArray or a.dtype.name not in DTYPES:
        raise WireError(f"aval {a!r} cannot be sent")
    # (numpy integers in a shape stay numpy integers: the generated code prints shapes)
    return [[d if type(d) is int else _value(d) for d in a.shape], a.dtype.name, bool(a.weak_type)]


def _number(x) -> Any:
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        x = float(x)
        return x if math.isfinite(x) else {"float": repr(x)}
    raise WireError(f"{type(x).__name__} is not a number")


def _value(x, values: bool = False) -> Any:
    """A parameter or literal value (``values``: nested closed jaxprs carry their constants)."""
    t = type(x)
    if x is None or t is bool or t is str:
        if t is str and not SAFE_STRING.fullmatch(x):
            raise WireError(f"string {x[:40]!r} cannot be sent")
        return x
    if t is int:
        return x
    if t is float:
        return _number(x)
    if isinstance(x, np.dtype):
        return {"dtype": x.name}
    if isinstance(x, type) and issubclass(x, np.generic):
        return {"dtype": np.dtype(x).name}
    if isinstance(x, np.generic):
        if x.dtype.name not in DTYPES or x.dtype.kind == "c":
            raise WireError(f"scalar of dtype {x.dtype} cannot be sent")
        return {"scalar": x.dtype.name, "v": _number(x)}
    if isinstance(x, np.ndarray):
        if x.dtype.name not in DTYPES or x.dtype.kind == "c":
            raise WireError(f"array of dtype {x.dtype} cannot be sent")
        return {"array": x.dtype.name, "shape": list(x.shape), "v": [_number(e) for e in x.ravel().tolist()]}
    if isinstance(x, enum.Enum):
        return {"enum": type(x).__name__, "v": x.name}
    if values and type(x).__name__ == "PRNGImpl":  # (by name: random_seed/random_wrap's impl)
        return {"prng_impl": x.name}
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return {"struct": t.__name__, "v": [_value(e, values) for e in x]}
    if t is tuple or t is list:
        return {"tuple" if t is tuple else "list": [_value(e, values) for e in x]}
    if t is ClosedJaxpr:
        return {"closed": _closed(x, values)}
    if t is Jaxpr:
        return {"jaxpr": _jaxpr(x, values)}
    if isinstance(x, core.Array):
        return _value(np.asarray(x._value))
    if getattr(x, "_is_dim_expr", False):  # a symbolic dimension, as its text (re-parsed in a scope)
        return {"dim": str(x)}
    raise WireError(f"a parameter of type {t.__name__} cannot be sent")


def _jaxpr(j: Jaxpr, values: bool = False) -> dict:
    ids: dict[Var, int] = {}

    def bind(v: Var) -> Any:
        ids[v] = len(ids)
        return _aval(v.aval, values)

    def atom(x) -> Any:
        if type(x) is Literal and values and x.aval.dtype == core.float0:
            return {"lit": "float0", "aval": _aval(x.aval, values)}  # (zeros: no data)
        if type(x) is Literal:
            return {"lit": _value(x.val), "aval": _aval(x.aval)}
        if x not in ids:
            raise WireError("a jaxpr reads a variable it does not bind")
        return ids[x]

    constvars = [bind(v) for v in j.constvars]
    in_binders = [bind(v) for v in j.in_binders]
    eqns = []
    for e in j.eqns:
        keep = _DROPPED.get(e.primitive.name)
        params = {k: _value(v, values) for k, v in e.params.items() if keep is None or k in keep}
        ins = [atom(x) for x in e.inputs]
        outs = [None if type(v) is DropVar else bind(v) for v in e.out_binders]
        if None in outs:  # a dropped output still has an aval
            outs = [
                {"drop": _aval(v.aval, values)} if type(v) is DropVar else o
                for v, o in zip(e.out_binders, outs)
            ]
        eqns.append([e.primitive.name, ins, params, outs])
    return {"constvars": constvars, "in": in_binders, "eqns": eqns, "outs": [atom(x) for x in j.outs]}


def _closed(c: ClosedJaxpr, values: bool = False) -> dict:
    out = {"consts": [_aval(core.get_aval(x), values) for x in c.consts], "jaxpr": _jaxpr(c.jaxpr, values)}
    if values:
        out["values"] = [_const_bytes(x) for x in c.consts]
    return out


def _const_bytes(x) -> str:
    """A constant's bytes (little-endian, C order) in base64: numbers only, never objects."""
    a = np.ascontiguousarray(np.asarray(x._value if isinstance(x, core.Array) else x))
    return base64.b64encode(a.astype(a.dtype.newbyteorder("<"), copy=False).tobytes()).decode("ascii")


def encode(
    closed: ClosedJaxpr, name: str, layouts: Optional[tuple] = None, *, for_export: bool = False
) -> dict:
    """The program ``NumbaBackend.compile(closed, name, layouts)`` compiles, as plain data.

    ``for_export`` (``jax.export``'s programs, which run elsewhere): the constants travel with
    their values, not as avals only, and float0 (integers' cotangents), typed PRNG keys and PRNG
    implementations (by name) can be sent."""
    return {
        "v": VERSION,
        "name": _value(str(name)),
        "layouts": None if layouts is None else [_value(lay) for lay in layouts],
        "program": _closed(closed, for_export),
    }


# --- decoding (in the compile service) ---------------------------------------------------------


class Program(NamedTuple):
    closed: ClosedJaxpr
    name: str
    layouts: Optional[tuple]


def primitives() -> dict[str, core.Primitive]:
    """Every registered primitive by name (names held by two primitives are left out)."""
    found: dict[str, list] = {}
    for table in (core.impl_rules, core.abstract_eval_rules):
        for p in table:
            found.setdefault(p.name, [])
            if p not in found[p.name]:
                found[p.name].append(p)
    return {name: ps[0] for name, ps in found.items() if len(ps) == 1}


class _Decoder:
    def __init__(self, limits: Limits, for_export: bool = False, scope: Any = None):
        self.limits = limits
        self.for_export = for_export
        self.scope = scope  # (a SymbolicScope: symbolic dimensions are accepted, in it)
        self.prims = primitives()
        self.structs = _structs()
        self.equations = 0
        self.values = 0
        self.const_bytes = 0

    def count(self, n: int = 1) -> None:
        self.values += n
        if self.values > self.limits.values:
            raise WireError("the program is too large")

    def aval(self, a) -> ShapedArray:
        self.count()
        if type(a) is not list or len(a) != 3:
            raise WireError("malformed aval")
        shape, dtype, weak = a
        if type(shape) is not list or len(shape) > self.limits.rank:
            raise WireError("malformed or too deep shape")
        shape = [self.dim(d) for d in shape]
        size = 1
        for d in shape:
            size *= d if type(d) is not dict and not getattr(d, "_is_dim_expr", False) else 1
        if size > self.limits.elements:
            raise WireError(f"an array of {size} elements is over the limit")
        if self.for_export and dtype in _export_dtypes() and type(weak) is bool:
            return ShapedArray(tuple(shape), _export_dtypes()[dtype], weak)
        if type(dtype) is not str or dtype not in DTYPES or type(weak) is not bool:
            raise WireError("malformed dtype")
        return ShapedArray(tuple(shape), narrow_dtypes.to_dtype(dtype), weak)

    def symbolic_dim(self, d) -> Any:
        if self.scope is None or type(d["dim"]) is not str or len(d["dim"]) > self.limits.string:
            raise WireError("malformed shape")
        from ..export.shape_spec import symbolic_shape

        try:
            (out,) = symbolic_shape(d["dim"], scope=self.scope)
        except (ValueError, TypeError, ArithmeticError):
            raise WireError("malformed symbolic dimension") from None
        return out

    def dim(self, d):
        if type(d) is dict and set(d) == {"dim"}:
            return self.symbolic_dim(d)
        if type(d) is dict and set(d) == {"scalar", "v"} and d["scalar"] in ("int32", "int64"):
            d = np.dtype(d["scalar"]).type(self.dim(d["v"]))
        elif type(d) is not int:
            raise WireError("malformed shape")
        if not 0 <= d <= self.limits.elements:
            raise WireError("malformed shape")
        return d

    def number(self, x):
        if type(x) is dict and set(x) == {"float"} and x["float"] in ("inf", "-inf", "nan"):
            return float(x["float"])
        if type(x) in (bool, int, float):
            if type(x) is int and not -(1 << 64) < x < (1 << 64):
                raise WireError("integer out of range")
            return x
        raise WireError("malformed number")

    def value(self, x, depth: int) -> Any:
        self.count()
        t = type(x)
        if x is None or t is bool:
            return x
        if t is int or t is float:
            return self.number(x)
        if t is str:
            if len(x) > self.limits.string or not SAFE_STRING.fullmatch(x):
                raise WireError("string parameter refused")
            return x
        if t is not dict or len(x) == 0:
            raise WireError("malformed value")
        kind = next(iter(x))
        if kind == "float" and len(x) == 1:
            return self.number(x)
        if kind == "dtype" and len(x) == 1:
            if x["dtype"] not in DTYPES:
                raise WireError("unknown dtype")
            return narrow_dtypes.to_dtype(x["dtype"])
        if kind == "scalar" and set(x) == {"scalar", "v"}:
            if x["scalar"] not in DTYPES or narrow_dtypes.to_dtype(x["scalar"]).kind == "c":
                raise WireError("unknown dtype")
            return self.array(x["scalar"], [], [x["v"]])[()]
        if kind == "array" and set(x) == {"array", "shape", "v"}:
            return self.array(x["array"], x["shape"], x["v"])
        if kind in ("tuple", "list") and len(x) == 1:
            items = x[kind]
            if type(items) is not list or len(items) > self.limits.sequence:
                raise WireError("malformed or too long sequence")
            out = [self.value(e, depth) for e in items]
            return tuple(out) if kind == "tuple" else out
        if kind == "enum" and set(x) == {"enum", "v"}:
            cls = self.structs.get(x["enum"])
            if cls is None or not issubclass(cls, enum.Enum) or x["v"] not in cls.__members__:
                raise WireError("unknown enum")
            return cls[x["v"]]
        if kind == "struct" and set(x) == {"struct", "v"}:
            cls = self.structs.get(x["struct"])
            if cls is None or issubclass(cls, enum.Enum) or type(x["v"]) is not list:
                raise WireError("unknown struct")
            fields = [self.value(e, depth) for e in x["v"]]
            if len(fields) > len(cls._fields):  # type: ignore[attr-defined]
                raise WireError("malformed struct")
            return cls(*fields)
        if kind == "prng_impl" and len(x) == 1 and self.for_export:
            from ..random_primitives import prng_impls

            if x["prng_impl"] not in prng_impls:
                raise WireError("unknown PRNG implementation")
            return prng_impls[x["prng_impl"]]
        if kind == "dim" and len(x) == 1:
            return self.symbolic_dim(x)
        if kind == "closed" and len(x) == 1:
            return self.closed(x["closed"], depth + 1)
        if kind == "jaxpr" and len(x) == 1:
            return self.jaxpr(x["jaxpr"], depth + 1)
        raise WireError("malformed value")

    def array(self, dtype, shape, values) -> np.ndarray:
        if type(dtype) is not str or dtype not in DTYPES or narrow_dtypes.to_dtype(dtype).kind == "c":
            raise WireError("unknown dtype")
        if type(shape) is not list or not all(type(d) is int and d >= 0 for d in shape) or len(shape) > 8:
            raise WireError("malformed literal shape")
        if type(values) is not list or len(values) > self.limits.literal_elements:
            raise WireError("literal too large")
        if int(np.prod(shape, dtype=np.int64)) != len(values):
            raise WireError("literal size does not match its shape")
        self.count(len(values))
        with np.errstate(all="ignore"):
            try:
                return np.array([self.number(v) for v in values], dtype=dtype).reshape(shape)
            except (OverflowError, ValueError) as e:
                raise WireError(f"literal out of range: {e}") from None

    def jaxpr(self, d, depth: int) -> Jaxpr:
        if depth > self.limits.depth:
            raise WireError("jaxprs nested too deep")
        if type(d) is not dict or set(d) != {"constvars", "in", "eqns", "outs"}:
            raise WireError("malformed jaxpr")
        if not all(type(d[k]) is list for k in d):
            raise WireError("malformed jaxpr")
        env: list[Var] = []

        def bind(a) -> Var:
            v = Var(self.aval(a))
            env.append(v)
            return v

        def atom(x):
            if type(x) is int:
                if not 0 <= x < len(env):
                    raise WireError("a variable is read before it is bound")
                return env[x]
            if type(x) is dict and set(x) == {"lit", "aval"} and x["lit"] == "float0" and self.for_export:
                aval = self.aval(x["aval"])
                if aval.dtype != core.float0:
                    raise WireError("malformed literal")
                zeros = np.zeros(aval.shape, core.float0)
                return Literal(zeros[()] if not aval.shape else zeros, aval)
            if type(x) is dict and set(x) == {"lit", "aval"}:
                aval = self.aval(x["aval"])
                val = self.value(x["lit"], depth)
                if isinstance(val, np.ndarray) and (val.shape != aval.shape):
                    raise WireError("literal shape does not match its aval")
                if not isinstance(val, (bool, int, float, np.ndarray, np.generic)):
                    raise WireError("malformed literal")
                return Literal(val, aval)
            raise WireError("malformed atom")

        constvars = [bind(a) for a in d["constvars"]]
        in_binders = [bind(a) for a in d["in"]]
        eqns = []
        for e in d["eqns"]:
            self.equations += 1
            if self.equations > self.limits.equations:
                raise WireError("too many equations")
            if type(e) is not list or len(e) != 4:
                raise WireError("malformed equation")
            name, ins, params, outs = e
            prim = self.prims.get(name) if type(name) is str else None
            if prim is None:
                raise WireError(f"unknown primitive {str(name)[:40]!r}")
            if type(ins) is not list or type(params) is not dict or type(outs) is not list:
                raise WireError("malformed equation")
            inputs = [atom(x) for x in ins]
            if not all(type(k) is str and SAFE_STRING.fullmatch(k) for k in params):
                raise WireError("malformed parameter name")
            values = {k: self.value(v, depth) for k, v in params.items()}
            if name == "jit" and type(values.get("jaxpr")) is ClosedJaxpr and type(values.get("name")) is str:
                from ..jit_primitive import with_body

                values = with_body(values, values["jaxpr"])
            binders: list[Var] = []
            for o in outs:
                if type(o) is dict and set(o) == {"drop"}:
                    binders.append(DropVar(self.aval(o["drop"])))
                else:
                    binders.append(bind(o))
            if not prim.multiple_results and len(binders) != 1:
                raise WireError(f"{name} has one output")
            eqns.append(JaxprEqn(prim, inputs, values, binders, None))
        return Jaxpr(constvars, in_binders, eqns, [atom(x) for x in d["outs"]])

    def closed(self, d, depth: int) -> ClosedJaxpr:
        keys = {"consts", "jaxpr", "values"} if self.for_export else {"consts", "jaxpr"}
        if type(d) is not dict or set(d) != keys or type(d["consts"]) is not list:
            raise WireError("malformed closed jaxpr")
        if self.for_export and (type(d["values"]) is not list or len(d["values"]) != len(d["consts"])):
            raise WireError("malformed constants")
        avals = [self.aval(a) for a in d["consts"]]
        jaxpr = self.jaxpr(d["jaxpr"], depth)
        if len(avals) != len(jaxpr.constvars):
            raise WireError("constants do not match the jaxpr")
        consts = []
        for i, a in enumerate(avals):
            self.const_bytes += a.size * a.dtype.itemsize
            if self.const_bytes > self.limits.const_bytes:
                raise WireError("constants too large")
            if self.for_export:
                consts.append(self.const_array(a, d["values"][i]))
            else:
                consts.append(np.zeros(a.shape, a.dtype))  # (calloc: untouched pages cost nothing)
        return ClosedJaxpr(jaxpr, consts)

    def const_array(self, aval: ShapedArray, data) -> np.ndarray:
        if type(data) is not str or len(data) > 2 * self.limits.const_bytes:
            raise WireError("malformed constant")
        try:
            raw = base64.b64decode(data.encode("ascii"), validate=True)
        except (ValueError, UnicodeEncodeError):
            raise WireError("malformed constant") from None
        dtype = aval.dtype.newbyteorder("<")
        if len(raw) != aval.size * dtype.itemsize:
            raise WireError("a constant's bytes do not match its aval")
        if dtype.itemsize == 0:  # (float0: no bytes)
            return np.zeros(aval.shape, aval.dtype)
        return np.frombuffer(raw, dtype).astype(aval.dtype).reshape(aval.shape)


def decode(data: Any, limits: Limits = Limits(), *, for_export: bool = False, scope: Any = None) -> Program:
    """The program ``data`` describes, checked against the registry and ``limits``; raises
    ``WireError`` for anything else. Its constants are zeros of their avals, or with
    ``for_export`` the values ``encode(..., for_export=True)`` sent (and what else it can send)."""
    if type(data) is not dict or set(data) != {"v", "name", "layouts", "program"}:
        raise WireError("malformed request")
    if data["v"] != VERSION:
        raise WireError(f"format version {data['v']!r} is not {VERSION}")
    dec = _Decoder(limits, for_export, scope)
    name = data["name"]
    if type(name) is not str or len(name) > limits.string or not SAFE_STRING.fullmatch(name):
        raise WireError("malformed name")
    closed = dec.closed(data["program"], 0)
    layouts = data["layouts"]
    if layouts is not None:
        if type(layouts) is not list or len(layouts) != len(closed.jaxpr.in_binders):
            raise WireError("malformed layouts")
        layouts = tuple(_layout(dec.value(lay, 0)) for lay in layouts)
    return Program(closed, name, layouts)


def _layout(lay) -> Optional[tuple]:
    """A layout of ``numba_jit.layout_of``: None, ("b", axes), ("t", perm), ("s", steps), ("a",)."""
    if lay is None:
        return None
    ok = type(lay) is tuple and lay and lay[0] in ("b", "t", "s", "a")
    if ok and lay[0] == "a":
        ok = len(lay) == 1
    elif ok:
        ok = len(lay) == 2 and type(lay[1]) is tuple and all(type(i) is int and i >= 0 for i in lay[1])
    if not ok:
        raise WireError("malformed layout")
    return lay
