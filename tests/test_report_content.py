"""A run report's content stays what it was for the same program: the report's builders may get
cheaper, never different. Digests per section were recorded by ``python -m
tests.report_content.programs record`` (see its docstring for what a report's content is)."""

import json

import pytest

from conftest import numba_backend
from tests.report_content.programs import EXPECTED, build, contents, digest, programs

numba_backend()  # (the digests include the numba backend's kernel source)
pytestmark = pytest.mark.usefixtures("test_kernel_cache")

with open(EXPECTED) as _f:
    _EXPECTED = json.load(_f)


@pytest.mark.parametrize("name", sorted(_EXPECTED))
def test_report_content_is_unchanged(name):
    content = contents(build(programs()[name]))
    got = {k: digest(v) for k, v in content.items()}
    expected = _EXPECTED[name]
    differing = sorted(k for k in set(got) | set(expected) if got.get(k) != expected.get(k))
    # (what the differing sections hold now, so a log shows what changed: the record has digests)
    now = {k: json.dumps(content.get(k), sort_keys=True)[:1500] for k in differing}
    assert not differing, f"{name}: sections differ: {differing}; they hold now: {now}"
