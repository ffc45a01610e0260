"""Preprocessor conditions around a registration: the `#if` stack, and what it implies for platforms.

A guard is the condition text of one enclosing `#if`/`#ifdef`/`#ifndef`/`#elif`/`#else` level, written as
a C expression (`!defined(USE_ROCM)`). Platforms follow from whether the guards can hold with `USE_ROCM`
defined and with it undefined, every other macro being free.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

from kernelgenbench.errors import SourceParseError
from kernelgenbench.locations import Location

_ROCM_MACRO = "USE_ROCM"


def negate(cond: str) -> str:
    """The negation of a condition, without double negation of a single `defined(X)`."""
    m = re.fullmatch(r"!\s*defined\s*\(\s*(\w+)\s*\)", cond)
    if m:
        return f"defined({m.group(1)})"
    if re.fullmatch(r"defined\s*\(\s*\w+\s*\)", cond):
        return f"!{cond}"
    return f"!({cond})"


@dataclass
class GuardStack:
    """The conditions of the enclosing `#if` levels while walking a file (mutable, local to one walk)."""

    file: str
    # Each level: (conditions seen so far in this #if chain, the active condition text, line of the #if).
    _levels: list[tuple[list[str], str, int]] = field(default_factory=list)

    def directive(self, text: str, line: int) -> None:
        """Update the stack for one directive (text without the leading '#')."""
        m = re.match(r"(\w+)\s*(.*)", text)
        if not m:
            return
        word, rest = m.group(1), m.group(2).strip()
        if word == "ifdef":
            self._levels.append(([f"defined({rest})"], f"defined({rest})", line))
        elif word == "ifndef":
            self._levels.append(([f"!defined({rest})"], f"!defined({rest})", line))
        elif word == "if":
            self._levels.append(([rest], rest, line))
        elif word in ("elif", "else", "elifdef", "elifndef"):
            if not self._levels:
                raise SourceParseError(f"#{word} without #if", at=Location(self.file, line))
            seen, _, start = self._levels.pop()
            cond = {"elifdef": f"defined({rest})", "elifndef": f"!defined({rest})"}.get(word, rest)
            parts = [negate(c) for c in seen] + ([cond] if word != "else" else [])
            active = " && ".join(p if _is_atomic(p) else f"({p})" for p in parts) if len(parts) > 1 else parts[0]
            self._levels.append((seen + ([cond] if word != "else" else []), active, start))
        elif word == "endif":
            if not self._levels:
                raise SourceParseError("#endif without #if", at=Location(self.file, line))
            self._levels.pop()

    @property
    def conditions(self) -> tuple[str, ...]:
        """The active condition of every enclosing level, outermost first."""
        return tuple(active for _, active, _ in self._levels)

    def check_closed(self) -> None:
        """Raise when the file ends inside an `#if`."""
        if self._levels:
            raise SourceParseError("#if without #endif", at=Location(self.file, self._levels[-1][2]))


def _is_atomic(cond: str) -> bool:
    return bool(re.fullmatch(r"!?\s*defined\s*\(\s*\w+\s*\)|!?\w+", cond))


# --- platform inference: a tiny parser for #if expressions ---------------------------------------------------

_TOKEN = re.compile(r"\s*(\|\||&&|!=|==|<=|>=|[()!<>]|defined\b|\w+|\S)")


@dataclass(frozen=True)
class _Expr:
    op: str  # 'atom', 'not', 'and', 'or'
    args: tuple[_Expr, ...] = ()
    atom: str = ""

    def eval(self, env: dict[str, bool]) -> bool:
        if self.op == "atom":
            return env[self.atom]
        if self.op == "not":
            return not self.args[0].eval(env)
        vals = (a.eval(env) for a in self.args)
        return all(vals) if self.op == "and" else any(vals)

    def atoms(self) -> set[str]:
        return {self.atom} if self.op == "atom" else set().union(*(a.atoms() for a in self.args))


def _parse(cond: str) -> _Expr:
    toks = [t for t in _TOKEN.findall(cond) if t]
    pos = 0

    def peek() -> str | None:
        return toks[pos] if pos < len(toks) else None

    def take() -> str:
        nonlocal pos
        pos += 1
        return toks[pos - 1]

    def parse_or() -> _Expr:
        terms = [parse_and()]
        while peek() == "||":
            take()
            terms.append(parse_and())
        return terms[0] if len(terms) == 1 else _Expr("or", tuple(terms))

    def parse_and() -> _Expr:
        terms = [parse_unary()]
        while peek() == "&&":
            take()
            terms.append(parse_unary())
        return terms[0] if len(terms) == 1 else _Expr("and", tuple(terms))

    def parse_unary() -> _Expr:
        if peek() == "!":
            take()
            return _Expr("not", (parse_unary(),))
        if peek() == "(":
            take()
            inner = parse_or()
            if peek() == ")":
                take()
            return inner
        if peek() == "defined":
            take()
            paren = peek() == "("
            if paren:
                take()
            name = take() if peek() is not None else ""
            if paren and peek() == ")":
                take()
            return _Expr("atom", atom=f"defined({name})")
        # An opaque comparison or macro value: everything up to the next && / || / unmatched ')'.
        parts: list[str] = []
        depth = 0
        while peek() is not None and not (depth == 0 and peek() in ("&&", "||", ")")):
            t = take()
            depth += {"(": 1, ")": -1}.get(t, 0)
            parts.append(t)
        return _Expr("atom", atom=" ".join(parts))

    return parse_or()


def platforms_for(guards: tuple[str, ...], build: str) -> list[str]:
    """Platforms a registration applies to: its build's, narrowed by USE_ROCM in its guards."""
    if build != "gpu":
        return [build]
    exprs = [_parse(g) for g in guards]
    atoms = sorted(set().union(*(e.atoms() for e in exprs)) - {f"defined({_ROCM_MACRO})", _ROCM_MACRO})
    if len(atoms) > 12:  # too many free macros to enumerate; say only what the ROCm macro says
        atoms = []
    possible: list[str] = []
    for rocm, platform in ((False, "cuda"), (True, "rocm")):
        for values in itertools.product((False, True), repeat=len(atoms)):
            env = dict(zip(atoms, values, strict=True))
            env[f"defined({_ROCM_MACRO})"] = rocm
            env[_ROCM_MACRO] = rocm
            try:
                ok = all(e.eval(env) for e in exprs)
            except KeyError:
                ok = True
            if ok:
                possible.append(platform)
                break
    return possible or ["cuda"]
