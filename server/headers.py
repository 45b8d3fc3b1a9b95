"""Security headers on every response: a Content-Security-Policy without inline script, no MIME
sniffing, no referrer beyond the origin, and no framing.

The page's own script is all in files (``web/index.html`` loads its theme script from
``/theme.js``). ``style-src`` allows inline styles because CodeMirror and the graph panel set
``style`` attributes and CodeMirror injects ``<style>`` elements; scripts stay file-only.
The read-only ``/embed/<id>`` page is the one route other sites may frame (``FRAMEABLE``).
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

PAGE_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data: blob:",
        "font-src 'self' data:",
        "connect-src 'self'",
        "worker-src 'self' blob:",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
    ]
)
# FastAPI's /docs and /redoc pages load Swagger UI / ReDoc from a CDN with an inline bootstrap script.
DOCS_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net",
        "style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net https://fonts.googleapis.com",
        "font-src 'self' https://fonts.gstatic.com",
        "img-src 'self' data: https://fastapi.tiangolo.com https://cdn.redoc.ly",
        "worker-src 'self' blob:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
    ]
)
DOCS_PATHS = ("/docs", "/redoc")
FRAME_NONE, FRAME_ANY = "'none'", "*"
# Path prefixes other sites may frame: only the read-only embed page (routes/pages.py).
FRAMEABLE: tuple[str, ...] = ("/embed/",)


def headers_for(path: str) -> list[tuple[bytes, bytes]]:
    policy = DOCS_POLICY if path.startswith(DOCS_PATHS) else PAGE_POLICY
    framed = path.startswith(FRAMEABLE) if FRAMEABLE else False
    out = [
        (
            b"content-security-policy",
            f"{policy}; frame-ancestors {FRAME_ANY if framed else FRAME_NONE}".encode(),
        ),
        (b"x-content-type-options", b"nosniff"),
        (b"referrer-policy", b"strict-origin-when-cross-origin"),
        (b"cross-origin-opener-policy", b"same-origin"),
    ]
    if not framed:
        out.append((b"x-frame-options", b"DENY"))
    return out


class SecurityHeadersMiddleware:
    """Adds ``headers_for(path)`` to every HTTP response, replacing any of the same name."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        extra = headers_for(scope.get("path", "/"))
        names = {name for name, _ in extra}

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                kept = [(k, v) for k, v in message.get("headers", []) if k.lower() not in names]
                message = {**message, "headers": kept + extra}
            await send(message)

        return await self.app(scope, receive, with_headers)
