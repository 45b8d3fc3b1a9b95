"""Snippets for jax.scipy.signal's stft, istft, csd and welch. Registered in snippets.py."""

SETUP = (
    "from jax.scipy import signal\n"
    "r = np.random.RandomState(0)\n"
    "x = jnp.asarray(r.randn(64), jnp.float32)\n"
    "y = jnp.asarray(r.randn(64), jnp.float32)\n"
    "X2 = jnp.asarray(r.randn(3, 40), jnp.float32)\n"
)

SPECTRAL = [
    (
        "doc_examples",
        "from jax.scipy import signal\nout = (signal.stft(jnp.arange(8.0), nperseg=4), signal.csd(jnp.array([1.0, -1.0] * 4), jnp.array([1.0, -1.0] * 4), nperseg=4), signal.welch(jnp.array([1.0, -1.0] * 4), nperseg=4), signal.istft(signal.stft(jnp.arange(8.0), nperseg=4)[2], nperseg=4))",
        1e-5,
    ),
    ("stft_default", SETUP + "out = signal.stft(x, nperseg=16)", 1e-4),
    (
        "stft_options",
        SETUP
        + "out = [signal.stft(x, fs=10., nperseg=12, noverlap=4, nfft=16, detrend='linear'), signal.stft(x, nperseg=10, boundary=None, padded=False, return_onesided=False), signal.stft(x, nperseg=9, boundary='even'), signal.stft(x, nperseg=8, boundary='odd', noverlap=2), signal.stft(x, nperseg=8, boundary='constant', detrend='constant')]",
        1e-4,
    ),
    (
        "stft_axis",
        SETUP
        + "out = (signal.stft(X2, nperseg=8), signal.stft(X2.T, nperseg=8, axis=0), signal.stft(X2, nperseg=8, window=jnp.ones(8)))",
        1e-4,
    ),
    ("stft_complex", SETUP + "out = signal.stft(x + 1j * y, nperseg=8)", 1e-4),
    ("stft_long_window", SETUP + "out = signal.stft(x[:10], nperseg=256)", 1e-4),
    (
        "istft_roundtrip",
        SETUP
        + "out = [signal.istft(signal.stft(x, nperseg=n)[2], nperseg=n) for n in (8, 16)] + [signal.istft(signal.stft(x, nperseg=8, return_onesided=False)[2], nperseg=8, input_onesided=False)]",
        1e-4,
    ),
    (
        "istft_options",
        SETUP
        + "Z = signal.stft(x, nperseg=12, noverlap=8)[2]\nout = (signal.istft(Z, fs=4., nperseg=12, noverlap=8), signal.istft(Z, nperseg=12, noverlap=8, boundary=False), signal.istft(Z, nperseg=12, noverlap=8, nfft=14), signal.istft(Z, window=jnp.ones(12), nperseg=12, noverlap=6))",
        1e-4,
    ),
    (
        "istft_axes",
        SETUP
        + "Z = signal.stft(X2, nperseg=8)[2]\nout = (signal.istft(Z, nperseg=8), signal.istft(jnp.moveaxis(Z, 0, -1), nperseg=8, time_axis=1, freq_axis=0))",
        1e-4,
    ),
    ("welch_default", SETUP + "out = signal.welch(x)", 1e-4),
    (
        "welch_options",
        SETUP
        + "out = [signal.welch(x, fs=100., nperseg=16), signal.welch(x, nperseg=16, scaling='spectrum', detrend='linear'), signal.welch(x, nperseg=16, average='median'), signal.welch(x, nperseg=15, noverlap=5, nfft=20, return_onesided=False), signal.welch(x, nperseg=16, detrend=False), signal.welch(x, nperseg=16, detrend=lambda d: d - d[..., :1])]",
        1e-4,
    ),
    (
        "welch_axis",
        SETUP + "out = (signal.welch(X2, nperseg=8), signal.welch(X2.T, nperseg=8, axis=0))",
        1e-4,
    ),
    (
        "csd",
        SETUP
        + "out = [signal.csd(x, y, nperseg=16), signal.csd(x, y, nperseg=16, average='median'), signal.csd(x, y[:50], nperseg=16), signal.csd(X2, X2[:1], nperseg=8), signal.csd(x, x, nperseg=16)]",
        1e-4,
    ),
    ("grad_welch", SETUP + "out = jax.grad(lambda x: signal.welch(x, nperseg=16)[1].sum())(x)", 1e-3),
    (
        "grad_stft_istft",
        SETUP
        + "out = jax.grad(lambda x: jnp.sum(signal.istft(jnp.abs(signal.stft(x, nperseg=8)[2]) + 0j, nperseg=8)[1] ** 2))(x)",
        1e-3,
    ),
    (
        "jit_vmap",
        SETUP
        + "out = (jax.jit(lambda x: signal.stft(x, nperseg=8)[2])(x), jax.vmap(lambda v: signal.welch(v, nperseg=8)[1])(X2), jax.jit(lambda z: signal.istft(z, nperseg=8)[1])(signal.stft(x, nperseg=8)[2]))",
        1e-4,
    ),
    ("err_noverlap", SETUP + "out = signal.stft(x, nperseg=8, noverlap=8)"),
    ("err_nfft", SETUP + "out = signal.welch(x, nperseg=8, nfft=4)"),
    ("err_boundary", SETUP + "out = signal.stft(x, boundary='wrap')"),
    ("err_scaling", SETUP + "out = signal.welch(x, scaling='power')"),
    ("err_average", SETUP + "out = signal.welch(x, nperseg=8, average='max')"),
    ("err_window_length", SETUP + "out = signal.welch(x, window=jnp.ones(8), nperseg=6)"),
    ("err_istft_1d", SETUP + "out = signal.istft(x)"),
    ("err_istft_axes", SETUP + "out = signal.istft(jnp.ones((3, 4)), time_axis=0, freq_axis=0)"),
]
