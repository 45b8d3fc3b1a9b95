"""Pydantic models of the HTTP API (the run report itself lives in ``engine.inspect.schema``)."""

from __future__ import annotations

from typing import Any, Optional

from pydantic import BaseModel, Field

from engine.inspect.schema import RunRequest, TransformSpec


class SnippetCreate(BaseModel):
    """What the page sends to share a snippet: the run request, plus an optional title."""

    request: RunRequest
    title: Optional[str] = Field(None, max_length=200)


class Snippet(BaseModel):
    """An immutable shared snippet. The id is derived from the content, so sharing twice gives one id."""

    id: str
    title: Optional[str] = None
    request: RunRequest
    engine_version: str
    device_count: int
    created_at: str = Field(description="UTC, ISO 8601.")


class SnippetRef(BaseModel):
    id: str
    url: str = Field(description="Path of the shared page, e.g. /s/3fK9aQ2bZx.")


class ExpectedLeaf(BaseModel):
    """One leaf of an example's expected result, flattened in pytree order."""

    shape: list[int]
    data: list[float] = Field(description="Row-major values.")
    rtol: float = 2e-4
    atol: float = 2e-5


class Example(BaseModel):
    id: str
    title: str
    topic: str
    description: str
    code: str
    function: Optional[str] = None
    stack: list[TransformSpec] = Field(default_factory=list)
    args: list[str] = Field(default_factory=list)
    expected: list[ExpectedLeaf] = Field(
        default_factory=list, description="Leaves of the stack-mode result, for tests and the page."
    )
    devices: int = Field(1, description="Simulated devices the example needs.")

    def run_request(self) -> RunRequest:
        return RunRequest(code=self.code, function=self.function, stack=self.stack, args=self.args)


class Health(BaseModel):
    status: str
    engine_version: str
    device_count: int
    workers: int
    idle_workers: int
    queued: int
    isolation: dict[str, Any] = Field(default_factory=dict, description="What the sandbox probe found.")
    warning: Optional[str] = Field(
        None, description="Set when runs are not isolated from each other (unsafe-single-user): show it."
    )


class Readiness(BaseModel):
    ready: bool
    reasons: list[str] = Field(default_factory=list, description="Why not, when not ready.")
    in_flight: int = Field(0, description="Runs running or queued on this replica.")
