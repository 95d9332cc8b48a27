"""A loopback stand-in for a Dify dataset, following Dify's published Knowledge API shapes
(docs.dify.ai, "Retrieve Chunks from a Knowledge Base", and the document segments list): `POST
/v1/datasets/{id}/retrieve` and `GET /v1/datasets/{id}/documents/{doc}/segments`, a bearer key, Dify's error
body. It ranks its segments by shared words, records every request, and can be told to hang."""

from __future__ import annotations

import http.server
import json
import re
import threading
import time
from typing import Any

_WORD = re.compile(r"\w+")


class DifyDatasetStub:
    def __init__(self, key: str, dataset: str, documents: dict[str, tuple[str, list[str]]]) -> None:
        """`documents`: id -> (file name, its segments in order)."""
        self.key, self.dataset, self.documents = key, dataset, documents
        self.requests: list[dict[str, Any]] = []
        self.hang = 0.0
        stub = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                stub._handle(self, "POST")

            def do_GET(self) -> None:
                stub._handle(self, "GET")

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True

    @property
    def url(self) -> str:
        """The API's base, `/v1` included, as Dify's documentation gives it."""
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> DifyDatasetStub:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _segment(self, document_id: str, position: int) -> dict[str, Any]:
        name, texts = self.documents[document_id]
        text = texts[position - 1]
        return {
            "id": f"{document_id}-seg-{position}",
            "position": position,
            "document_id": document_id,
            "content": text,
            "answer": "",
            "word_count": len(text.split()),
            "tokens": len(text.split()),
            "keywords": [],
            "index_node_id": f"node-{document_id}-{position}",
            "index_node_hash": "0" * 12,
            "hit_count": 0,
            "enabled": True,
            "status": "completed",
            "created_at": 1741267200,
            "document": {"id": document_id, "data_source_type": "upload_file", "name": name},
        }

    def _handle(self, handler: http.server.BaseHTTPRequestHandler, method: str) -> None:
        length = int(handler.headers.get("Content-Length") or 0)
        body = json.loads(handler.rfile.read(length)) if length else None
        self.requests.append(
            {"method": method, "path": handler.path, "headers": dict(handler.headers.items()), "body": body}
        )
        if self.hang:
            time.sleep(self.hang)
        if handler.headers.get("Authorization") != f"Bearer {self.key}":
            return self._reply(
                handler, 401, {"code": "unauthorized", "message": "Access token is invalid", "status": 401}
            )
        path = handler.path.split("?", 1)[0]
        base = f"/v1/datasets/{self.dataset}"
        if method == "POST" and path == f"{base}/retrieve":
            top_k = int(((body or {}).get("retrieval_model") or {}).get("top_k") or 4)
            words = set(_WORD.findall(str((body or {}).get("query", "")).lower()))
            scored = []
            for doc, (_, texts) in self.documents.items():
                for position, text in enumerate(texts, start=1):
                    shared = len(words & set(_WORD.findall(text.lower())))
                    if shared:
                        scored.append((shared / max(len(words), 1), doc, position))
            scored.sort(key=lambda s: -s[0])
            records = [
                {
                    "segment": self._segment(doc, pos),
                    "child_chunks": [],
                    "score": round(score, 4),
                    "tsne_position": None,
                }
                for score, doc, pos in scored[:top_k]
            ]
            return self._reply(handler, 200, {"query": {"content": (body or {}).get("query")}, "records": records})
        match = re.fullmatch(rf"{base}/documents/([^/]+)/segments", path)
        if method == "GET" and match and match.group(1) in self.documents:
            doc = match.group(1)
            data = [self._segment(doc, p) for p in range(1, len(self.documents[doc][1]) + 1)]
            return self._reply(
                handler,
                200,
                {
                    "data": data,
                    "doc_form": "text_model",
                    "has_more": False,
                    "limit": 100,
                    "total": len(data),
                    "page": 1,
                },
            )
        return self._reply(handler, 404, {"code": "not_found", "message": "Document not found", "status": 404})

    @staticmethod
    def _reply(handler: http.server.BaseHTTPRequestHandler, status: int, data: dict[str, Any]) -> None:
        raw = json.dumps(data).encode()
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(raw)))
        handler.end_headers()
        handler.wfile.write(raw)
