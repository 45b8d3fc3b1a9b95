"""A background compile's warning contexts leave the user's warnings alone (numba_warnings.py).

numba enters ``warnings.catch_warnings`` while it compiles. In the engine's compile thread that
context put the process's warning state back from under the user's own ``catch_warnings``, so a
warning the user's code raised meanwhile was lost (CI, on a cold kernel cache: test_donation's
"Some donated buffers were not usable" went unrecorded)."""

import threading
import warnings

import pytest

pytest.importorskip("numba")

from engine.backends import numba_warnings  # noqa: E402


def _interleaved(numba_module) -> list[str]:
    """numba's ``catch_warnings`` entered in a compile thread before the user's block and left
    inside it, while the user's code warns: what the user's block recorded."""
    entered, user_in, left = threading.Event(), threading.Event(), threading.Event()

    def compile_thread():
        with numba_module.warnings.catch_warnings():
            numba_module.warnings.simplefilter("ignore")
            entered.set()
            user_in.wait()
        left.set()

    t = threading.Thread(target=compile_thread, name=numba_warnings.COMPILE_THREAD)
    t.start()
    entered.wait()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        user_in.set()
        left.wait()
        warnings.warn("Some donated buffers were not usable: float32[2,3].", stacklevel=2)
    t.join()
    return [str(w.message) for w in caught]


def test_the_users_warning_is_recorded_while_numba_compiles_in_the_background():
    import numba.core.compiler

    numba_warnings.install()
    assert _interleaved(numba.core.compiler) == ["Some donated buffers were not usable: float32[2,3]."]
    assert _interleaved(numba.core.errors) == ["Some donated buffers were not usable: float32[2,3]."]


def test_the_same_calls_in_the_main_thread_are_numbas_own():
    import numba.core.errors

    numba_warnings.install()
    with numba.core.errors.warnings.catch_warnings(record=True) as caught:
        numba.core.errors.warnings.simplefilter("always")
        warnings.warn("kept", stacklevel=2)
    assert [str(w.message) for w in caught] == ["kept"]
