"""The ``{…}`` expressions of ``table.toml``: a value a table computes from the game's data where it is laid out.

A text of ``table.toml`` may hold expressions in braces (``"scene-spot:{index}"``, ``"{rules.goals_per_game}"``);
a text that is one expression and nothing else (``"{10 - seat_index * 4.0}"``) gives the expression's value as it
is: a number, a list, a table, true/false. ``{{`` and ``}}`` are braces.

An expression is a small, safe part of Python's syntax, evaluated here (never by Python's ``eval``): numbers and
'texts', names the table gives (the seat colours, its ``[values]``, what the game's builder gives, the item of a
repetition), ``a.b`` (a field of a table or of a record), ``a[i]`` (an item of a list, a key of a table),
``+ - * / // %``, comparisons, ``and or not``, ``x if c else y``, ``[a, b]``, and the functions ``len``, ``min``,
``max``, ``abs``, ``round`` and ``fill(text, name=value, …)`` (a text's ``{name}`` placeholders filled in: the
``[strings]`` of ``layouts.toml`` have them). A text in several languages (``{ en = …, uk = … }``, or a record's
names) reads as the build language's text. Pure: no files, no imports of the game's modules.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import math
import operator
from collections.abc import Mapping
from typing import Any, Callable, Sequence

from bridge.rules.game import LANGUAGES, Names

MAX_EXPRESSION = 400
"""The longest expression between braces, in characters."""

MAX_TEXT = 100_000
"""The longest text or list an expression may make (``"ab" + …`` cannot grow a value past it)."""


class ExpressionError(ValueError):
    """An expression that cannot be read or evaluated; the message says why (the caller names file and field)."""


_BINARY: Mapping[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
}
_COMPARE: Mapping[type, Callable[[Any, Any], bool]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt,
    ast.GtE: operator.ge, ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
}


def _fill(text: Any, **values: Any) -> str:
    if not isinstance(text, str):
        raise ExpressionError(f"fill() fills a text, not {_kind(text)}")
    for name, value in values.items():
        text = text.replace("{" + name + "}", show(value))
    return text


def _round(value: Any, digits: int = 0) -> float:
    return round(_numeric(value), digits)


FUNCTIONS: Mapping[str, Callable[..., Any]] = {
    "len": len, "min": min, "max": max, "abs": abs, "round": _round, "fill": _fill,
}


# -- reading ----------------------------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Template:
    """A text of ``table.toml`` holding ``{…}`` expressions, read once; :meth:`value` evaluates it."""

    text: str
    parts: tuple[str | ast.expr, ...]
    whole: bool = dataclasses.field(init=False, compare=False, repr=False)
    """True when the text is one expression and nothing else (its value is kept as it is)."""

    def __post_init__(self) -> None:
        # worked out once: a deck's thousands of cards each evaluate the same few templates
        object.__setattr__(self, "whole", len(self.parts) == 1 and not isinstance(self.parts[0], str))

    def value(self, scope: "Scope") -> Any:
        if self.whole:
            return scope.evaluate(self.parts[0])
        out = "".join([part if type(part) is str else show(scope.evaluate(part)) for part in self.parts])
        if len(out) > MAX_TEXT:
            raise ExpressionError(f"makes a text longer than {MAX_TEXT} characters")
        return out


def is_template(value: Any) -> bool:
    """True when ``value`` (a text, or a list or table holding texts) has braces to evaluate."""
    if isinstance(value, str):
        return "{" in value or "}" in value
    if isinstance(value, list):
        return any(is_template(v) for v in value)
    if isinstance(value, dict):
        return any(is_template(v) for v in value.values())
    return False


def template(text: str) -> Template:
    """``text`` read into its literal parts and expressions; :class:`ExpressionError` for a bad one."""
    parts: list[str | ast.expr] = []
    literal: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch in "{}" and text[i + 1:i + 2] == ch:
            literal.append(ch)
            i += 2
            continue
        if ch == "}":
            raise ExpressionError('has a "}" with no "{" before it (write "}}" for a brace)')
        if ch == "{":
            end = _closing(text, i + 1)
            source = text[i + 1:end].strip()
            if literal:
                parts.append("".join(literal))
                literal = []
            parts.append(expression(source))
            i = end + 1
            continue
        literal.append(ch)
        i += 1
    if literal:
        parts.append("".join(literal))
    return Template(text, tuple(parts))


def _closing(text: str, start: int) -> int:
    quote = None
    for i in range(start, len(text)):
        ch = text[i]
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "}":
            return i
        elif ch == "{":
            break
    raise ExpressionError('has a "{" with no "}" after it (write "{{" for a brace)')


def expression(source: str) -> ast.expr:
    """``source`` read as one expression of the allowed kinds (see the module docstring)."""
    if not source:
        raise ExpressionError("has an empty {}")
    if len(source) > MAX_EXPRESSION:
        raise ExpressionError(f"has an expression longer than {MAX_EXPRESSION} characters")
    try:
        tree = ast.parse(source, mode="eval").body
    except SyntaxError as exc:
        raise ExpressionError(f'"{source}" is not an expression ({exc.msg})') from None
    for node in ast.walk(tree):
        _allowed(node, source)
    return tree


def _allowed(node: ast.AST, source: str) -> None:
    if isinstance(node, (ast.expr_context, ast.operator, ast.cmpop, ast.boolop, ast.unaryop, ast.keyword)):
        if (isinstance(node, ast.operator) and type(node) not in _BINARY) or isinstance(node, ast.Invert):
            raise ExpressionError(f'"{source}": the operator {type(node).__name__} is not one a table uses')
        return
    if isinstance(node, ast.Constant):
        if not isinstance(node.value, (int, float, str, bool)):
            raise ExpressionError(f'"{source}": {node.value!r} is not a number, text or true/false')
        return
    if isinstance(node, ast.Name):
        if node.id.startswith("_"):
            raise ExpressionError(f'"{source}": a name does not start with _')
        return
    if isinstance(node, ast.Attribute):
        if node.attr.startswith("_"):
            raise ExpressionError(f'"{source}": a field does not start with _')
        return
    if isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
            raise ExpressionError(f'"{source}": the functions are {", ".join(FUNCTIONS)}')
        if any(k.arg is None for k in node.keywords) or any(isinstance(a, ast.Starred) for a in node.args):
            raise ExpressionError(f'"{source}": no * or ** in a call')
        return
    if isinstance(node, ast.Subscript):
        if isinstance(node.slice, ast.Slice):
            raise ExpressionError(f'"{source}": no slices, one item at a time')
        return
    if isinstance(node, (ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.IfExp, ast.List, ast.Tuple)):
        return
    raise ExpressionError(f'"{source}": {type(node).__name__} is not part of a table expression')


# -- evaluating -------------------------------------------------------------------------------------------------

class Scope:
    """The names an expression may use, and the build language texts in several languages are read in."""

    def __init__(self, names: Mapping[str, Any], lang: str, parent: "Scope | None" = None) -> None:
        self.names = names
        self.lang = lang
        self.parent = parent

    def child(self, names: Mapping[str, Any]) -> "Scope":
        """This scope with ``names`` added (they hide the same names of this one)."""
        return Scope(names, self.lang, self)

    def lookup(self, name: str) -> Any:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.names:
                return localise(scope.names[name], self.lang)
            scope = scope.parent
        raise ExpressionError(f'no name "{name}" here (names: {", ".join(sorted(self.known()))})')

    def known(self) -> set[str]:
        found: set[str] = set()
        scope: Scope | None = self
        while scope is not None:
            found.update(scope.names)
            scope = scope.parent
        return found

    def evaluate(self, node: ast.expr) -> Any:
        try:
            value = _code(node)(self)
        except ExpressionError:
            raise
        except (TypeError, ValueError, ZeroDivisionError, OverflowError, IndexError, KeyError) as exc:
            raise ExpressionError(f'"{ast.unparse(node)}": {exc}') from None
        if isinstance(value, (str, list, tuple)) and len(value) > MAX_TEXT:
            raise ExpressionError(f'"{ast.unparse(node)}" makes a value longer than {MAX_TEXT}')
        return value


Code = Callable[[Scope], Any]

_CODES: dict[int, tuple[ast.expr, Code]] = {}
"""id(node) → (the node, its code): each expression is turned into code once (the node is kept with it, so its
id names it while the entry lives)."""
_CODES_KEPT = 1 << 14


def _code(node: ast.expr) -> Code:
    """The code of ``node`` (made by :func:`_compile` the first time it is asked for)."""
    found = _CODES.get(id(node))
    if found is not None and found[0] is node:
        return found[1]
    if len(_CODES) >= _CODES_KEPT:
        _CODES.clear()
    code = _compile(node)
    _CODES[id(node)] = (node, code)
    return code


def _compile(node: ast.expr) -> Code:
    """``node`` as a function of the scope, doing what reading the tree each time would: a table places a deck's
    thousands of cards with the same few expressions, and walking the tree for each was most of placing them."""
    if isinstance(node, ast.Constant):
        constant = node.value
        return lambda scope: constant
    if isinstance(node, ast.Name):
        name = node.id
        if name in ("true", "false"):
            truth = name == "true"
            return lambda scope: truth
        return lambda scope: scope.lookup(name)
    if isinstance(node, ast.Attribute):
        of, attr = _compile(node.value), node.attr
        return lambda scope: localise(member(of(scope), attr), scope.lang)
    if isinstance(node, ast.Subscript):
        of, key = _compile(node.value), _compile(node.slice)
        return lambda scope: localise(item(of(scope), key(scope)), scope.lang)
    if isinstance(node, ast.BinOp):
        return _compile_binary(node)
    if isinstance(node, ast.UnaryOp):
        operand = _compile(node.operand)
        if isinstance(node.op, ast.Not):
            return lambda scope: not operand(scope)
        if isinstance(node.op, ast.USub):
            return lambda scope: -_numeric(operand(scope))
        return lambda scope: +_numeric(operand(scope))
    if isinstance(node, ast.BoolOp):
        parts = [_compile(part) for part in node.values]
        if isinstance(node.op, ast.And):
            def all_of(scope: Scope) -> Any:
                result: Any = True
                for part in parts:
                    result = part(scope)
                    if not result:
                        return result
                return result
            return all_of

        def any_of(scope: Scope) -> Any:
            result: Any = False
            for part in parts:
                result = part(scope)
                if result:
                    return result
            return result
        return any_of
    if isinstance(node, ast.Compare):
        first = _compile(node.left)
        chain = [(_COMPARE[type(op)], _compile(right)) for op, right in zip(node.ops, node.comparators)]

        def compare(scope: Scope) -> bool:
            left = first(scope)
            for holds, right_code in chain:
                right = right_code(scope)
                if not holds(left, right):
                    return False
                left = right
            return True
        return compare
    if isinstance(node, ast.IfExp):
        test, body, orelse = _compile(node.test), _compile(node.body), _compile(node.orelse)
        return lambda scope: body(scope) if test(scope) else orelse(scope)
    if isinstance(node, (ast.List, ast.Tuple)):
        elements = [_compile(e) for e in node.elts]
        return lambda scope: [e(scope) for e in elements]
    if isinstance(node, ast.Call):
        function = FUNCTIONS[node.func.id]   # type: ignore[attr-defined]
        args = [_compile(a) for a in node.args]
        keywords = [(k.arg, _compile(k.value)) for k in node.keywords]
        return lambda scope: function(*[a(scope) for a in args], **{k: v(scope) for k, v in keywords})

    def refused(scope: Scope) -> Any:
        raise ExpressionError(f'"{ast.unparse(node)}" cannot be evaluated')
    return refused


def _compile_binary(node: ast.BinOp) -> Code:
    left_code, right_code = _compile(node.left), _compile(node.right)
    adding = type(node.op) is ast.Add
    apply = _BINARY[type(node.op)]

    def binary(scope: Scope) -> Any:
        left, right = left_code(scope), right_code(scope)
        if adding and isinstance(left, (str, list, tuple)):
            if type(left) is not type(right):
                raise ExpressionError(f'"{ast.unparse(node)}": cannot add {_kind(right)} to {_kind(left)}')
            if len(left) + len(right) > MAX_TEXT:
                raise ExpressionError(f'"{ast.unparse(node)}" makes a value longer than {MAX_TEXT}')
            return left + right
        return apply(_numeric(left), _numeric(right))
    return binary


def _numeric(value: Any) -> int | float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ExpressionError(f"{show(value)!r} is {_kind(value)}, not a number")
    if isinstance(value, float) and not math.isfinite(value):
        raise ExpressionError("is not a finite number")
    return value


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a text"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, Mapping):
        return "a table"
    return "a record"


@functools.lru_cache(maxsize=256)
def _is_mapping(kind: type) -> bool:
    """``isinstance(value, Mapping)`` for a value of type ``kind``, asked once per type (an ABC's check is slow, and
    a table's cards ask it of every record)."""
    return issubclass(kind, Mapping)


def member(value: Any, name: str) -> Any:
    """Field ``name`` of a table (a key) or of a record (a dataclass field; nothing else of it)."""
    if _is_mapping(type(value)):
        if name in value:
            return value[name]
        raise ExpressionError(f'has no field "{name}" (fields: {", ".join(sorted(map(str, value)))})')
    fields = _record_fields(type(value))
    if fields is not None:
        if name in fields:
            return getattr(value, name)
        raise ExpressionError(f'has no field "{name}" (fields: {", ".join(fields)})')
    raise ExpressionError(f'{_kind(value)} has no fields (asked for "{name}")')


@functools.lru_cache(maxsize=256)
def _record_fields(kind: type) -> tuple[str, ...] | None:
    """The field names of a record type (a dataclass), or None for any other type."""
    return tuple(f.name for f in dataclasses.fields(kind)) if dataclasses.is_dataclass(kind) else None


def item(value: Any, key: Any) -> Any:
    """``value[key]``: an item of a list by its place (from 0), or a table's value by its key."""
    if isinstance(value, (list, tuple)):
        if isinstance(key, bool) or not isinstance(key, int):
            raise ExpressionError(f"a list's items are numbered, not {show(key)!r}")
        if not -len(value) <= key < len(value):
            raise ExpressionError(f"has no item {key} (it has {len(value)})")
        return value[key]
    if isinstance(value, Mapping):
        if key in value:
            return value[key]
        raise ExpressionError(f"has no key {show(key)!r}")
    raise ExpressionError(f"{_kind(value)} has no items")


def localise(value: Any, lang: str) -> Any:
    """A text in several languages → the ``lang`` one (else the first given); any other value as it is."""
    if type(value) in _SCALARS:
        return value
    if isinstance(value, Names):
        return value.get(lang)
    if _is_mapping(type(value)) and value and set(value) <= set(LANGUAGES) \
            and all(isinstance(v, str) for v in value.values()):
        return value.get(lang) or next(iter(value.values()))
    return value


def show(value: Any) -> str:
    """How a value reads inside a text: numbers as written (``2``, ``2.5``), true/false, a list joined by ``, ``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    if isinstance(value, (list, tuple)):
        return ", ".join(show(v) for v in value)
    return str(value)


_SCALARS = frozenset((str, int, float, bool, type(None)))


def evaluate(value: Any, scope: Scope) -> Any:
    """``value`` with every text of it holding braces evaluated (a list's and a table's too)."""
    if type(value) is Template:
        return value.value(scope)
    if isinstance(value, str):
        return template(value).value(scope) if is_template(value) else value
    if isinstance(value, Template):
        return value.value(scope)
    if isinstance(value, list):
        return [evaluate(v, scope) for v in value]
    if isinstance(value, dict):
        return {k: evaluate(v, scope) for k, v in value.items()}
    return value


def compiled(value: Any) -> Any:
    """``value`` with every text holding braces read into a :class:`Template` (its lists' and tables' too), so a
    value evaluated for each of a thousand cards is read once; :class:`ExpressionError` for a bad one."""
    if isinstance(value, str):
        return template(value) if is_template(value) else value
    if isinstance(value, list):
        return [compiled(v) for v in value]
    if isinstance(value, dict):
        return {k: compiled(v) for k, v in value.items()}
    return value


def plain(value: Any) -> Any:
    """``value`` with tuples made lists (what TOML and JSON hold), for a memo or a check."""
    if type(value) in _SCALARS:
        return value
    if isinstance(value, tuple):
        return [plain(v) for v in value]
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in value.items()}
    return value


def as_expression(text: str) -> ast.expr | Template:
    """A field that is an expression whether or not it is in braces (``for_each = "seats"``, ``when``)."""
    stripped = text.strip()
    if stripped.startswith("{") and stripped.endswith("}") and template(stripped).whole:
        return template(stripped)
    return expression(stripped)


def evaluate_expression(node: ast.expr | Template, scope: Scope) -> Any:
    return node.value(scope) if isinstance(node, Template) else scope.evaluate(node)


__all__: Sequence[str] = ("ExpressionError", "Scope", "Template", "compiled", "evaluate", "expression",
                          "is_template", "localise", "plain", "show", "template", "as_expression",
                          "evaluate_expression")
