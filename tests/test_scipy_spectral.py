"""jax.scipy.signal's stft/istft/welch beyond the recorded JAX values
(tests/jax_reference/snippets_spectral.py): the stft -> istft round trip, Parseval's identity for
welch, and derivatives against finite differences."""

from __future__ import annotations

import numpy as np
import pytest

import engine.numpy as jnp
from engine.scipy.signal import istft, stft, welch
from engine.test_util import check_grads

X = np.random.RandomState(2).randn(48).astype(np.float32)


@pytest.mark.parametrize("nperseg,noverlap", [(8, None), (16, 12), (10, 5)])
def test_istft_inverts_stft(nperseg, noverlap):
    Z = stft(X, nperseg=nperseg, noverlap=noverlap)[2]
    back = istft(Z, nperseg=nperseg, noverlap=noverlap)[1]
    np.testing.assert_allclose(back[: X.size], X, rtol=1e-4, atol=1e-5)


def test_welch_spectrum_integrates_to_the_variance():
    # a boxcar window without overlap or detrending: Parseval makes the density's integral the mean square
    f, p = welch(X, window=jnp.ones(16), nperseg=16, noverlap=0, detrend=False)
    np.testing.assert_allclose(float(jnp.sum(p) * (f[1] - f[0])), float(np.mean(X**2)), rtol=1e-4)


def test_spectral_gradients_match_finite_differences():
    check_grads(lambda x: welch(x, nperseg=8)[1], (X[:24],), order=1)
    check_grads(lambda x: jnp.abs(stft(x, nperseg=8)[2]) ** 2, (X[:24],), order=1)
