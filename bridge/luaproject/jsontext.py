"""JSON that keeps its spelling: numbers as they were written, keys in their order, and the layout of the text.

``ttsmod unpack`` → ``ttsmod pack`` gives the save's own bytes back (:mod:`bridge.luaproject.savetree`). Python's
:mod:`json` gives back equal values but its own text: ``1E+09`` becomes ``1000000000.0``. This module is the
other half:

- :func:`loads` parses with :mod:`json`'s own ``parse_float`` / ``parse_int`` hooks. A number whose text is not
  what :func:`dumps` would write for its value (``1E+09``, ``-1.250435E-05``, ``0.00006786421``, ``-0``) becomes a
  :class:`SpelledFloat` / :class:`SpelledInt`: the same number (a ``float`` / ``int``, equal to it), carrying its
  text. Every other number is a plain ``float`` or ``int``. Objects keep their key order (Python's ``dict``).
- :func:`dumps` writes a value in a :class:`Layout`: a spelled number as its text, any other float as Python's
  ``repr`` (the shortest text that reads back to it), keys in the dict's order, strings escaped as TTS's writer
  does (``"``, ``\\`` and control characters; everything else as it is, or ``\\u`` escapes with ``ascii``).
- :func:`detect_layout` finds the layout a text was written in (TTS: 2-space indent, LF, no final newline, no BOM;
  also CRLF, other indents, one-line JSON with or without spaces) and says whether :func:`dumps` gives the text
  back exactly.

No I/O here.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, replace
from json.encoder import encode_basestring, encode_basestring_ascii
from typing import Any

BOM = "\ufeff"
JSON_SPACE = " \t\r\n"


class SpelledFloat(float):
    """A float read from JSON text that spelled it otherwise than ``repr`` does; ``text`` is that spelling."""

    __slots__ = ("text",)

    def __new__(cls, text: str) -> "SpelledFloat":
        number = super().__new__(cls, text)
        number.text = text
        return number

    def __reduce__(self):       # copy and pickle keep the spelling
        return (SpelledFloat, (self.text,))


class SpelledInt(int):
    """An integer read from JSON text that spelled it otherwise than ``str`` does (``-0``); ``text`` is that."""

    def __new__(cls, text: str) -> "SpelledInt":
        number = super().__new__(cls, text)
        number.text = text
        return number

    def __reduce__(self):
        return (SpelledInt, (self.text,))


def _parse_float(text: str) -> float:
    number = float(text)
    return number if _float_text(number) == text else SpelledFloat(text)


def _parse_int(text: str) -> int:
    number = int(text)
    return number if str(number) == text else SpelledInt(text)


def loads(text: str) -> Any:
    """``text`` parsed as JSON, numbers keeping their spelling (see the module docstring). Raises what
    :func:`json.loads` raises."""
    return json.loads(text, parse_float=_parse_float, parse_int=_parse_int)


@dataclass(frozen=True)
class Layout:
    """How a JSON text is laid out. ``indent`` ``None`` is one line, items joined by ``item_separator`` and keys
    by ``key_separator``; a string is one item per line, indented by that much per level, lines ended by
    ``newline`` and keys followed by ``": "``. ``ascii`` writes every non-ASCII character as a ``\\u`` escape.
    ``before`` and ``after`` are the whitespace around the value, ``bom`` a byte order mark at the start."""

    indent: str | None = "  "
    newline: str = "\n"
    item_separator: str = ","
    key_separator: str = ": "
    ascii: bool = False
    before: str = ""
    after: str = ""
    bom: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"indent": self.indent, "newline": self.newline, "item_separator": self.item_separator,
                "key_separator": self.key_separator, "ascii": self.ascii, "before": self.before,
                "after": self.after, "bom": self.bom}

    @classmethod
    def from_json(cls, data: Any) -> "Layout":
        """The layout ``to_json`` wrote; ``ValueError`` naming the field when it is not one."""
        if not isinstance(data, dict):
            raise ValueError("layout: not a JSON object")
        fields = cls().to_json()
        values: dict[str, Any] = {}
        for name, default in fields.items():
            value = data.get(name, default)
            if name == "indent":
                ok = value is None or (isinstance(value, str) and value.strip(" \t") == "")
            elif isinstance(default, bool):
                ok = isinstance(value, bool)
            else:
                ok = isinstance(value, str) and value.strip(JSON_SPACE + ",:") == "" and (
                    name not in ("item_separator", "key_separator")
                    or value.count("," if name == "item_separator" else ":") == 1)
            if not ok:
                raise ValueError(f"layout: {name} cannot be {value!r}")
            values[name] = value
        if values["newline"] not in ("\n", "\r\n"):
            raise ValueError(f"layout: newline cannot be {values['newline']!r}")
        return cls(**values)


TTS_LAYOUT = Layout()
"""What TTS writes: 2-space indent, ``\\n``, ``": "``, no final newline, no BOM."""

TREE_LAYOUT = Layout(after="\n")
"""What ``unpack`` writes for the JSON files of a tree: TTS's layout with a final newline."""

_SURROGATE = re.compile("[\ud800-\udfff]")


def _float_text(number: float) -> str:
    if math.isnan(number):
        return "NaN"
    if math.isinf(number):
        return "Infinity" if number > 0 else "-Infinity"
    return float.__repr__(number)


def _escape_surrogates(text: str) -> str:
    return _SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def dumps(value: Any, layout: Layout = TTS_LAYOUT) -> str:
    """``value`` as JSON text in ``layout`` (without the BOM; with ``before`` and ``after``). A lone surrogate in a
    string (which UTF-8 cannot hold) is written as a ``\\u`` escape. ``ValueError`` for a value JSON has no text
    for, or one nested too deeply for recursion."""
    encode = encode_basestring_ascii if layout.ascii else encode_basestring
    text = _dumps(value, layout, encode)
    if not layout.ascii and _SURROGATE.search(text):
        text = _dumps(value, layout, lambda s: _escape_surrogates(encode_basestring(s)))
    return layout.before + text + layout.after


def _dumps(value: Any, layout: Layout, encode) -> str:
    out: list[str] = []
    append = out.append
    indent, newline = layout.indent, layout.newline
    item_sep, key_sep = layout.item_separator, layout.key_separator
    if indent is not None:
        key_sep = ": "

    def emit(item: Any, margin: str) -> None:
        if isinstance(item, str):
            append(encode(item))
        elif item is None:
            append("null")
        elif item is True:
            append("true")
        elif item is False:
            append("false")
        elif isinstance(item, (SpelledFloat, SpelledInt)):
            append(item.text)
        elif isinstance(item, int):
            append(int.__repr__(item))
        elif isinstance(item, float):
            append(_float_text(item))
        elif isinstance(item, dict):
            if not item:
                append("{}")
                return
            inner = None if indent is None else margin + indent
            append("{" if inner is None else "{" + newline + inner)
            first = True
            for key, sub in item.items():
                if not first:
                    append(item_sep if inner is None else "," + newline + inner)
                first = False
                if not isinstance(key, str):
                    raise ValueError(f"a JSON object key must be a string, not {type(key).__name__}")
                append(encode(key))
                append(key_sep)
                emit(sub, inner or "")
            append("}" if inner is None else newline + margin + "}")
        elif isinstance(item, (list, tuple)):
            if not item:
                append("[]")
                return
            inner = None if indent is None else margin + indent
            append("[" if inner is None else "[" + newline + inner)
            first = True
            for sub in item:
                if not first:
                    append(item_sep if inner is None else "," + newline + inner)
                first = False
                emit(sub, inner or "")
            append("]" if inner is None else newline + margin + "]")
        else:
            raise ValueError(f"no JSON text for a {type(item).__name__}")

    try:
        emit(value, "")
    except RecursionError:
        raise ValueError("JSON nested too deeply to write") from None
    return "".join(out)


def detect_layout(text: str, value: Any) -> tuple[Layout, bool]:
    """The layout ``text`` (the JSON ``value`` was read from; a BOM at its start counts) is written in, and
    whether :func:`dumps` in that layout gives ``text`` back exactly (``False``: the closest layout found, e.g.
    for a hand-written file with uneven spacing or ``\\/`` escapes)."""
    bom = text.startswith(BOM)
    if bom:
        text = text[1:]
    body = text.strip(JSON_SPACE)
    start = text.index(body[:1]) if body else 0
    edges = {"before": text[:start], "after": text[start + len(body):], "bom": bom}
    candidates: list[Layout] = []
    lines = body.split("\n", 2)
    if len(lines) > 1:
        newline = "\r\n" if lines[0].endswith("\r") else "\n"
        second = lines[1]
        indent = second[:len(second) - len(second.lstrip(" \t"))] or "  "
        candidates.append(Layout(indent=indent, newline=newline, **edges))
    candidates += [Layout(indent=None, item_separator=", ", key_separator=": ", **edges),
                   Layout(indent=None, item_separator=",", key_separator=":", **edges)]
    if len(lines) <= 1:
        candidates.append(Layout(**edges))
    ascii_only = body.isascii()
    for ascii in ((False, True) if ascii_only else (False,)):
        for candidate in candidates:
            candidate = replace(candidate, ascii=ascii)
            try:
                if _dumps_body(value, candidate) == body:
                    return candidate, True
            except ValueError:
                return candidates[0], False
    return candidates[0], False


def _dumps_body(value: Any, layout: Layout) -> str:
    return dumps(value, replace(layout, before="", after=""))
