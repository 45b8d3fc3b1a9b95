"""Record JAX 0.10.2's results of ``sparse_cases.py`` into ``sparse.json`` (run with JAX's venv):

/work/main/.jax-venv/bin/python tests/jax_reference/record_sparse.py
"""

import json
import pathlib
import sys

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def encode(x):
    """Arrays as values and dtypes, BCOO arrays as their buffers, shape and repr, errors as names."""
    if isinstance(x, (tuple, list)):
        return [encode(v) for v in x]
    if isinstance(x, str):
        return {"text": x}
    if hasattr(x, "indices") and hasattr(x, "nse"):
        return {"repr": repr(x), "shape": list(x.shape), "data": encode(x.data), "indices": encode(x.indices)}
    a = np.asarray(x)
    return {"value": a.tolist(), "dtype": a.dtype.name, "shape": list(a.shape)}


def run(jax, cases):
    out = {}
    for name, fn in cases.items():
        try:
            out[name] = encode(fn(jax))
        except Exception as e:  # the error class is the recorded outcome
            out[name] = {"error": type(e).__name__}
    return out


def main():
    import jax
    import sparse_cases

    result = run(jax, sparse_cases.CASES)
    (HERE / "sparse.json").write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
