"""shard_map's errors about its specs, in JAX's words: an in_specs or out_specs entry longer than
its value's rank, and out_specs that declare a value replicated over mesh axes it varies over
(``check_vma``). Each names the spec and the value by their pytree paths (``in_specs[1]``, ``the
passed args[0]['b']``, ``f(*args)[1]``)."""

from __future__ import annotations

import inspect
from typing import Any, Callable, Sequence

from ..pytree.keys import DictKey, GetAttrKey, SequenceKey, keystr
from ..sharding import PartitionSpec
from ..tree_util import tree_flatten_with_path


def _spec_at(specs: Any, leaf_path: tuple) -> tuple[tuple, Any]:
    """The path, within the pytree prefix ``specs``, of the spec that covers the leaf at
    ``leaf_path``, and that spec (None: ``P()``)."""
    path: list = []
    for key in leaf_path:
        if specs is None or isinstance(specs, PartitionSpec):
            break
        if isinstance(key, SequenceKey):
            specs = specs[key.idx]
        elif isinstance(key, DictKey):
            specs = specs[key.key]
        elif isinstance(key, GetAttrKey):
            specs = getattr(specs, key.name)
        else:
            break
        path.append(key)
    return tuple(path), PartitionSpec() if specs is None else specs


def _leaf_paths(value: Any) -> list[tuple]:
    return [p for p, _ in tree_flatten_with_path(value)[0]]


def _bound_to(f: Callable, fun_name: str, arg_key: Any) -> str:
    """``, where args[i] is bound to f's parameter 'x',`` (JAX's, when f's signature is readable)."""
    try:
        sig = inspect.signature(f)
    except (TypeError, ValueError):
        return ""
    params = [p for p in sig.parameters.values() if p.kind not in (p.KEYWORD_ONLY, p.VAR_KEYWORD)]
    i = arg_key.idx
    if i >= len(params) or params[i].kind is inspect.Parameter.VAR_POSITIONAL:
        if not params:
            return ""
        return (
            f", where args[{i}] is the index {i - len(params) + 1} component of {fun_name}'s varargs "
            f"parameter '{params[-1].name}',"
        )
    return f", where args[{i}] is bound to {fun_name}'s parameter '{params[i]}',"


def rank_error(
    kind: str, f: Callable, specs: Any, value: Any, avals: Sequence[Any], fails: Sequence[bool]
) -> str:
    """JAX's message for specs longer than their values' ranks: ``kind`` "in" (``value``: the
    arguments tuple) or "out" (the function's result); ``fails`` flags the flattened leaves."""
    fun_name = getattr(f, "__name__", str(f))
    base = "the passed args" if kind == "in" else f"{fun_name}(*args)"
    msgs = []
    for path, aval, failed in zip(_leaf_paths(value), avals, fails):
        if not failed:
            continue
        spec_path, spec = _spec_at(specs, path)
        extra = _bound_to(f, fun_name, path[0]) if kind == "in" and path else ""
        msgs.append(
            f"* {kind}_specs{keystr(spec_path)} is {spec} which has length {len(spec)}, but "
            f"{base}{keystr(path)}{extra} has shape {str(aval.update(vma=())).lstrip('~')}, which has rank {aval.ndim} "
            f"(and {aval.ndim} < {len(spec)})"
        )
    if len(msgs) == 1:
        msgs = [msgs[0][2:]]
    put = f"{kind}put"
    msg = (
        f"shard_map applied to the function '{fun_name}' was given an {kind}_specs entry which is too long "
        f"to be compatible with the corresponding {put} value from the function:\n\n"
        + "\n\n".join(msgs)
        + f"\n\nEntries in {kind}_specs must be of length no greater than the number of axes in the "
        f"corresponding {put} value.\n\nEither revise the spec to be shorter, or modify '{fun_name}' so that "
        f"its {put}s have sufficient rank."
    )
    scalar = any(failed and not aval.ndim for aval, failed in zip(avals, fails))
    if scalar:
        msg += (
            f"\n\nFor scalar values (rank 0), consider using an {kind}_specs entry of `P()`, where "
            "`P = jax.sharding.PartitionSpec`."
        )
        if kind == "out":
            msg += (
                " In particular, for rank 0 outputs which are not constant over the mesh, add at least one "
                "(singleton) axis to them so that they can be concatenated using out_specs."
            )
    return msg


def replication_error(
    fun_name: str, mesh: Any, specs: Any, value: Any, bad: Sequence[tuple[int, list, list, list]], eager: bool
) -> str:
    """JAX's message for out_specs that declare values replicated over axes they vary over:
    ``bad`` holds (leaf index, the spec's unmentioned axes, the axes it names, the value's
    varying axes), each in mesh order. An ``eager`` shard_map checks its results one at a time, so
    JAX names the first alone, and its spec without a path."""
    paths = _leaf_paths(value)
    msgs = []
    for i, unmentioned, named, varying in bad[:1] if eager else bad:
        spec_path, spec = _spec_at(specs, paths[i])
        spec_path = () if eager else spec_path
        where = f"out_specs{keystr(spec_path)} is {spec}"
        if len(unmentioned) > 1:
            diff = ",".join(a for a in unmentioned if a in varying)
            msgs.append(
                f"* {where} which implies that the corresponding output value is only varying across mesh "
                f"axes {{{','.join(named)}}} and not {{{diff}}}, but it was inferred to be possibly varying "
                f"over {{{','.join(varying)}}}"
            )
        else:
            msgs.append(
                f"* {where} which implies that the corresponding output value is replicated across mesh axis "
                f"'{unmentioned[0]}', but could not infer replication over any axes"
            )
    if len(msgs) == 1:
        msgs = [msgs[0][2:]]
    return (
        f"shard_map applied to the function '{fun_name}' was given out_specs which require replication "
        "which can't be statically inferred given the mesh:\n\n"
        f"The mesh given has shape {tuple(mesh.axis_sizes)} with corresponding axis names "
        f"{tuple(mesh.axis_names)}.\n\n" + "\n\n".join(msgs) + "\n\n"
        "Check if these output values are meant to be replicated over those mesh axes. If not, consider "
        "revising the corresponding out_specs entries. If so, consider disabling the check by passing the "
        "check_vma=False argument to `jax.shard_map`."
    )
