"""Safe arithmetic for the agent's `calculate` tool: Python's parser, then only numbers and operators are
evaluated (no names, calls or attributes), with bounds on size so "9**9**9" cannot hang the process."""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable

from graphwright.errors import (
    CalculationError,  # re-exported: they used to live here
)

_BINARY = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_UNARY: dict[type[ast.unaryop], Callable[[float], float]] = {ast.UAdd: operator.pos, ast.USub: operator.neg}
_MAX_EXPRESSION = 200
_MAX_EXPONENT = 100
_MAX_MAGNITUDE = 1e100


def _eval(node: ast.AST) -> float:
    if isinstance(node, ast.Expression):
        return _eval(node.body)
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_eval(node.operand))
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _eval(node.left), _eval(node.right)
        if isinstance(node.op, ast.Pow) and abs(right) > _MAX_EXPONENT:
            raise CalculationError(f"exponent {right} is too large")
        try:
            value = _BINARY[type(node.op)](left, right)
        except ZeroDivisionError as exc:
            raise CalculationError("division by zero") from exc
        if (
            isinstance(value, complex)
            or (isinstance(value, float) and not math.isfinite(value))
            or abs(value) > _MAX_MAGNITUDE
        ):
            raise CalculationError("result out of range")
        return value
    raise CalculationError(f"only numbers and + - * / // % ** ( ) are allowed, not {type(node).__name__}")


def calculate(expression: str) -> float:
    """Evaluate an arithmetic expression such as "(1969 - 1957) * 12"."""
    if len(expression) > _MAX_EXPRESSION:
        raise CalculationError(f"expression longer than {_MAX_EXPRESSION} characters")
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except SyntaxError as exc:
        raise CalculationError(f"not an arithmetic expression: {exc.msg}") from exc
    value = _eval(tree)
    return int(value) if isinstance(value, float) and value.is_integer() else value
