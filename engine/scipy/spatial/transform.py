"""``jax.scipy.spatial.transform``: ``Rotation`` (unit quaternions ``[x, y, z, w]``, scalar last, with
any leading batch axes) and ``Slerp``, with scipy's conversions and JAX 0.10.2's formulas (series
for small angles, the matrix-to-quaternion branch on the largest diagonal entry).

>>> Rotation.from_euler("z", 90, degrees=True).apply(jnp.array([1.0, 0.0, 0.0]))
Array([0.        , 0.99999994, 0.        ], dtype=float32)
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple, Sequence

import numpy as np

from ... import numpy as jnp


def _vectorized(signature):
    return lambda fn: jnp.vectorize(fn, signature=signature)


def _norm(v):
    return jnp.sqrt(jnp.sum(v * v, axis=-1))


# One-rotation helpers mapped over the leading axes by jnp.vectorize, as JAX writes them (so a single
# rotation stages JAX's equations: dot products, scalar entries assembled with jnp.array, and the
# flags -- inverse, degrees -- selected with jnp.where rather than branched on).


@_vectorized("(n)->()")
def _length(v):
    return jnp.sqrt(jnp.dot(v, v))


@_vectorized("(n)->(n)")
def _normalized(q):
    return q / _length(q)


@_vectorized("(m)->(n,n)")
def _matrix_of(quat):
    x, y, z, w = quat[0], quat[1], quat[2], quat[3]
    x2, y2, z2, w2 = x * x, y * y, z * z, w * w
    xy, zw, xz, yw, yz, xw = x * y, z * w, x * z, y * w, y * z, x * w
    return jnp.array(
        [
            [+x2 - y2 - z2 + w2, 2 * (xy - zw), 2 * (xz + yw)],
            [2 * (xy + zw), -x2 + y2 - z2 + w2, 2 * (yz - xw)],
            [2 * (xz - yw), 2 * (yz + xw), -x2 - y2 + z2 + w2],
        ]
    )


@_vectorized("(m,m),(m),()->(m)")
def _rotated(matrix, vector, inverse):
    return jnp.where(inverse, matrix.T, matrix) @ vector


@_vectorized("(m),()->(n)")
def _rotvec_of(quat, degrees):
    quat = jnp.where(quat[3] < 0, -quat, quat)  # (w >= 0: the angle in [0, pi])
    angle = 2.0 * jnp.arctan2(_length(quat[:3]), quat[3])
    a2 = angle * angle
    small = 2 + a2 / 12 + 7 * a2 * a2 / 2880
    large = angle / jnp.sin(angle / 2)
    scale = jnp.where(angle <= 1e-3, small, large)
    scale = jnp.where(degrees, jnp.rad2deg(scale), scale)
    return scale * jnp.array(quat[:3])


@_vectorized("(m),()->(n)")
def _quat_of_rotvec(rotvec, degrees):
    rotvec = jnp.where(degrees, jnp.deg2rad(rotvec), rotvec)
    angle = _length(rotvec)
    a2 = angle * angle
    small = 0.5 - a2 / 48 + a2 * a2 / 3840
    large = jnp.sin(angle / 2) / angle
    scale = jnp.where(angle <= 1e-3, small, large)
    return jnp.hstack([scale * rotvec, jnp.cos(angle / 2)])


@_vectorized("(),()->(n)")
def _about_axis(axis, angle):
    """The quaternion of a rotation by ``angle`` about basis axis ``axis`` (a traced index)."""
    quat = jnp.zeros(4, dtype=angle.dtype)
    quat = quat.at[3].set(jnp.cos(angle / 2.0))
    return quat.at[axis].set(jnp.sin(angle / 2.0))


@_vectorized("(m),(m),(),()->(n)")
def _composed_about_axes(angles, axes, intrinsic, degrees):
    """The rotations about ``axes`` by ``angles`` composed in order (intrinsic: each about the
    rotated axes, so applied on the right)."""
    angles = jnp.where(degrees, jnp.deg2rad(angles), angles)
    result = _about_axis(axes[0], angles[0])
    for n in range(1, len(axes)):
        step = _about_axis(axes[n], angles[n])
        result = jnp.where(intrinsic, _product(result, step), _product(step, result))
    return result


@_vectorized("(n)->(n)")
def _inverse(quat):
    return quat * jnp.array([-1, -1, -1, 1], dtype=quat.dtype)


@_vectorized("(n),(n)->(n)")
def _product(p, q):
    """The quaternion of rotation ``q`` followed by ``p`` (Hamilton product ``p q``)."""
    cross = jnp.cross(p[:3], q[:3])
    return jnp.array(
        [
            p[3] * q[0] + q[3] * p[0] + cross[0],
            p[3] * q[1] + q[3] * p[1] + cross[1],
            p[3] * q[2] + q[3] * p[2] + cross[2],
            p[3] * q[3] - p[0] * q[0] - p[1] * q[1] - p[2] * q[2],
        ]
    )


def _compose(p, q):
    """The quaternion of rotation ``q`` followed by ``p`` (Hamilton product ``p q``)."""
    p, q = jnp.broadcast_arrays(p, q)
    cross = jnp.cross(p[..., :3], q[..., :3])
    pw, qw = p[..., 3:], q[..., 3:]
    vec = pw * q[..., :3] + qw * p[..., :3] + cross
    w = p[..., 3] * q[..., 3] - p[..., 0] * q[..., 0] - p[..., 1] * q[..., 1] - p[..., 2] * q[..., 2]
    return jnp.concatenate([vec, w[..., None]], axis=-1)


def _axis_index(axis: str) -> int:
    if axis not in "xyz" or len(axis) != 1:
        raise ValueError(f"Expected axis to be from ['x', 'y', 'z'], got {axis}")
    return "xyz".index(axis)


def _check_sequence(seq: str, lengths) -> bool:
    """Validate an Euler axis sequence; True when intrinsic (upper case)."""
    if len(seq) not in lengths:
        if lengths == (3,):
            raise ValueError(f"Expected 3 axes, got {seq}.")
        raise ValueError(
            f"Expected axis specification to be a non-empty string of upto 3 characters, got {seq}"
        )
    intrinsic = re.match(r"^[XYZ]{1,3}$", seq) is not None
    extrinsic = re.match(r"^[xyz]{1,3}$", seq) is not None
    if not (intrinsic or extrinsic):
        raise ValueError(f"Expected axes from `seq` to be from ['x', 'y', 'z'] or ['X', 'Y', 'Z'], got {seq}")
    if any(seq[i] == seq[i + 1] for i in range(len(seq) - 1)):
        raise ValueError(f"Expected consecutive axes to be different, got {seq}")
    return intrinsic


def _elementary(axis: int, angle):
    half = angle / 2.0
    parts = [jnp.zeros_like(angle)] * 3 + [jnp.cos(half)]
    parts[axis] = jnp.sin(half)
    return jnp.stack(parts, axis=-1)


@_vectorized("(m),(l),(),()->(n)")
def _euler_from_quat(quat, axes, extrinsic, degrees):
    """Euler angles about ``axes`` (a traced index array) of one rotation, as JAX computes them:
    both the symmetric (``i == k``) and the asymmetric formulas, selected; the gimbal-locked cases
    (middle angle 0 or pi) give the first angle everything."""
    first = jnp.where(extrinsic, 0, 2)
    third = jnp.where(extrinsic, 2, 0)
    axes = jnp.where(extrinsic, axes, axes[::-1])
    i, j, k = axes[0], axes[1], axes[2]
    symmetric = i == k
    k = jnp.where(symmetric, 3 - i - j, k)
    sign = jnp.array((i - j) * (j - k) * (k - i) // 2, dtype=quat.dtype)
    eps = 1e-7
    a = jnp.where(symmetric, quat[3], quat[3] - quat[j])
    b = jnp.where(symmetric, quat[i], quat[i] + quat[k] * sign)
    c = jnp.where(symmetric, quat[j], quat[j] + quat[3])
    d = jnp.where(symmetric, quat[k] * sign, quat[k] * sign - quat[i])
    angles = jnp.empty(3, dtype=quat.dtype)
    angles = angles.at[1].set(2 * jnp.arctan2(jnp.hypot(c, d), jnp.hypot(a, b)))
    case = jnp.where(jnp.abs(angles[1] - np.pi) <= eps, 2, 0)
    case = jnp.where(jnp.abs(angles[1]) <= eps, 1, case)
    half_sum = jnp.arctan2(b, a)
    half_diff = jnp.arctan2(d, c)
    degenerate = jnp.where(case == 1, 2 * half_sum, 2 * half_diff * jnp.where(extrinsic, -1, 1))
    angles = angles.at[0].set(degenerate)
    angles = angles.at[first].set(jnp.where(case == 0, half_sum - half_diff, angles[first]))
    angles = angles.at[third].set(jnp.where(case == 0, half_sum + half_diff, angles[third]))
    angles = angles.at[third].set(jnp.where(symmetric, angles[third], angles[third] * sign))
    angles = angles.at[1].set(jnp.where(symmetric, angles[1], angles[1] - np.pi / 2))
    angles = (angles + np.pi) % (2 * np.pi) - np.pi
    return jnp.where(degrees, jnp.rad2deg(angles), angles)


class Rotation(NamedTuple):
    """A rotation (or a batch of them) in 3 dimensions, stored as unit quaternions ``[x, y, z, w]``.

    >>> r = Rotation.from_rotvec(jnp.array([0.0, 0.0, jnp.pi / 2]))
    >>> r.as_matrix().round(5)
    Array([[ 0., -1.,  0.],
           [ 1.,  0.,  0.],
           [ 0.,  0.,  1.]], dtype=float32)
    """

    quat: Any

    @classmethod
    def concatenate(cls, rotations: Sequence):
        return cls(jnp.concatenate([r.quat for r in rotations]))

    @classmethod
    def from_euler(cls, seq: str, angles, degrees: bool = False):
        intrinsic = _check_sequence(seq, (1, 2, 3))
        axes = jnp.array([_axis_index(a) for a in seq.lower()])
        return cls(_composed_about_axes(jnp.atleast_1d(angles), axes, intrinsic, degrees))

    @classmethod
    def from_matrix(cls, matrix):
        m = jnp.asarray(matrix)
        trace = m[..., 0, 0] + m[..., 1, 1] + m[..., 2, 2]
        decision = jnp.stack([m[..., 0, 0], m[..., 1, 1], m[..., 2, 2], trace], axis=-1)
        choice = jnp.argmax(decision, axis=-1)
        candidates = []
        for i in range(3):  # the branch on the largest diagonal entry i, for each i
            j, k = (i + 1) % 3, (i + 2) % 3
            q = [None] * 4
            q[i] = 1 - trace + 2 * m[..., i, i]
            q[j] = m[..., j, i] + m[..., i, j]
            q[k] = m[..., k, i] + m[..., i, k]
            q[3] = m[..., k, j] - m[..., j, k]
            candidates.append(jnp.stack(q, axis=-1))
        from_trace = jnp.stack(
            [
                m[..., 2, 1] - m[..., 1, 2],
                m[..., 0, 2] - m[..., 2, 0],
                m[..., 1, 0] - m[..., 0, 1],
                1 + trace,
            ],
            axis=-1,
        )
        quat = from_trace
        for i in range(3):
            quat = jnp.where((choice == i)[..., None], candidates[i], quat)
        return cls(_normalized(quat))

    @classmethod
    def from_mrp(cls, mrp):
        mrp = jnp.asarray(mrp)
        s = jnp.sum(mrp * mrp, axis=-1, keepdims=True) + 1
        return cls(jnp.concatenate([2 * mrp[..., :3], 2 - s], axis=-1) / s)

    @classmethod
    def from_quat(cls, quat):
        return cls(_normalized(quat))

    @classmethod
    def from_rotvec(cls, rotvec, degrees: bool = False):
        return cls(_quat_of_rotvec(rotvec, degrees))

    @classmethod
    def identity(cls, num: int | None = None, dtype=float):
        assert num is None
        return cls(jnp.array([0.0, 0.0, 0.0, 1.0], dtype=dtype))

    @classmethod
    def random(cls, random_key, num: int | None = None):
        raise NotImplementedError(
            "Rotation.random needs scipy.stats.special_ortho_group, which JAX lacks too."
        )

    def __getitem__(self, indexer):
        if self.single:
            raise TypeError("Single rotation is not subscriptable.")
        return Rotation(self.quat[indexer])

    def __len__(self):
        if self.single:
            raise TypeError("Single rotation has no len().")
        return self.quat.shape[0]

    def __mul__(self, other) -> Rotation:  # type: ignore[override]
        return Rotation.from_quat(_product(self.quat, other.quat))

    def apply(self, vectors, inverse: bool = False):
        return _rotated(self.as_matrix(), vectors, inverse)

    def as_euler(self, seq: str, degrees: bool = False):
        intrinsic = _check_sequence(seq, (3,))
        axes = jnp.array([_axis_index(a) for a in seq.lower()])
        return _euler_from_quat(self.quat, axes, not intrinsic, degrees)

    def as_matrix(self):
        return _matrix_of(self.quat)

    def as_mrp(self):
        sign = jnp.where(self.quat[..., 3] < 0, -1.0, 1.0)
        return (sign / (1.0 + sign * self.quat[..., 3]))[..., None] * self.quat[..., :3]

    def as_rotvec(self, degrees: bool = False):
        return _rotvec_of(self.quat, degrees)

    def as_quat(self, canonical: bool = False, scalar_first: bool = False):
        quat = self.quat
        if canonical:  # w >= 0, or the first nonzero of w, x, y, z positive
            neg, zero = quat < 0, quat == 0
            flip = (
                neg[..., 3]
                | (zero[..., 3] & neg[..., 0])
                | (zero[..., 3] & zero[..., 0] & neg[..., 1])
                | (zero[..., 3] & zero[..., 0] & zero[..., 1] & neg[..., 2])
            )
            quat = jnp.where(flip[..., None], -quat, quat)
        return jnp.roll(quat, shift=1, axis=-1) if scalar_first else quat

    def inv(self):
        return Rotation(_inverse(self.quat))

    def magnitude(self):
        return 2.0 * jnp.arctan2(_norm(self.quat[..., :3]), jnp.abs(self.quat[..., 3]))

    def mean(self, weights=None):
        """The rotation minimizing the weighted squared chordal distances (the dominant
        eigenvector of the weighted quaternion outer products)."""
        dtype = self.quat.dtype
        w = (
            jnp.ones(self.quat.shape[0], dtype=dtype)
            if weights is None
            else jnp.asarray(weights, dtype=dtype)
        )
        if w.ndim != 1:
            raise ValueError(f"Expected `weights` to be 1 dimensional, got shape {w.shape}.")
        if w.shape[0] != len(self):
            raise ValueError(
                "Expected `weights` to have number of values equal to number of rotations, got "
                f"{w.shape[0]} values and {len(self)} rotations."
            )
        K = jnp.dot(w[None, :] * self.quat.T, self.quat)
        _, v = jnp.linalg.eigh(K)
        return Rotation(v[:, -1])

    @property
    def single(self) -> bool:
        return self.quat.ndim == 1


class Slerp(NamedTuple):
    """Spherical linear interpolation between rotations at increasing ``times`` (build it with
    ``Slerp.init(times, rotations)``; call it with the times to interpolate at)."""

    times: Any
    timedelta: Any
    rotations: Any
    rotvecs: Any

    @classmethod
    def init(cls, times, rotations: Rotation):
        if not isinstance(rotations, Rotation):
            raise TypeError("`rotations` must be a `Rotation` instance.")
        if rotations.single or len(rotations) == 1:
            raise ValueError("`rotations` must be a sequence of at least 2 rotations.")
        times = jnp.asarray(times, dtype=rotations.quat.dtype)
        if times.ndim != 1:
            raise ValueError(
                f"Expected times to be specified in a 1 dimensional array, got {times.ndim} dimensions."
            )
        if times.shape[0] != len(rotations):
            raise ValueError(
                "Expected number of rotations to be equal to number of timestamps given, got "
                f"{len(rotations)} rotations and {times.shape[0]} timestamps."
            )
        timedelta = jnp.diff(times)  # (first, as JAX's; not checked increasing: it would need values)
        starts = Rotation(rotations.as_quat()[:-1])
        steps = (starts.inv() * Rotation(rotations.as_quat()[1:])).as_rotvec()
        return cls(times=times, timedelta=timedelta, rotations=starts, rotvecs=steps)

    def __call__(self, times):
        t = jnp.asarray(times, dtype=self.times.dtype)
        if t.ndim > 1:
            raise ValueError("`times` must be at most 1-dimensional.")
        single = t.ndim == 0
        t = jnp.atleast_1d(t)
        ind = jnp.maximum(jnp.searchsorted(self.times, t) - 1, 0)
        alpha = (t - self.times[ind]) / self.timedelta[ind]
        out = self.rotations[ind] * Rotation.from_rotvec(self.rotvecs[ind] * alpha[:, None])
        return out[0] if single else out
