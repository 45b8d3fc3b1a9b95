"""Doctests (``pytest --doctest-modules engine``) run in JAX's documentation namespace."""

import builtins

import numpy as np
import pytest


@pytest.fixture(autouse=True)
def _jax_names(doctest_namespace):
    import engine as jax
    import engine.numpy as jnp
    from engine import lax

    # Examples read as user code: ``print`` is the builtin even in engine.debug (which defines its own).
    doctest_namespace.update(np=np, jax=jax, jnp=jnp, lax=lax, print=builtins.print)
