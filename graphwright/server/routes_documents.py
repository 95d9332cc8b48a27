"""The documents and jobs routes: an upload (files, JSON records, NDJSON) becomes an ingest job;
the jobs, the documents, and deleting one."""

from __future__ import annotations

import shutil
from typing import Annotated

from fastapi import FastAPI, Query, Request
from fastapi.responses import JSONResponse

from graphwright.errors import InvalidRequestError
from graphwright.models import DocumentInfo, DocumentPage, DocumentQuery, DocumentText
from graphwright.server.jobs import Job
from graphwright.server.requests import caller_of, error_response, graph_of, owner, workspace_of
from graphwright.server.schemas import DeleteResult, DocumentsRequest, RetryRequest
from graphwright.server.state import Server
from graphwright.server.uploads import NDJSON, save_files, save_records, stream_records


def add_document_routes(app: FastAPI, server: Server) -> None:
    @app.post(
        "/v1/documents",
        status_code=202,
        response_model=Job,
        tags=["documents"],
        openapi_extra={
            "requestBody": {
                "content": {
                    "multipart/form-data": {
                        "schema": {
                            "type": "object",
                            "properties": {
                                "files": {"type": "array", "items": {"type": "string", "format": "binary"}},
                                "extractor": {"type": "string"},
                            },
                        }
                    },
                    "application/json": {"schema": DocumentsRequest.model_json_schema()},
                }
            }
        },
    )
    async def add_documents(request: Request) -> Job:
        """Upload files (multipart `files`) or JSON records (`{"documents": [{"id", "title", "text", ...}]}`);
        ingestion runs as a job: follow it at /v1/jobs/{id}."""
        kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
        folder = server.new_upload_folder()
        try:
            if kind == "multipart/form-data":
                extractor = await save_files(request, folder, server.settings.max_upload_bytes)
            elif kind == "application/json":
                extractor = await save_records(request, folder, server.settings.max_json_bytes)
            elif kind in NDJSON:
                extractor = await stream_records(request, folder)
            else:
                raise InvalidRequestError(
                    "send files as multipart/form-data (field `files`), JSON records "
                    "(application/json) or one record a line (application/x-ndjson)"
                )
            return server.ingest_job(folder, extractor, workspace_of(request), owner=owner(request).name)
        except BaseException:  # a bad body, or a full queue: nothing of the upload stays behind
            shutil.rmtree(folder, ignore_errors=True)
            raise

    @app.get("/v1/documents", response_model=list[DocumentInfo], tags=["documents"])
    def documents(
        request: Request, offset: int = Query(0, ge=0), limit: int = Query(100, ge=1, le=1000)
    ) -> list[DocumentInfo]:
        """Stored documents by id, a page at a time."""
        return graph_of(server, request).inspect.documents(offset, limit)

    @app.get("/v1/documents/table", response_model=DocumentPage, tags=["documents"])
    def document_table(request: Request, query: Annotated[DocumentQuery, Query()]) -> DocumentPage:
        """The documents table: stored documents, interrupted ingests and failed files (with the reason),
        searched by id or title, filtered by status and language, sorted and paged; with the number of
        matching rows in each status."""
        return graph_of(server, request).inspect.document_table(query)

    @app.get("/v1/document", response_model=DocumentText, tags=["documents"])
    def document_text(request: Request, id: str = Query(min_length=1, max_length=500)) -> DocumentText | JSONResponse:
        """A stored document's passages in order, by its id: a knowledge base's whole document (the agent's
        get-document tool of another server calls this)."""
        found = graph_of(server, request).inspect.document_text(id)
        return found if found is not None else error_response(404, f"no document {id!r}")

    @app.delete("/v1/documents/{document_id:path}", response_model=DeleteResult, tags=["documents"])
    def delete_document(document_id: str, request: Request) -> DeleteResult | JSONResponse:
        """Remove a document, its chunks and the graph only it supported; communities follow. A failed file's
        row (and its kept upload) or an interrupted ingest's staged chunks are removed the same way."""
        rag = graph_of(server, request)
        with server.jobs.write_lock(workspace_of(request)):
            removed = rag.delete_document(document_id)
        server.forget_kept(workspace_of(request), document_id)
        if removed is None:
            return error_response(404, f"no document {document_id!r}")
        return DeleteResult(deleted=document_id, chunks=removed)


def add_job_routes(app: FastAPI, server: Server) -> None:
    """The workspace's jobs (uploads, syncs, community builds): listed, one by one, resumed, a failed file retried."""

    @app.get("/v1/jobs", response_model=list[Job], tags=["documents"])
    def jobs(request: Request, limit: int = Query(100, ge=1, le=1000)) -> list[Job]:
        """The newest jobs, newest first: queued, running, succeeded, failed, or interrupted (their server
        process exited before they finished; a restarted server removes their uploads)."""
        return server.jobs.recent(limit, workspace_of(request))

    @app.get("/v1/jobs/{job_id}", response_model=Job, tags=["documents"])
    def job(job_id: str, request: Request) -> Job | JSONResponse:
        """A job's status, progress by stage and, when done, its report or error."""
        found = server.jobs.get(job_id, workspace_of(request))
        return found if found is not None else error_response(404, f"no job {job_id!r}")

    @app.post("/v1/jobs/{job_id}/resume", status_code=202, response_model=Job, tags=["documents"])
    def resume_job(job_id: str, request: Request) -> Job:
        """Run an interrupted ingest again from its kept upload (a shutdown or a crash stopped it): what it wrote
        stays, unchanged files are skipped. The new job names the old in `resumed_from`."""
        return server.resume_job(job_id, caller_of(request))

    @app.post("/v1/documents/retry", status_code=202, response_model=Job, tags=["documents"])
    def retry_document(body: RetryRequest, request: Request) -> Job:
        """Ingest a failed or interrupted row of the documents table again, as a job, from the upload the server
        kept of it (a failed file's, or its interrupted job's): no second upload. 404 when none is kept."""
        return server.retry_document(body.id, caller_of(request))
