"""What XLA's shape inference refuses in a gather or a scatter, checked in its order and reported in
JAX's words (``jax.lax.gather`` and ``scatter`` raise these before lowering): dimension numbers that
are unsorted, repeated, out of range or overlapping, slice sizes that do not fit, updates whose
window or scatter dimensions disagree with the operand or the indices. The index vector is always
the last dimension of the indices, as in JAX."""

from __future__ import annotations


def _sorted(dims, op, name):
    if any(b < a for a, b in zip(dims, dims[1:])):
        raise TypeError(f"{name} in {op} op must be sorted; got {dims}")


def _in_range(dims, rank, op, name):
    for d in dims:
        if not 0 <= d < rank:
            raise TypeError(f"Invalid {name} set in {op} op; valid range is [0, {rank}); got: {d}.")


def _sorted_in_range(dims, rank, op, name):
    # (of sorted dimensions only the first and the last are looked at; a 0 is never reported)
    bad = dims[0] if dims and dims[0] < 0 else dims[-1] if dims and dims[-1] >= rank else None
    if bad:
        raise TypeError(f"Invalid {name} set in {op} op; valid range is [0, {rank}); got: {bad}.")


def _unique(dims, op, name):
    if len(set(dims)) != len(dims):
        raise TypeError(f"{name} in {op} op must not repeat; got: {dims}.")


def _disjoint(a, b, op, name_a, name_b):
    if set(a) & set(b):
        raise TypeError(f"{name_a} and {name_b} in {op} op must be disjoint; got: {a} and {b}.")


def _batching(op, operand, indices, operand_dims, indices_dims, indices_name):
    _unique(indices_dims, op, indices_name)
    _in_range(indices_dims, len(indices.shape), op, indices_name)
    if len(indices.shape) - 1 in indices_dims:
        raise TypeError(
            f"{op.capitalize()} op cannot have the index vector dimension as a batching dimension; "
            f"got {indices_dims}."
        )
    if len(operand_dims) != len(indices_dims):
        sep = "" if op == "gather" else " "  # (JAX's gather message runs the two together)
        raise TypeError(
            f"{op.capitalize()} op requires equal numbers of operand_batching_dims and {indices_name}, "
            f"got {operand_dims} and{sep}{indices_dims}."
        )
    operand_batch = tuple(operand.shape[i] for i in operand_dims)
    indices_batch = tuple(indices.shape[i] for i in indices_dims)
    if operand_batch != indices_batch:
        raise TypeError(
            f"{op.capitalize()} op requires operand batching dimensions and indices batching "
            f"dimensions to have the same shape, got {operand_batch} and {indices_batch}."
        )
    return operand_batch


def _index_vector_dim(op, indices) -> int:
    """The last dimension of the indices: the index vector (there must be one)."""
    if not indices.shape:
        raise TypeError(
            f"{op.capitalize()} index leaf dimension must be within [0, rank(indices) + 1). rank(indices) "
            f"is 0 and {op} index leaf dimension is -1."
        )
    return len(indices.shape) - 1


def check_gather(operand, indices, dn, slice_sizes) -> None:
    """Raise JAX's TypeError for a gather XLA would refuse (avals, ``GatherDimensionNumbers``)."""
    offset, collapsed, start_map = dn.offset_dims, dn.collapsed_slice_dims, dn.start_index_map
    obatch, ibatch = dn.operand_batching_dims, dn.start_indices_batching_dims
    rank, vector_dim = len(operand.shape), _index_vector_dim("gather", indices)
    _sorted(offset, "gather", "offset_dims")
    _unique(offset, "gather", "offset_dims")
    out_rank = len(offset) + vector_dim
    for i, d in enumerate(offset):
        if not 0 <= d < out_rank:
            raise TypeError(
                f"Offset dimension {i} in gather op is out of bounds; got {d}, but should have been in [0, {out_rank})"
            )
    if len(start_map) != indices.shape[vector_dim]:
        raise TypeError(
            f"Gather op has {len(start_map)} elements in start_index_map and the bound of dimension "
            f"index_vector_dim={vector_dim} of indices is {indices.shape[vector_dim]}. These two numbers must be equal."
        )
    for i, d in enumerate(start_map):
        if not 0 <= d < rank:
            raise TypeError(f"Invalid start_index_map; domain is [0, {rank}), got: {i}->{d}.")
    _unique(start_map, "gather", "start_index_map")
    _sorted(collapsed, "gather", "collapsed_slice_dims")
    _sorted_in_range(collapsed, rank, "gather", "collapsed_slice_dims")
    _unique(collapsed, "gather", "collapsed_slice_dims")
    _unique(obatch, "gather", "operand_batching_dims")
    _sorted(obatch, "gather", "operand_batching_dims")
    _sorted_in_range(obatch, rank, "gather", "operand_batching_dims")
    _disjoint(collapsed, obatch, "gather", "collapsed_slice_dims", "operand_batching_dims")
    _disjoint(start_map, obatch, "gather", "start_index_map", "operand_batching_dims")
    _batching("gather", operand, indices, obatch, ibatch, "start_indices_batching_dims")
    if rank != len(slice_sizes):
        raise TypeError(
            f"Gather op must have one slice size for every input dimension; got: "
            f"len(slice_sizes)={len(slice_sizes)}, input_shape.rank={rank}"
        )
    if len(slice_sizes) != len(offset) + len(collapsed) + len(obatch):
        raise TypeError(
            "All components of the offset index in a gather op must either be a offset dimension or "
            f"explicitly collapsed/batching; got len(slice_sizes)={len(slice_sizes)}, output_slice_sizes="
            f"{offset}, collapsed_slice_dims={collapsed}, operand_batching_dims={obatch}."
        )
    if not any(d == 0 for d in indices.shape):  # (no index, no slice: any size goes)
        for i, (s, n) in enumerate(zip(slice_sizes, operand.shape)):
            if not 0 <= s <= n:
                raise TypeError(
                    f"Slice size at index {i} in gather op is out of range, must be within [0, {n} + 1), got {s}."
                )
    for i, d in enumerate(collapsed):
        if slice_sizes[d] != 1:
            raise TypeError(
                f"Gather op can only collapse slice dims with bound 1, but bound is {slice_sizes[d]} for "
                f"index {d} at position {i}."
            )
    for i, d in enumerate(obatch):
        if slice_sizes[d] > 1:
            raise TypeError(
                f"Gather op can only have operand batching dims with bound 0/1, but bound is "
                f"{slice_sizes[d]} for index {d} at position {i}."
            )


def check_scatter(operand, indices, updates, dn) -> None:
    """Raise JAX's TypeError for a scatter XLA would refuse (avals, ``ScatterDimensionNumbers``)."""
    window, inserted, to_operand = (
        dn.update_window_dims,
        dn.inserted_window_dims,
        dn.scatter_dims_to_operand_dims,
    )
    obatch, ibatch = dn.operand_batching_dims, dn.scatter_indices_batching_dims
    rank, vector_dim = len(operand.shape), _index_vector_dim("scatter", indices)
    expected = vector_dim + len(window)
    if len(updates.shape) != expected:
        raise TypeError(f"Updates tensor must be of rank {expected}; got {len(updates.shape)}.")
    for dims, bound, name in ((window, len(updates.shape), "update_window_dims"), (inserted, rank, "inserted_window_dims"), (obatch, rank, "operand_batching_dims")):  # fmt: skip
        _sorted(dims, "scatter", name)
        _unique(dims, "scatter", name)
        _sorted_in_range(dims, bound, "scatter", name)
    _disjoint(inserted, obatch, "scatter", "inserted_window_dims", "operand_batching_dims")
    _disjoint(to_operand, obatch, "scatter", "scatter_dims_to_operand_dims", "operand_batching_dims")
    operand_batch = _batching("scatter", operand, indices, obatch, ibatch, "scatter_indices_batching_dims")
    in_updates: list = list(range(vector_dim))  # (each scatter dimension of the updates, in order)
    for d in window:
        in_updates.insert(d, None)
    updates_batch = tuple(updates.shape[in_updates.index(i)] for i in ibatch)
    if operand_batch != updates_batch:
        raise TypeError(
            "Scatter op requires operand batching dimensions and updates batching dimensions to have "
            f"the same shape, got {operand_batch} and {updates_batch}."
        )
    size = len(window) + len(inserted) + len(obatch)
    if rank != size:
        raise TypeError(f"Scatter op has window of size {size}; doesn't match operand of rank {rank}.")
    if len(to_operand) != indices.shape[vector_dim]:
        raise TypeError(
            f"Scatter op has {len(to_operand)} elements in scatter_dims_to_operand_dims and the bound of "
            f"dimension index_vector_dim={vector_dim} of indices is {indices.shape[vector_dim]}. These "
            "two numbers must be equal"
        )
    for i, d in enumerate(to_operand):
        if not 0 <= d < rank:
            raise TypeError(
                f"Invalid scatter_dims_to_operand_dims mapping; domain is [0, {rank}), got: {i}->{d}."
            )
    _unique(to_operand, "scatter", "scatter_dims_to_operand_dims")
    largest = [n for i, n in enumerate(operand.shape) if i not in inserted and i not in obatch]
    for d, bound in zip(window, largest):
        if bound < updates.shape[d]:
            raise TypeError(
                "Bounds of the window dimensions of updates must not exceed the bounds of the "
                f"corresponding dimensions of operand. For dimension {d}, updates bound is "
                f"{updates.shape[d]}, operand bound is {bound}."
            )
    scatter_dims = [d for d in range(len(updates.shape)) if d not in window]
    for d, bound in zip(scatter_dims, indices.shape[:vector_dim]):
        if updates.shape[d] != bound:
            raise TypeError(
                "Bounds of the scatter dimensions of updates must be the same as the bounds of the "
                f"corresponding dimensions of scatter indices. For scatter dimension {d}, updates "
                f"bound is {updates.shape[d]}, indices bound is {bound}."
            )
