"""A span per HTTP request (OpenTelemetry's HTTP server conventions): method, route template, status. The
route's template, not the path a client sent: a path or query can carry names and questions. A pure ASGI
middleware, outermost, so a request the guard refuses is traced too."""

from __future__ import annotations

from typing import Any

from graphwright.server.security import ASGIApp, Message, Receive, Scope, Send
from graphwright.telemetry import set_attributes, span


class TraceMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        method = scope["method"]
        status: dict[str, int] = {}

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                status["code"] = int(message["status"])
            await send(message)

        with span(method, {"http.request.method": method}) as current:
            try:
                await self.app(scope, receive, sending)
            finally:
                route: Any = scope.get("route")
                template = getattr(route, "path", None)
                if template:
                    current.update_name(f"{method} {template}")
                    set_attributes(current, {"http.route": template})
                if "code" in status:
                    set_attributes(current, {"http.response.status_code": status["code"]})
