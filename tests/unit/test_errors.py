"""One error tree: every error class graphwright defines lives in graphwright/errors.py, is listed in its
`__all__` and its docstring's tree, and is exported from the package."""

from __future__ import annotations

import ast
from pathlib import Path

import graphwright
from graphwright import errors

PACKAGE = Path(__file__).resolve().parents[2] / "graphwright"


def _error_classes_outside() -> list[str]:
    found = []
    for path in PACKAGE.rglob("*.py"):
        if path.name == "errors.py" and path.parent == PACKAGE:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and any(
                (isinstance(b, ast.Name) and b.id.endswith("Error")) for b in node.bases
            ):
                found.append(f"{path.relative_to(PACKAGE)}:{node.name}")
    return found


def test_every_error_class_is_in_the_one_module() -> None:
    assert _error_classes_outside() == []


def test_the_tree_is_complete_and_exported() -> None:
    defined = {
        name
        for name, value in vars(errors).items()
        if isinstance(value, type) and issubclass(value, errors.GraphwrightError)
    }
    assert defined == set(errors.__all__)
    for name in defined:
        assert name in (errors.__doc__ or ""), f"{name} is missing from the tree in errors.py's docstring"
        assert getattr(graphwright, name) is getattr(errors, name)


def test_old_homes_still_export_them() -> None:
    from graphwright.documents.loaders import LoadError
    from graphwright.graph_store.schema import SchemaMismatchError
    from graphwright.llm.json_repair import JSONRepairError

    assert LoadError is graphwright.LoadError and SchemaMismatchError is graphwright.SchemaMismatchError
    assert JSONRepairError is errors.JSONRepairError


def test_each_tier_carries_its_http_status() -> None:
    from graphwright.server.errors import status_of

    expected = {
        errors.InvalidRequestError("x"): 400,
        errors.LLMRequiredError("x"): 400,
        errors.CypherRejectedError("x"): 400,
        errors.QueryRejectedError("x"): 400,
        errors.NotFoundError("x"): 404,
        errors.ForbiddenError("x"): 403,
        errors.WorkspaceExistsError("x"): 409,
        errors.CurationConflictError("x"): 409,
        errors.SchemaMismatchError("x"): 409,
        errors.GraphStoreError("x"): 503,
        errors.BusyError("x"): 429,
        errors.LLMTimeoutError("x"): 502,
        errors.LLMStatusError("x", 500): 502,
        errors.EmbeddingError("x"): 502,
        errors.LoadError("x"): 500,
        RuntimeError("x"): 500,
    }
    assert {type(e).__name__: status_of(e) for e in expected} == {type(e).__name__: s for e, s in expected.items()}
    for tier in (errors.BadInputError, errors.RefusedError, errors.UpstreamError, errors.StoreUnavailableError):
        assert tier.__base__ is errors.GraphwrightError
