"""The transformations a stack can hold, and their options: the one list the runner, the report
schema, error attribution and the page (``GET /api/transforms``) all derive from."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Transform:
    name: str
    # The machinery an error inside it comes from (engine.inspect.errors matches tracer types).
    family: str
    # The keyword options the page offers, in display order.
    options: tuple[str, ...]
    # The module defining it: ``engine`` (``jax.X``), else an experimental one the user imports.
    module: str = "engine"


_AD_OPTIONS = ("argnums", "has_aux")

TRANSFORMS: dict[str, Transform] = {
    t.name: t
    for t in (
        Transform("grad", "ad", _AD_OPTIONS),
        Transform("value_and_grad", "ad", _AD_OPTIONS),
        Transform("jacfwd", "ad", _AD_OPTIONS),
        Transform("jacrev", "ad", _AD_OPTIONS),
        Transform("hessian", "ad", _AD_OPTIONS),
        Transform("vmap", "vmap", ("in_axes", "out_axes", "axis_name")),
        Transform("jit", "jit", ("static_argnums",)),
        Transform("pmap", "jit", ("axis_name", "in_axes", "out_axes", "static_broadcasted_argnums")),
        # jax.experimental.checkify.checkify: f -> (Error, out); stages the function as jit does
        Transform("checkify", "jit", ("errors",), module="engine.checkify"),
    )
}

# Other names user code may call for one of them (recorded as calls, not offered in a stack).
ALIASES = {"jacobian": "jacrev"}

# Transformations user code may call that are recorded (their stages, devices, errors) but not offered
# in a stack: their options (a mesh, specs) are objects the code builds.
RECORDED_ONLY = ("shard_map",)

# What an empty option box means, worded so that it cannot pass for a value.
OPTION_HINTS = {
    "argnums": "default 0",
    "has_aux": "default False",
    "in_axes": "default 0",
    "out_axes": "default 0",
    "axis_name": "none; e.g. 'i'",
    "static_argnums": "none; e.g. (1,)",
    "static_broadcasted_argnums": "none; e.g. (1,)",
    "errors": "default checkify.user_checks; e.g. checkify.all_checks",
}
