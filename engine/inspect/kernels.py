"""What each step of a jitted program computes: kernel launches mapped to the jaxpr's equations,
with their estimated cost and measured time.

The numba backend records, per kernel launch, the flat equations it fuses (``Launch``) and where
each sits in the staged jaxpr (``FlatProgram.paths``); a program compiled while the run profiles kernels
also times each launch. Equations no kernel computes run on the host (matmuls through BLAS,
loops, fallbacks): each is a step of its own when it does work, timed like a launch.
"""

from __future__ import annotations

from .cost import eqn_cost
from .schema import KernelInfo


def eqn_path(path: tuple[int, ...]) -> str:
    """``(5, 2)`` -> ``"n5/n2"``: the graph's node id below the jit node."""
    return "/".join(f"n{i}" for i in path)


def kernel_steps(program) -> list[KernelInfo]:
    """The steps of ``program`` (a compiled executable, or a code generator after ``generate()``:
    anything with ``launches`` and ``flat``), in program order; [] for the interpreter."""
    launches = getattr(program, "launches", None)
    flat = getattr(program, "flat", None)
    if not launches and flat is None:
        return []
    seconds = getattr(program, "launch_seconds", None)
    counts = getattr(program, "launch_counts", None)
    fastest = getattr(program, "launch_min", None)
    steps: list[tuple[int, KernelInfo]] = []
    covered: set[int] = set()
    for j, launch in enumerate(launches or []):
        covered.update(launch.eqns)
        n = counts[j] if counts else 0
        steps.append(
            (
                min(launch.eqns, default=0),
                KernelInfo(
                    name=launch.kernel,
                    eqns=list(dict.fromkeys(eqn_path(flat.paths[i]) for i in launch.eqns)),
                    flops=sum((eqn_cost(flat.eqns[i]).flops for i in launch.eqns), 0.0),
                    bytes=float(launch.read_bytes + launch.write_bytes),
                    launches=n,
                    measured_ms=round(fastest[j] * 1000, 6) if n and fastest else None,
                    total_ms=round(seconds[j] * 1000, 6) if n and seconds else None,
                ),
            )
        )
    # a host step's timing slot, by its equation
    host = {i: j for j, (i, _, _) in enumerate(getattr(program, "host_steps", None) or [])}
    host_seconds = getattr(program, "host_seconds", None)
    host_counts = getattr(program, "host_counts", None)
    host_min = getattr(program, "host_min", None)
    for i, eqn in enumerate(flat.eqns):
        if i in covered:
            continue
        cost = eqn_cost(eqn)
        if cost.flops <= 0:
            continue  # a re-indexing no kernel needed, a reshape: no work of its own
        j = host.get(i)
        n = host_counts[j] if j is not None and host_counts else 0
        steps.append(
            (
                i,
                KernelInfo(
                    name=f"host: {eqn.primitive.name}",
                    kind="host",
                    eqns=[eqn_path(flat.paths[i])],
                    flops=cost.flops,
                    bytes=cost.bytes,
                    launches=n,
                    measured_ms=round(host_min[j] * 1000, 6) if n and host_min else None,
                    total_ms=round(host_seconds[j] * 1000, 6) if n and host_seconds else None,
                ),
            )
        )
    # kernels launch in program order; host steps go where their equation is
    return [k for _, k in sorted(steps, key=lambda s: s[0])]
