"""A small C/C++ tokenizer: enough of the language to read vLLM's op registration blocks exactly.

It keeps preprocessor directives as tokens (registration blocks are interleaved with `#ifndef USE_ROCM`),
decodes string literals (escapes, raw strings) and drops comments. Every token knows its line.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

from kernelgenbench.errors import SourceParseError
from kernelgenbench.locations import Location


class TokKind(enum.Enum):
    """What a token is."""

    IDENT = "ident"
    NUMBER = "number"
    STRING = "string"
    CHAR = "char"
    PUNCT = "punct"
    DIRECTIVE = "directive"


@dataclass(frozen=True)
class Token:
    """One token; `text` is the decoded value for strings, the joined logical line for directives."""

    kind: TokKind
    text: str
    line: int


_IDENT = re.compile(r"[A-Za-z_]\w*")
_NUMBER = re.compile(r"\.?\d(?:[eEpP][+-]|'(?=\w)|[\w.])*")
_STRING_PREFIX = re.compile(r"(?:u8|u|U|L)?R?\"")
_PUNCT2 = ("::", "->", "&&", "||", "==", "!=", "<=", ">=", "<<", ">>", "++", "--", "##")
_SIMPLE_ESCAPES = {
    "n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'", "?": "?",
    "a": "\a", "b": "\b", "f": "\f", "v": "\v",
}


def decode_escapes(body: str, *, file: str, line: int) -> str:
    """The value of a C string literal's body (between the quotes), escapes decoded."""
    out: list[str] = []
    i, n = 0, len(body)
    while i < n:
        c = body[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        if i + 1 >= n:
            raise SourceParseError("string literal ends with a lone backslash", at=Location(file, line))
        e = body[i + 1]
        if e in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[e])
            i += 2
        elif e in "01234567":
            m = re.match(r"[0-7]{1,3}", body[i + 1 :])
            assert m is not None
            out.append(chr(int(m.group(), 8)))
            i += 1 + len(m.group())
        elif e in "xuU":
            width = {"x": None, "u": 4, "U": 8}[e]
            m = re.match(r"[0-9A-Fa-f]+" if width is None else f"[0-9A-Fa-f]{{{width}}}", body[i + 2 :])
            if not m:
                raise SourceParseError(f"bad \\{e} escape in a string literal", at=Location(file, line))
            out.append(chr(int(m.group(), 16)))
            i += 2 + len(m.group())
        else:
            raise SourceParseError(f"unknown escape \\{e} in a string literal", at=Location(file, line))
    return "".join(out)


def tokenize(text: str, *, file: str) -> list[Token]:
    """All tokens of a C/C++ source text; raises SourceParseError (file:line) on unterminated literals."""
    toks: list[Token] = []
    i, n, line = 0, len(text), 1
    at_line_start = True
    while i < n:
        skipped = _skip_blank(text, i, line, file)
        if skipped is not None:
            i, line, newline = skipped
            at_line_start = at_line_start or newline
            continue
        if text[i] == "#" and at_line_start:
            start_line = line
            i, directive, line = _read_directive(text, i, line, file)
            toks.append(Token(TokKind.DIRECTIVE, directive, start_line))
            continue
        at_line_start = False
        i, tok, line = _read_token(text, i, line, file)
        toks.append(tok)
    return toks


def _skip_blank(text: str, i: int, line: int, file: str) -> tuple[int, int, bool] | None:
    """Past the whitespace, line continuation or comment at i: (index, line, whether a line ended); None if
    a token starts at i."""
    c = text[i]
    if c == "\n":
        return i + 1, line + 1, True
    if c in " \t\r\f\v":
        return i + 1, line, False
    if c == "\\" and text.startswith("\\\n", i):
        return i + 2, line + 1, False
    if text.startswith("//", i):
        j = text.find("\n", i)
        return (len(text) if j < 0 else j), line, False
    if text.startswith("/*", i):
        j = text.find("*/", i + 2)
        if j < 0:
            raise SourceParseError("unterminated /* comment", at=Location(file, line))
        return j + 2, line + text.count("\n", i, j), False
    return None


def _read_token(text: str, i: int, line: int, file: str) -> tuple[int, Token, int]:
    """The string, identifier, number, character or punctuator token at i: (index after it, token, line)."""
    m = _STRING_PREFIX.match(text, i)
    if m:
        start_line = line
        if m.group().endswith('R"'):
            i, value, line = _read_raw_string(text, m.end(), line, file)
        else:
            i, value, line = _read_string(text, m.end(), line, file, '"')
        return i, Token(TokKind.STRING, value, start_line), line
    m = _IDENT.match(text, i)
    if m:
        return m.end(), Token(TokKind.IDENT, m.group(), line), line
    m = _NUMBER.match(text, i)
    if m:
        return m.end(), Token(TokKind.NUMBER, m.group(), line), line
    if text[i] == "'":
        i, value, line = _read_string(text, i + 1, line, file, "'")
        return i, Token(TokKind.CHAR, value, line), line
    two = text[i : i + 2]
    if two in _PUNCT2:
        return i + 2, Token(TokKind.PUNCT, two, line), line
    return i + 1, Token(TokKind.PUNCT, text[i], line), line


def _read_string(text: str, i: int, line: int, file: str, quote: str) -> tuple[int, str, int]:
    start, start_line = i, line
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "\n":
            raise SourceParseError("unterminated string literal", at=Location(file, start_line))
        if c == quote:
            return i + 1, decode_escapes(text[start:i], file=file, line=start_line), line
        i += 1
    raise SourceParseError("unterminated string literal", at=Location(file, start_line))


def _read_raw_string(text: str, i: int, line: int, file: str) -> tuple[int, str, int]:
    paren = text.find("(", i)
    if paren < 0 or paren - i > 16:
        raise SourceParseError("malformed raw string literal", at=Location(file, line))
    close = ")" + text[i:paren] + '"'
    end = text.find(close, paren + 1)
    if end < 0:
        raise SourceParseError("unterminated raw string literal", at=Location(file, line))
    value = text[paren + 1 : end]
    return end + len(close), value, line + text.count("\n", i, end)


def _read_directive(text: str, i: int, line: int, file: str) -> tuple[int, str, int]:
    """A preprocessor directive as one logical line (continuations joined, comments dropped)."""
    parts: list[str] = []
    n = len(text)
    j = i + 1
    while j < n:
        c = text[j]
        if c == "\\" and text.startswith("\\\n", j):
            j += 2
            line += 1
            parts.append(" ")
            continue
        if c == "\n":
            break
        if text.startswith("//", j):
            k = text.find("\n", j)
            j = n if k < 0 else k
            # a // comment ends the directive even if it ends with a backslash
            break
        if text.startswith("/*", j):
            k = text.find("*/", j + 2)
            if k < 0:
                raise SourceParseError("unterminated /* comment", at=Location(file, line))
            line += text.count("\n", j, k)
            parts.append(" ")
            j = k + 2
            continue
        if c == '"':
            k, _, line = _read_string(text, j + 1, line, file, '"')
            parts.append(text[j:k])
            j = k
            continue
        parts.append(c)
        j += 1
    return j, " ".join("".join(parts).split()), line
