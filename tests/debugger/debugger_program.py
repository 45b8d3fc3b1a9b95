"""A program stopping at two ``jax.debug.breakpoint``s under ``jit``, its debugger commands given as
``stdin``. Run with JAX 0.10.2 to record what it prints (``tests/debugger/expected.json``):

    /work/main/.jax-venv/bin/python tests/debugger/debugger_program.py
"""

import io
import json
import os
import sys


def run(jax):
    """(the debugger's transcript, with this file's path as <FILE>, and the two results)."""
    out = io.StringIO()

    def f(x):
        y = x * 2.0
        jax.debug.breakpoint(stdin=io.StringIO("p y\npp {'y': y}\nx + 1\nnope\nup\ndown\nc\n"), stdout=out)
        return y

    def g(x):
        return f(x) + 1.0

    value = jax.jit(g)(jax.numpy.float32(1.5))
    token = jax.jit(lambda x: jax.debug.breakpoint(token=x, stdin=io.StringIO("p x\nl\nc\n"), stdout=out))(
        2.0
    )
    return {
        "transcript": out.getvalue().replace(os.path.abspath(__file__), "<FILE>").split("\n"),
        "value": float(value),
        "token": float(token),
    }


if __name__ == "__main__":
    import jax

    assert jax.__version__ == "0.10.2", jax.__version__
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected.json"), "w") as fh:
        json.dump({"jax_version": jax.__version__, **run(jax)}, fh, indent=1)
        fh.write("\n")
    sys.exit(0)
