"""An S3-compatible bucket (`s3://bucket/prefix`): its objects of a type we read, versioned by ETag, only the
changed ones downloaded. Endpoint, region and credentials come from boto3's usual places (AWS_ENDPOINT_URL or
AWS_ENDPOINT_URL_S3 for MinIO, Ceph or a local server; AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_PROFILE,
~/.aws). Needs the `s3` extra (boto3)."""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Any

from graphwright.config import Settings
from graphwright.documents.file_types import LOADERS
from graphwright.errors import ExtraNotInstalledError, SourceError
from graphwright.models import FileFailure, SourceRecord
from graphwright.sources.base import Item, Listing, unchanged
from graphwright.sources.staging import staged_path


def split_location(location: str) -> tuple[str, str]:
    """(bucket, prefix) of `s3://bucket/prefix`."""
    if not location.startswith("s3://"):
        raise SourceError(f"{location[:200]!r} is not an s3://bucket/prefix location")
    bucket, _, prefix = location[len("s3://") :].partition("/")
    if not bucket:
        raise SourceError(f"{location[:200]!r} names no bucket")
    return bucket, prefix


class BucketSource:
    kind = "s3"

    def __init__(self, location: str, options: dict[str, Any], settings: Settings) -> None:
        self.bucket, self.prefix = split_location(location.strip())
        self.id = self.location = f"s3://{self.bucket}/{self.prefix}"
        self.options: dict[str, Any] = {}
        self.max_bytes = settings.max_file_bytes
        self.seconds = settings.sync_http_seconds

    def _client(self) -> Any:
        try:
            import boto3  # type: ignore[import-untyped]
            from botocore.config import Config  # type: ignore[import-untyped]
        except ImportError as exc:
            raise ExtraNotInstalledError("an s3:// source needs boto3: pip install 'graphwright[s3]'") from exc
        config = Config(connect_timeout=self.seconds, read_timeout=self.seconds, retries={"max_attempts": 3})
        return boto3.session.Session().client("s3", config=config)

    def scan(self, previous: SourceRecord | None, staging: Path) -> Listing:
        from botocore.exceptions import BotoCoreError, ClientError  # type: ignore[import-untyped]

        client = self._client()
        listing = Listing(base=staging)
        try:
            pages = client.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=self.prefix)
            objects = [o for page in pages for o in page.get("Contents", [])]
        except (BotoCoreError, ClientError) as exc:  # never its message whole: it may carry the endpoint's reply
            raise SourceError(f"{self.location}: the bucket could not be listed ({_reason(exc)})") from exc
        for obj in objects:
            key = str(obj["Key"])
            name = f"s3://{self.bucket}/{key}"
            if key.endswith("/") or any(p.startswith(".") for p in PurePosixPath(key).parts):
                continue
            suffix = PurePosixPath(key).suffix.lower()
            if suffix not in LOADERS:
                listing.skipped.append(name)
                continue
            item = Item(key=name, version=f"etag {obj.get('ETag', '')}:{obj.get('Size', 0)}")
            if unchanged(item, previous):
                listing.items.append(item)
                continue
            if int(obj.get("Size", 0)) > self.max_bytes:
                error = f"object is {obj['Size']} bytes, above the limit of {self.max_bytes}"
                listing.failures.append(FileFailure(source=name, error=error))
                listing.items.append(item)  # it is there; recorded as failed until it changes
                continue
            try:
                body = client.get_object(Bucket=self.bucket, Key=key)["Body"].read(self.max_bytes + 1)
            except (BotoCoreError, ClientError) as exc:
                listing.failures.append(FileFailure(source=name, error=f"could not be read ({_reason(exc)})"))
                if previous is not None and name in previous.items:
                    listing.kept.add(name)
                continue
            path = staged_path(staging, len(listing.items), key, suffix)
            path.write_bytes(body)
            listing.items.append(Item(key=name, version=item.version, path=path))
        return listing


def _reason(exc: Exception) -> str:
    """An S3 error's code (NoSuchBucket, AccessDenied, InvalidAccessKeyId) or its class: no free text."""
    code = getattr(exc, "response", {}).get("Error", {}).get("Code") if hasattr(exc, "response") else None
    return str(code or type(exc).__name__)
