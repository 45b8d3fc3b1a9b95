from __future__ import annotations

from fastapi import APIRouter

from engine.inspect.schema import TransformInfo, transform_infos

router = APIRouter(prefix="/api", tags=["transforms"])


@router.get("/transforms", response_model=list[TransformInfo])
async def list_transforms() -> list[TransformInfo]:
    """The transformations a stack can hold and their options (the page builds its stack from it)."""
    return transform_infos()
