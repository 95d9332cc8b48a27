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
    from graphwright.extraction.loaders import LoadError
    from graphwright.graph_store.schema import SchemaMismatchError
    from graphwright.llm.json_repair import JSONRepairError

    assert LoadError is graphwright.LoadError and SchemaMismatchError is graphwright.SchemaMismatchError
    assert JSONRepairError is errors.JSONRepairError
