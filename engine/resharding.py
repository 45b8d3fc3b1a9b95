"""Moving values between layouts: ``jax.sharding.reshard``, ``jax.lax.with_sharding_constraint``
and the ``out_sharding=`` keyword of functions that lay their result out by ``reshard``."""

from __future__ import annotations

from .sharding import (
    Mesh,
    NamedSharding,
    PartitionSpec,
    Sharding,
    _axes_of,
    as_sharding,
    get_abstract_mesh,
)


def reshard(xs, out_shardings):
    """Move ``xs`` (a pytree) to ``out_shardings`` (a sharding or a ``PartitionSpec`` over the
    current mesh, or a tree of them, a prefix of ``xs``): the values are unchanged, the pieces move
    between devices.

    >>> # jax.reshard({"w": w, "b": b}, {"w": P("x", None), "b": P()})
    """
    from . import core
    from .parallel.named import put_sharded
    from .tree_util import tree_flatten, tree_unflatten

    if out_shardings is None:  # (JAX's words)
        raise ValueError(
            f"Reshard should only be used with out_shardings which are non-None and have a non-empty mesh. Got sharding {out_shardings}."
        )
    leaves, tree = tree_flatten(xs)
    per_leaf = flatten_shardings("reshard out_shardings", xs, out_shardings, tupled_args=True)

    def move(v, out_sharding):
        s = as_sharding(out_sharding, "reshard")
        if isinstance(s, NamedSharding) and s.mesh.explicit_axes:  # the value's type: every dimension
            s = s.with_spec(s.spec._normalized_spec_for_aval(core.get_aval(v).ndim))
        staged = core._state.dynamic is not None and isinstance(s, NamedSharding) and isinstance(s.mesh, Mesh)
        if isinstance(v, core.Tracer) or staged:  # (a constant under jit too: the program lays it out)
            from .parallel.partition import bind_reshard

            return bind_reshard(v, s)
        return put_sharded(v, s)

    return tree_unflatten(tree, [move(v, s) for v, s in zip(leaves, per_leaf)])


def _is_sharding_leaf(s) -> bool:
    return s is None or isinstance(s, (Sharding, PartitionSpec)) or type(s).__name__ == "UnspecifiedValue"


def flatten_shardings(what: str, full, shardings, tupled_args: bool) -> list:
    """``shardings`` (a tree prefix of ``full``) as one entry per leaf of ``full``, or JAX's
    ValueError saying where they differ (its ``flatten_axis_resources``). ``tupled_args``: ``full``
    is the positional arguments (``jit``'s), whose shardings are a tuple of as many.

    >>> len(flatten_shardings("reshard out_shardings", (1, [2, 3]), (PartitionSpec(), None), True))
    3
    """
    from .pytree.prefix import broadcast_prefix, prefix_error
    from .tree_util import tree_structure

    try:
        return broadcast_prefix(shardings, full, is_leaf=_is_sharding_leaf)
    except ValueError:
        pass
    n = len(tree_structure(full).children())
    if tupled_args and (type(shardings) is not tuple or len(shardings) != n):
        msg = (
            f"{what} specification must be a tree prefix of the positional arguments tuple. In particular, "
            f"{what} must either be a Sharding, a PartitionSpec, or a tuple of length equal to the number of "
            "positional arguments."
        )
        if type(shardings) is not tuple:
            msg += f" But {what} is not a tuple: got {type(shardings)} instead."
        else:
            msg += (
                f" But {what} is the wrong length: got a tuple or list of length {len(shardings)} for an "
                f"args tuple of length {n}."
            )
        if n == 1:
            try:
                broadcast_prefix((shardings,), full, is_leaf=_is_sharding_leaf)
                msg += (
                    f" Given the corresponding argument being passed, it looks like {what} might need to be "
                    "wrapped in a singleton tuple."
                )
            except ValueError:
                pass
        raise ValueError(msg)
    error = prefix_error(what, shardings, full, _is_sharding_leaf)
    raise ValueError(f"Mismatch details (1 found):\n{error.args[0] if error else what}")


def with_out_sharding(fn):
    """``fn`` with JAX's ``out_sharding=`` keyword: its result laid out so (as ``reshard`` does;
    the values do not depend on the layout)."""
    import functools

    @functools.wraps(fn)
    def wrapped(*args, out_sharding=None, **kwargs):
        out = fn(*args, **kwargs)
        return out if out_sharding is None else reshard(out, out_sharding)

    return wrapped


def with_sharding_constraint(x, shardings):
    """Lay ``x`` (a pytree) out by ``shardings`` at this point of the computation: inside ``jit`` a
    ``sharding_constraint`` the partitioner honours, outside a move like ``reshard``. Only for
    ``Auto`` mesh axes (explicit ones are in the types: use ``reshard``).

    >>> mesh = jax.make_mesh((2,), ("b",), (jax.sharding.AxisType.Auto,))
    >>> y = jax.lax.with_sharding_constraint(np.ones(4), NamedSharding(mesh, PartitionSpec("b")))
    """
    from . import core
    from .parallel.named import put_sharded
    from .tree_util import tree_map

    sharding = as_sharding(shardings, "with_sharding_constraint", "shardings")
    current = get_abstract_mesh()
    if (
        isinstance(sharding, NamedSharding)
        and current.axis_names
        and len(current.explicit_axes) == len(current.axis_names)
    ):
        return tree_map(lambda v: _asserted(v, sharding), x)  # (JAX's: an assert on an Explicit mesh)
    if isinstance(sharding, NamedSharding):
        mesh = sharding.mesh.abstract_mesh if isinstance(sharding.mesh, Mesh) else sharding.mesh
        if current.axis_names == mesh.axis_names:
            mesh = current
        used = {a for e in sharding.spec.partitions for a in _axes_of(e)}
        if used & set(mesh.explicit_axes):
            raise ValueError(
                "The spec of NamedSharding passed to with_sharding_constraint can only refer to Auto axes of "
                f"the mesh. Got spec={sharding.spec} and mesh={mesh}. You probably meant to use `reshard` API?"
            )

    def constrain(v):
        if isinstance(v, core.Tracer):
            from .parallel.partition import bind_sharding_constraint

            return bind_sharding_constraint(v, sharding, from_spec=isinstance(shardings, PartitionSpec))
        return put_sharded(v, sharding)

    return tree_map(constrain, x)


def _asserted(x, sharding: NamedSharding):
    """``x``, whose type must say ``sharding`` (unconstrained dimensions aside): JAX's assert."""
    from .partition_spec import UNCONSTRAINED
    from .sharded_types import typeof

    have = typeof(x).sharding.spec
    want = sharding.spec._normalized_spec_for_aval(len(have))
    if any(w is not UNCONSTRAINED and h != w for h, w in zip(have, want)):
        raise AssertionError(
            "`with_sharding_constraint` acts as an assert when all axes of mesh are of type `Explicit`. "
            f"The array sharding: {have} did not match the sharding provided: {want}. Please use "
            "`jax.sharding.reshard` to shard your input to the sharding you want."
        )
    return x
