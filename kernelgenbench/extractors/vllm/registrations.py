"""vLLM's op registrations in csrc/**: every `.def` and `.impl` inside the torch library blocks.

Handles both layouts: 0.13.0's `TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops)` with inline
`ops.impl(name, torch::kCUDA, &fn)`, and the current `STABLE_TORCH_LIBRARY_FRAGMENT(_C, ops)` with separate
`STABLE_TORCH_LIBRARY_IMPL(_C, CUDA, ops)` blocks. A file that cannot be read is reported (file:line) and
skipped; the others are still extracted.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kernelgenbench.datafiles import load_data
from kernelgenbench.errors import SourceParseError
from kernelgenbench.extractors.vllm.cpp_lexer import Token, TokKind, tokenize
from kernelgenbench.extractors.vllm.guards import GuardStack
from kernelgenbench.locations import Location, context

_BLOCK_MACRO = re.compile(r"(STABLE_)?TORCH_LIBRARY(_FRAGMENT|_IMPL)?(_EXPAND)?")
_OP_NAME = re.compile(r"[A-Za-z_]\w*(\.\w+)?")
_SOURCE_SUFFIXES = (".cpp", ".cu", ".cc", ".cxx", ".h", ".hpp", ".cuh")
CATCH_ALL = "CompositeImplicitAutograd"
_PAIRS = {"(": ")", "[": "]", "{": "}"}


@dataclass(frozen=True)
class OpDef:
    """One `.def(...)`: the schema text as the compiler sees it (adjacent literals joined, escapes decoded)."""

    namespace: str
    qualified_name: str  # 'rms_norm' or 'name.overload' as written before the '('
    schema: str | None  # None for a name-only def
    location: Location
    guards: tuple[str, ...]
    build: str
    block: str  # the registration macro the def sits in
    torch_tags: tuple[str, ...] = ()
    catch_all: bool = False  # the def passes a kernel directly (registered for every key)

    @property
    def name(self) -> str:
        """The op name without overload."""
        return self.qualified_name.split(".", 1)[0]

    @property
    def overload(self) -> str:
        """The schema's overload name, empty for the default overload."""
        return self.qualified_name.split(".", 1)[1] if "." in self.qualified_name else ""


@dataclass(frozen=True)
class OpImpl:
    """One `.impl(...)`: a kernel for a dispatch key."""

    namespace: str
    qualified_name: str
    dispatch_key: str
    location: Location
    guards: tuple[str, ...]
    build: str


@dataclass(frozen=True)
class RegistrationFile:
    """The registrations read from one source file."""

    path: str
    defs: tuple[OpDef, ...]
    impls: tuple[OpImpl, ...]
    problems: tuple[str, ...] = ()  # one line each (file:line: why): a def or impl that could not be read


@dataclass(frozen=True)
class SkippedFile:
    """A source file that could not be read; `reason` starts with file:line."""

    path: str
    reason: str


@dataclass(frozen=True)
class Registrations:
    """Every registration file of a source tree, and the files skipped."""

    files: tuple[RegistrationFile, ...]
    skipped: tuple[SkippedFile, ...]

    @property
    def defs(self) -> tuple[OpDef, ...]:
        """All defs, in file order then source order."""
        return tuple(d for f in self.files for d in f.defs)

    @property
    def impls(self) -> tuple[OpImpl, ...]:
        """All impls, in file order then source order."""
        return tuple(i for f in self.files for i in f.impls)


@dataclass(frozen=True)
class BuildRule:
    """Which extension and build files under `prefix` belong to."""

    prefix: str
    extension: str
    build: str


@dataclass(frozen=True)
class BuildTable:
    """Path prefix -> extension name and build, from kernelgenbench/data/vllm_builds.yaml."""

    rules: tuple[BuildRule, ...]
    build_rank: tuple[str, ...]

    def lookup(self, path: str) -> BuildRule:
        """The rule with the longest prefix matching `path` (relative, '/'-separated)."""
        best = max((r for r in self.rules if path.startswith(r.prefix)), key=lambda r: len(r.prefix), default=None)
        return best or BuildRule("", "_C", "gpu")

    def rank(self, build: str) -> int:
        """Order of a build when several files define the same name (lower first)."""
        return self.build_rank.index(build) if build in self.build_rank else len(self.build_rank)


@functools.cache
def build_table() -> BuildTable:
    """The build table shipped with the package."""
    data: dict[str, Any] = load_data("vllm_builds.yaml", top=dict)
    rules = tuple(BuildRule(r["prefix"], r["extension"], r["build"]) for r in data["prefixes"])
    return BuildTable(rules, tuple(data["build_rank"]))


# --- parsing one file -------------------------------------------------------------------------------------------


@dataclass
class _Block:
    macro: str
    namespace: str
    var: str
    key: str | None  # dispatch key of an IMPL block
    depth: int  # brace depth inside the block


def parse_registrations(text: str, *, file: str, extension: str = "_C", build: str = "gpu") -> RegistrationFile:
    """All defs and impls of one C++ source text; SourceParseError (file:line) when it cannot be read."""
    toks = tokenize(text, file=file)
    guards = GuardStack(file)
    defines: dict[str, str] = {}
    defs: list[OpDef] = []
    impls: list[OpImpl] = []
    problems: list[str] = []
    block: _Block | None = None
    depth = 0
    i = 0
    n = len(toks)
    while i < n:
        t = toks[i]
        if t.kind is TokKind.DIRECTIVE:
            guards.directive(t.text, t.line)
            m = re.fullmatch(r"define\s+(\w+)\s+(.+)", t.text)
            if m:
                defines[m.group(1)] = m.group(2)
            i += 1
            continue
        if t.kind is TokKind.PUNCT and t.text in "{}":
            depth += 1 if t.text == "{" else -1
            if block is not None and depth < block.depth:
                block = None
            i += 1
            continue
        if block is None and t.kind is TokKind.IDENT and _BLOCK_MACRO.fullmatch(t.text) and _is(toks, i + 1, "("):
            args, j = _call_args(toks, i + 1, file)
            if not _is(toks, j, "{"):
                i += 1
                continue
            block = _open_block(t, args, defines, extension, file)
            depth += 1
            block.depth = depth
            i = j + 1
            continue
        if (
            block is not None
            and t.kind is TokKind.IDENT
            and t.text == block.var
            and _is(toks, i + 1, ".")
            and i + 3 < n
            and toks[i + 2].text in ("def", "impl")
            and _is(toks, i + 3, "(")
        ):
            i = _read_registration(toks, i, block, guards.conditions, build, file, defs, impls, problems)
            continue
        i += 1
    guards.check_closed()
    if block is not None:
        raise SourceParseError(f"{block.macro} block is not closed", at=Location(file, toks[-1].line if toks else 1))
    return RegistrationFile(file, tuple(defs), tuple(impls), tuple(problems))


def _read_registration(toks: list[Token], i: int, block: _Block, guards: tuple[str, ...], build: str, file: str,
                       defs: list[OpDef], impls: list[OpImpl], problems: list[str]) -> int:
    """Read the `var.def(...)` / `var.impl(...)` statement at i into defs or impls; the index after it.

    A statement that cannot be read (a missing parenthesis, a schema that is not a literal) is reported in
    `problems` and skipped up to its `;`, so one broken definition loses only itself.
    """
    t = toks[i]
    where = Location(file, t.line)
    try:
        args, j = _call_args(toks, i + 3, file, statement=True)
        with context(where):
            if toks[i + 2].text == "def":
                defs.append(_make_def(args, block, where, guards, build))
            else:
                impls.append(_make_impl(args, block, where, guards, build))
        return j
    except SourceParseError as exc:
        problems.append(f"{exc}; this {block.var}.{toks[i + 2].text}() was skipped")
        return _statement_end(toks, i + 3)


def _statement_end(toks: list[Token], i: int) -> int:
    """The index after the next `;` (the end of a broken statement), or the end of the tokens."""
    while i < len(toks) and not (toks[i].kind is TokKind.PUNCT and toks[i].text == ";"):
        i += 1
    return i + 1


def _is(toks: list[Token], i: int, punct: str) -> bool:
    return i < len(toks) and toks[i].kind is TokKind.PUNCT and toks[i].text == punct


def _call_args(toks: list[Token], open_idx: int, file: str, *,
               statement: bool = False) -> tuple[list[list[Token]], int]:
    """The top-level comma-separated arguments of the call whose '(' is at open_idx; and the index after ')'.

    With `statement`, the call must close before the `;` that ends its statement (a `;` directly inside its
    parentheses means a `)` is missing).
    """
    args: list[list[Token]] = [[]]
    stack: list[Token] = []
    for k in range(open_idx, len(toks)):
        t = toks[k]
        if t.kind is TokKind.PUNCT and t.text in "([{":
            stack.append(t)
            if len(stack) == 1:
                continue
        elif t.kind is TokKind.PUNCT and t.text in ")]}":
            opener = stack.pop()
            if _PAIRS[opener.text] != t.text:
                raise SourceParseError(f"'{opener.text}' closed by '{t.text}' at line {t.line}",
                                       at=Location(file, opener.line))
            if not stack:
                return ([] if args == [[]] else args), k + 1
        elif len(stack) == 1 and t.kind is TokKind.PUNCT and t.text == ",":
            args.append([])
            continue
        elif statement and len(stack) == 1 and t.kind is TokKind.PUNCT and t.text == ";":
            raise SourceParseError(f"unclosed '(': the statement ends at line {t.line} before its ')'",
                                   at=Location(file, toks[open_idx].line))
        if t.kind is not TokKind.DIRECTIVE:
            args[-1].append(t)
    raise SourceParseError("unclosed '(' in a registration call", at=Location(file, toks[open_idx].line))


def _resolve_name(arg: list[Token], defines: dict[str, str], extension: str, file: str, line: int) -> str:
    """The library name a macro argument expands to (TORCH_EXTENSION_NAME, CONCAT(A, B), #defines)."""
    text = " ".join(t.text for t in arg)
    if len(arg) == 1 and arg[0].kind is TokKind.IDENT:
        name = arg[0].text
        if name in defines:
            return _resolve_name(tokenize(defines[name], file=file), {k: v for k, v in defines.items() if k != name},
                                 extension, file, line)
        return extension if name == "TORCH_EXTENSION_NAME" else name
    if arg and arg[0].text in ("CONCAT", "_CONCAT") and len(arg) > 2 and arg[1].text == "(":
        parts, end = _call_args(arg, 1, file)
        if len(parts) == 2 and end == len(arg):
            return "".join(_resolve_name(p, defines, extension, file, line) for p in parts)
    raise SourceParseError(f"cannot resolve the library name `{text}`", at=Location(file, line))


def _open_block(t: Token, args: list[list[Token]], defines: dict[str, str], extension: str, file: str) -> _Block:
    impl = "_IMPL" in t.text
    if len(args) != (3 if impl else 2) or any(not a for a in args):
        raise SourceParseError(f"{t.text} takes {3 if impl else 2} arguments, got {len(args)}", at=Location(file, t.line))
    namespace = _resolve_name(args[0], defines, extension, file, t.line)
    var_tok = args[-1]
    if len(var_tok) != 1 or var_tok[0].kind is not TokKind.IDENT:
        raise SourceParseError(f"{t.text}: the last argument must be the module variable", at=Location(file, t.line))
    key = "".join(x.text for x in args[1]) if impl else None
    return _Block(t.text, namespace, var_tok[0].text, key, 0)


def _strings(arg: list[Token]) -> str | None:
    """The joined value of adjacent string literals, also inside one wrapping macro call; else None."""
    if arg and all(t.kind is TokKind.STRING for t in arg):
        return "".join(t.text for t in arg)
    if len(arg) >= 4 and arg[0].kind is TokKind.IDENT and arg[1].text == "(" and arg[-1].text == ")":
        return _strings(arg[2:-1])
    return None


def _make_def(args: list[list[Token]], block: _Block, where: Location, guards: tuple[str, ...], build: str) -> OpDef:
    if not args:
        raise SourceParseError(f"{block.var}.def() has no arguments")
    text = _strings(args[0])
    if text is None:
        raise SourceParseError(f"{block.var}.def: the schema is not a string literal")
    head = text.split("(", 1)[0].strip()
    if not _OP_NAME.fullmatch(head):
        raise SourceParseError(f"{block.var}.def: bad operator name {head!r}")
    tags: list[str] = []
    catch_all = False
    for arg in args[1:]:
        words = [t.text for t in arg]
        found = [words[k + 2] for k in range(len(words) - 2) if words[k] == "Tag" and words[k + 1] == "::"]
        tags.extend(found)
        if not found:
            catch_all = True
    return OpDef(
        namespace=block.namespace,
        qualified_name=head,
        schema=text if "(" in text else None,
        location=where,
        guards=guards,
        build=build,
        block=block.macro,
        torch_tags=tuple(tags),
        catch_all=catch_all,
    )


def _dispatch_key(arg: list[Token]) -> str | None:
    words = [t.text for t in arg]
    for k, w in enumerate(words):
        if w == "DispatchKey" and k + 2 < len(words) and words[k + 1] == "::":
            return words[k + 2]
        if re.fullmatch(r"k[A-Z]\w*", w):
            return w[1:]
    return None


def _make_impl(args: list[list[Token]], block: _Block, where: Location, guards: tuple[str, ...], build: str) -> OpImpl:
    name = _strings(args[0]) if args else None
    if name is None or not _OP_NAME.fullmatch(name):
        raise SourceParseError(f"{block.var}.impl: the operator name is not a string literal")
    # An IMPL block's key applies to all its impls; in a def block the key is the second argument
    # (torch::kCUDA) or inside torch::dispatch(...); with neither the kernel is a catch-all.
    key = block.key or (_dispatch_key(args[1]) if len(args) >= 2 else None)
    return OpImpl(block.namespace, name, key or CATCH_ALL, where, guards, build)


# --- scanning a tree --------------------------------------------------------------------------------------------


def _candidate_files(root: Path) -> Iterator[Path]:
    csrc = root / "csrc"
    if not csrc.is_dir():
        return
    for p in sorted(csrc.rglob("*")):
        if p.suffix in _SOURCE_SUFFIXES and p.is_file():
            yield p


def scan_registrations(root: Path, table: BuildTable | None = None) -> Registrations:
    """Every registration file under root/csrc; files that fail to parse are skipped and reported."""
    table = table or build_table()
    files: list[RegistrationFile] = []
    skipped: list[SkippedFile] = []
    for p in _candidate_files(root):
        rel = p.relative_to(root).as_posix()
        try:
            text = p.read_text(encoding="utf-8", errors="strict")
        except UnicodeDecodeError as exc:
            skipped.append(SkippedFile(rel, f"{rel}: not UTF-8 text ({exc.reason})"))
            continue
        if "TORCH_LIBRARY" not in text:
            continue
        rule = table.lookup(rel)
        try:
            parsed = parse_registrations(text, file=rel, extension=rule.extension, build=rule.build)
        except SourceParseError as exc:
            skipped.append(SkippedFile(rel, str(exc)))
            continue
        skipped.extend(SkippedFile(rel, why) for why in parsed.problems)
        if parsed.defs or parsed.impls:
            files.append(parsed)
    files.sort(key=lambda f: (table.rank(table.lookup(f.path).build), f.path != "csrc/torch_bindings.cpp", f.path))
    return Registrations(tuple(files), tuple(skipped))
