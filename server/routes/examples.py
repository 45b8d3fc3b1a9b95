from __future__ import annotations

from fastapi import APIRouter, HTTPException

from ..examples import EXAMPLES, by_id
from ..models import Example

router = APIRouter(prefix="/api", tags=["examples"])


@router.get("/examples", response_model=list[Example])
async def list_examples() -> list[Example]:
    return EXAMPLES


@router.get(
    "/examples/{example_id}", response_model=Example, responses={404: {"description": "No such example"}}
)
async def get_example(example_id: str) -> Example:
    example = by_id(example_id)
    if example is None:
        raise HTTPException(404, "no such example")
    return example
