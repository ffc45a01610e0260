"""The build step that makes a record's reference text self-contained: exactly what its entry points need.

Reference modules import shared helpers from other `kernelgenbench.reference_impls` modules (one copy in the
source tree). A record cannot import kernelgenbench, so `build_text` writes one text holding the imports and
the top-level definitions (functions, classes, assignments) reachable from the record's entry points (its
reference function and input generator), following names through the module and through the reference
modules it imports from, transitively. Reachability reads each definition's scopes with `symtable`, so a
local variable that shares a global's name does not pull that global in.

The text keeps each definition as written (with the comment lines right above it); modules come after the
modules they import from, definitions in source order within a module, so it is the same on every build.
"""

from __future__ import annotations

import ast
import builtins
import functools
import symtable
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources

from kernelgenbench.errors import SourceParseError
from kernelgenbench.locations import Location

PACKAGE = "kernelgenbench.reference_impls"
_BUILTINS = frozenset(dir(builtins))
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


@dataclass(frozen=True)
class _Stmt:
    """One top-level definition: its text, the names it binds and the global names it reads."""

    line: int
    text: str
    binds: frozenset[str]
    reads: frozenset[str]
    is_def: bool


@dataclass(frozen=True)
class _Module:
    """A parsed reference module: its definitions, and where each imported name comes from."""

    name: str
    file: str
    docstring: str | None
    future: bool
    stmts: tuple[_Stmt, ...]
    internal: Mapping[str, tuple[str, str, int]]  # local name -> (reference module, its name there, line)
    external: Mapping[str, tuple[str, str]]  # local name -> (import group key, the alias as written)

    @functools.cached_property
    def defines(self) -> dict[str, list[int]]:
        """Indices of the statements binding each top-level name."""
        out: dict[str, list[int]] = {}
        for i, st in enumerate(self.stmts):
            for name in st.binds:
                out.setdefault(name, []).append(i)
        return out


def _global_reads(text: str, file: str) -> frozenset[str]:
    """Names a top-level statement reads from the module's globals (not its own locals or parameters)."""
    top = symtable.symtable(text, file, "exec")
    out: set[str] = set()
    tables = [top]
    while tables:
        t = tables.pop()
        out.update(s.get_name() for s in t.get_symbols()
                   if s.is_referenced() and (t is top or s.is_global()))
        tables.extend(t.get_children())
    return frozenset(out)


def _binds(node: ast.stmt) -> frozenset[str]:
    if isinstance(node, _DEFS):
        return frozenset({node.name})
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]  # type: ignore[attr-defined]
    return frozenset(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))


def _stmt(lines: list[str], node: ast.stmt, file: str) -> _Stmt:
    """A definition's text from its first decorator, with the comment lines directly above it."""
    first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))]) - 1
    start = first
    while start > 0 and lines[start - 1].startswith("#"):
        start -= 1
    reads = _global_reads("".join(lines[first:node.end_lineno]), file)
    text = "".join(lines[start:node.end_lineno]).rstrip("\n")
    return _Stmt(node.lineno, text, _binds(node), reads, isinstance(node, _DEFS))


def _imports(node: ast.Import | ast.ImportFrom, root: str, internal: dict[str, tuple[str, str, int]],
             external: dict[str, tuple[str, str]], file: str) -> None:
    """Record what an import statement binds: reference modules' names are followed, others are kept."""
    if isinstance(node, ast.ImportFrom):
        if node.level:
            raise SourceParseError("use absolute imports in reference modules, so the build can follow them",
                                   at=Location(file, node.lineno))
        module = node.module or ""
        for a in node.names:
            local = a.asname or a.name
            if module == root or module.startswith(f"{root}."):
                internal[local] = (module, a.name, node.lineno)
            else:
                external[local] = (f"from {module}", a.name + (f" as {a.asname}" if a.asname else ""))
        return
    for a in node.names:
        if a.name == root or a.name.startswith(f"{root}."):
            raise SourceParseError(f"import {a.name}: import names from a reference module instead "
                                   "(`from ... import f`), so the build can follow them", at=Location(file, node.lineno))
        external[a.asname or a.name.split(".")[0]] = (f"import {a.name}" + (f" as {a.asname}" if a.asname else ""), "")


def _read(module: str) -> tuple[str, str]:
    """The text of a reference module (a package's __init__.py), read as package data, and its file name."""
    package, _, leaf = module.rpartition(".")
    try:
        base = resources.files(package)
        rel = f"{leaf}/__init__.py" if (base / leaf).is_dir() else f"{leaf}.py"
        return (base / rel).read_text(encoding="utf-8"), f"{package.replace('.', '/')}/{rel}"
    except (ModuleNotFoundError, FileNotFoundError):
        raise SourceParseError(f"module {module} not found") from None


@functools.cache
def _module(module: str, root: str) -> _Module:
    """A reference module parsed into definitions and imports (cached: modules do not change in a run)."""
    text, file = _read(module)
    tree = ast.parse(text, file)
    lines = text.splitlines(keepends=True)
    stmts: list[_Stmt] = []
    internal: dict[str, tuple[str, str, int]] = {}
    external: dict[str, tuple[str, str]] = {}
    future = False
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            future = True
        elif isinstance(node, ast.Import | ast.ImportFrom):
            _imports(node, root, internal, external, file)
        elif isinstance(node, (*_DEFS, ast.Assign, ast.AnnAssign)):
            stmts.append(_stmt(lines, node, file))
        elif not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)):
            raise SourceParseError("only imports, definitions and assignments may stand at the top level "
                                   "of a reference module", at=Location(file, node.lineno))
    return _Module(module, file, ast.get_docstring(tree, clean=False), future, tuple(stmts), internal, external)


@dataclass
class _Closure:
    """What the walk from the entry points has collected so far."""

    root: str  # the package whose modules are followed (their definitions written in)
    keep: dict[str, set[int]]  # module -> indices of kept statements
    owner: dict[str, str]  # emitted name -> the module whose definition it is
    imports: dict[str, list[str]]  # import group key -> aliases (empty for plain `import x`)
    imported: dict[str, tuple[str, str]]  # emitted name -> the import (group, alias) that binds it
    future: bool = False


def _need(c: _Closure, module: str, name: str, at: Location | None) -> list[tuple[str, str, Location]]:
    """Keep what defines `name` in `module`; the (module, name, where) pairs that definition reads."""
    m = _module(module, c.root)
    c.keep.setdefault(module, set())
    c.future |= m.future
    indices = m.defines.get(name)
    if indices:
        if c.owner.setdefault(name, module) != module:
            raise SourceParseError(f"{name} is defined in both {c.owner[name]} and {module}; a record's text "
                                   "has one namespace, so rename one", at=at)
        c.keep[module].update(indices)
        return [(module, r, Location(m.file, m.stmts[i].line)) for i in indices for r in sorted(m.stmts[i].reads)]
    if name in m.internal:
        source, orig, line = m.internal[name]
        if orig != name:
            raise SourceParseError(f"{name}: import reference helpers without `as` (the record's text "
                                   "keeps their own names)", at=Location(m.file, line))
        return [(source, name, Location(m.file, line))]
    if name in m.external:
        group, alias = m.external[name]
        if c.imported.setdefault(name, (group, alias)) != (group, alias):
            raise SourceParseError(f"{name} is imported as both `{' import '.join(c.imported[name])}` and "
                                   f"`{group} import {alias}`; a record's text has one namespace", at=at)
        aliases = c.imports.setdefault(group, [])
        if alias and alias not in aliases:
            aliases.append(alias)
        return []
    if name in _BUILTINS:
        return []
    raise SourceParseError(f"{module} neither defines nor imports {name!r}", at=at)


def _collect(entries: Iterable[tuple[str, str]], root: str) -> _Closure:
    c = _Closure(root, {}, {}, {}, {})
    wanted = [(module, name, None) for module, name in entries]
    seen: set[tuple[str, str]] = set()
    while wanted:
        module, name, at = wanted.pop(0)
        if (module, name) not in seen:
            seen.add((module, name))
            wanted.extend(_need(c, module, name, at))
    return c


def _module_order(c: _Closure, first: Sequence[str]) -> list[str]:
    """Kept modules, each after the reference modules it imports from (source order breaks ties)."""
    order: list[str] = []
    visiting: set[str] = set()

    def visit(module: str) -> None:
        if module in order or module in visiting:
            return
        visiting.add(module)
        deps = sorted(set(_module(module, c.root).internal.values()), key=lambda d: d[2])
        for dep, _, _ in deps:
            if dep in c.keep:
                visit(dep)
        order.append(module)

    for module in [*first, *sorted(c.keep)]:
        visit(module)
    return order


def _join(parts: list[tuple[str, bool]]) -> str:
    """Parts with two blank lines where either side is spaced (a definition, a module's first statement,
    a commented statement) and one newline between other statements."""
    out = ""
    for i, (text, spaced) in enumerate(parts):
        if i:
            out += "\n\n\n" if spaced or parts[i - 1][1] else "\n"
        out += text
    return out + "\n"


def build_text(entries: Sequence[tuple[str, str]], *, root: str = PACKAGE) -> str:
    """One self-contained text defining each (module, name) entry point and everything it reaches through
    modules under `root`; the first entry's module docstring heads it."""
    c = _collect(entries, root)
    head = _module(entries[0][0], root).docstring
    imports = [f"{g} import {', '.join(a)}" if a else g for g, a in c.imports.items()]
    block = "\n\n".join(b for b in (f'"""{head}"""' if head else "",
                                     "from __future__ import annotations" if c.future else "",
                                     "\n".join(imports)) if b)
    parts = [(block, True)] if block else []
    for m in _module_order(c, [m for m, _ in entries]):
        stmts = [_module(m, root).stmts[i] for i in sorted(c.keep[m])]
        parts += [(st.text, st.is_def or k == 0 or st.text.startswith("#")) for k, st in enumerate(stmts)]
    return _join(parts)


def top_level_names(module: str, *, root: str = PACKAGE) -> frozenset[str]:
    """The names a reference module offers: those it defines and those it imports from reference modules."""
    m = _module(module, root)
    return frozenset(m.defines) | frozenset(m.internal)


def module_text(module: str, *, root: str = PACKAGE) -> str:
    """A whole reference module made self-contained: every name it defines or re-exports, with what they need."""
    m = _module(module, root)
    names = [n for st in m.stmts for n in sorted(st.binds)] + sorted(m.internal)
    return build_text([(module, n) for n in dict.fromkeys(names)], root=root)
