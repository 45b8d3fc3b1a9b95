"""Request-size limits applied before any body reaches a route."""

from __future__ import annotations

import json

from starlette.types import ASGIApp, Message, Receive, Scope, Send


class BodyLimitMiddleware:
    """Answer 413 for bodies over ``limit`` bytes without buffering them.

    Declared lengths are refused before reading anything; chunked bodies are counted as they
    stream in and cut off as soon as they pass the limit.
    """

    def __init__(self, app: ASGIApp, limit: int):
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    return await self._reject(send, 400, "bad Content-Length")
                if declared > self.limit:
                    return await self._reject(send, 413, f"request body over {self.limit} bytes")
        seen = 0
        started = over = False

        async def counted_receive() -> Message:
            nonlocal seen, over
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    over = True
                    raise _TooLarge()
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if over:
                # FastAPI turns an error while it reads the body into its own 400: answer 413.
                if message["type"] == "http.response.start" and not started:
                    started = True
                    await self._reject(send, 413, f"request body over {self.limit} bytes")
                return
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counted_receive, tracking_send)
        except _TooLarge:
            if not started:
                await self._reject(send, 413, f"request body over {self.limit} bytes")

    @staticmethod
    async def _reject(send: Send, status: int, detail: str) -> None:
        body = json.dumps({"detail": detail}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"connection", b"close"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


class _TooLarge(Exception):
    pass
