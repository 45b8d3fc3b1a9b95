"""A run report's content stays what it was for the same program: the report's builders may get
cheaper, never different. Digests per section were recorded by ``python -m
tests.report_content.programs record`` (see its docstring for what a report's content is)."""

import json

import pytest

from conftest import numba_backend
from tests.report_content.programs import EXPECTED, build, programs, sections

numba_backend()  # (the digests include the numba backend's kernel source)
pytestmark = pytest.mark.usefixtures("test_kernel_cache")

with open(EXPECTED) as _f:
    _EXPECTED = json.load(_f)


@pytest.mark.parametrize("name", sorted(_EXPECTED))
def test_report_content_is_unchanged(name):
    got = sections(build(programs()[name]))
    expected = _EXPECTED[name]
    differing = sorted(k for k in set(got) | set(expected) if got.get(k) != expected.get(k))
    assert not differing, f"{name}: sections differ: {differing}"
