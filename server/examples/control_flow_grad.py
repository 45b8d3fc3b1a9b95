from ..models import Example
from ._reference import leaf, t

CODE = """\
import jax

def abs_val(x):
    # Plain Python control flow: grad traces the branch actually taken.
    if x > 0:
        return x
    else:
        return -x

abs_val_grad = jax.grad(abs_val)
print(abs_val_grad(1.0))    # 1.0
print(abs_val_grad(-1.0))   # -1.0
"""

EXAMPLE = Example(
    id="control-flow-grad",
    title="Python control flow under grad",
    topic="grad",
    description="grad works through if/else and loops because it runs the Python function on "
    "concrete values and differentiates the path taken.",
    code=CODE,
    function="abs_val",
    stack=[t("grad")],
    args=["-1.0"],
    expected=[leaf(-1.0)],
)
