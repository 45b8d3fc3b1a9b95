"""Snippets for jax.scipy.spatial.transform (Rotation, Slerp). Registered in snippets.py."""

T = "from jax.scipy.spatial.transform import Rotation, Slerp\n"
EUL = (
    T
    + "r = Rotation.from_euler('xyz', jnp.array([[10., 20., 30.], [40., 50., 60.], [-170., 80., 5.]]), degrees=True)\n"
)

SPATIAL = [
    ("from_euler", EUL + "out = (r.as_quat(), r.as_matrix())", 1e-5),
    (
        "from_euler_intrinsic",
        T + "out = Rotation.from_euler('ZYX', jnp.array([0.3, -0.2, 1.1])).as_quat()",
        1e-5,
    ),
    (
        "from_euler_single_axis",
        T
        + "out = (Rotation.from_euler('z', 90, degrees=True).as_quat(), Rotation.from_euler('xy', jnp.array([0.1, 0.2])).as_quat())",
        1e-6,
    ),
    (
        "as_euler",
        EUL
        + "out = [r.as_euler(s) for s in ('xyz', 'zyx', 'XYZ', 'zxz', 'ZXZ', 'yxy')] + [r.as_euler('xyz', degrees=True)]",
        1e-4,
    ),
    (
        "as_euler_gimbal",
        T
        + "out = Rotation.from_euler('xyz', jnp.array([[0.3, jnp.pi / 2, 0.2], [0.1, 0., 0.4]])).as_euler('xyz')",
        1e-3,
    ),
    ("rotvec_mrp", EUL + "out = (r.as_rotvec(), r.as_rotvec(degrees=True), r.as_mrp(), r.magnitude())", 1e-5),
    (
        "from_rotvec",
        T
        + "out = (Rotation.from_rotvec(jnp.array([[0.1, 0.2, 0.3], [1e-4, 0., 0.], [0., 0., 0.]])).as_quat(), Rotation.from_rotvec(jnp.array([0., 90., 0.]), degrees=True).as_quat())",
        1e-6,
    ),
    (
        "from_mrp",
        T + "out = Rotation.from_mrp(jnp.array([[0.1, -0.2, 0.3], [0.5, 0.5, 0.5]])).as_quat()",
        1e-6,
    ),
    (
        "from_matrix",
        EUL
        + "m = r.as_matrix()\nout = (Rotation.from_matrix(m).as_quat(), Rotation.from_matrix(-m[0] * jnp.array([1., 1., -1.])[:, None]).as_quat())",
        1e-5,
    ),
    (
        "from_quat_canonical",
        T
        + "r = Rotation.from_quat(jnp.array([[1., 2., 3., -4.], [0., -1., 0., 0.]]))\nout = (r.as_quat(), r.as_quat(canonical=True), r.as_quat(scalar_first=True))",
        1e-6,
    ),
    (
        "compose_inv_apply",
        EUL
        + "v = jnp.array([1., 2., 3.])\nout = ((r * r.inv()).as_quat(), (r[0] * r[1]).as_quat(), r.apply(v), r.apply(v, inverse=True), r[1].apply(jnp.eye(3)))",
        1e-5,
    ),
    ("mean", EUL + "out = (r.mean().as_quat(), r.mean(jnp.array([1., 2., 0.5])).as_quat())", 1e-4),
    (
        "concatenate_len",
        EUL
        + "c = Rotation.concatenate([r, r[:1]])\nout = (len(c), c.as_quat(), Rotation.identity().as_quat())",
        1e-6,
    ),
    (
        "slerp",
        EUL
        + "s = Slerp.init(jnp.array([0., 1., 3.]), r)\nout = (s(jnp.array([0., 0.25, 1., 2.5, 3.])).as_quat(), s(0.5).as_quat())",
        1e-5,
    ),
    (
        "jit_vmap",
        EUL
        + "out = (jax.jit(lambda q: Rotation.from_quat(q).as_euler('zyx'))(r.as_quat()), jax.vmap(lambda q: Rotation.from_quat(q).as_rotvec())(r.as_quat()))",
        1e-5,
    ),
    (
        "grad",
        T
        + "out = jax.grad(lambda a: Rotation.from_euler('xyz', a).apply(jnp.array([1., 0., 0.])).sum())(jnp.array([0.1, 0.2, 0.3]))",
        1e-5,
    ),
    ("err_seq", T + "out = Rotation.from_euler('xyzx', jnp.zeros(4))"),
    ("err_seq_mixed", T + "out = Rotation.from_euler('xYz', jnp.zeros(3))"),
    ("err_seq_repeat", T + "out = Rotation.from_euler('xxz', jnp.zeros(3))"),
    ("err_as_euler", T + "out = Rotation.identity().as_euler('xy')"),
    ("err_single_index", T + "out = Rotation.identity()[0]"),
    ("err_slerp_single", T + "out = Slerp.init(jnp.array([0.]), Rotation.identity())"),
    ("err_random", T + "out = Rotation.random(jax.random.key(0))"),
]
