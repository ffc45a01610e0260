"""tests/kernels/**/*.py read with libcst: each test's `pytest.mark.parametrize` grid and the ops it calls.

Grid values are evaluated statically (module-level constants, also ones imported from other test
modules) and normalized as workloads spell them: torch dtypes by name, tuples as lists. A parameter whose
values cannot be evaluated keeps the reason instead.
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import libcst as cst
from libcst.helpers import get_full_name_for_node

from kernelgenbench.extractors.vllm.registrations import SkippedFile
from kernelgenbench.extractors.vllm.static_eval import DType, Evaluator, Unevaluable, Unknown, module_env

TESTS_DIR = "tests/kernels"
_OP_CHAIN = re.compile(r"torch\.ops\.(\w+)\.(\w+)")
_CUSTOM_OPS = "vllm._custom_ops"


@dataclass(frozen=True)
class Axis:
    """One parametrize decorator: its names and its values (one tuple per case, normalized)."""

    names: tuple[str, ...]
    values: tuple[tuple[Any, ...], ...] | None  # None when not statically evaluable
    reason: str = ""  # why values is None


@dataclass(frozen=True)
class TestGrid:
    """One test function: where it is, its parametrize axes, and the ops it calls."""

    __test__ = False  # not a pytest class, whatever its name says

    file: str
    test: str
    line: int
    axes: tuple[Axis, ...]
    ops: frozenset[tuple[str, str]]  # (namespace, op) called through torch.ops
    wrappers: frozenset[str]  # vllm._custom_ops functions called

    @property
    def key(self) -> str:
        """'<file>::<test>', as curated entries name it."""
        return f"{self.file}::{self.test}"

    def axis_for(self, name: str) -> Axis | None:
        """The axis that carries parameter `name`."""
        return next((a for a in self.axes if name in a.names), None)


@dataclass(frozen=True)
class TestScan:
    """All test grids of a tree, and the test files that could not be read."""

    __test__ = False

    grids: tuple[TestGrid, ...]
    skipped: tuple[SkippedFile, ...]
    by_key: dict[str, TestGrid] = field(default_factory=dict, compare=False, repr=False)


def normalize(value: Any) -> Any:
    """A grid value as JSON: dtypes by name, tuples as lists; Unevaluable for anything else."""
    if isinstance(value, DType):
        return value.name
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise Unevaluable("non-finite float")
        return value
    if isinstance(value, list | tuple):
        return [normalize(v) for v in value]
    if isinstance(value, dict):
        return {str(k): normalize(v) for k, v in value.items()}
    raise Unevaluable(f"value of type {type(value).__name__}")


def _parametrize_axis(call: cst.Call, ev: Evaluator) -> Axis | None:
    args = [a for a in call.args if a.keyword is None]
    kw = {a.keyword.value: a for a in call.args if a.keyword is not None}
    names_arg = args[0] if args else kw.get("argnames")
    values_arg = args[1] if len(args) > 1 else kw.get("argvalues")
    if names_arg is None or values_arg is None:
        return None
    try:
        raw_names = ev.eval(names_arg.value)
    except Unevaluable:
        return None
    names = tuple(n.strip() for n in raw_names.split(",") if n.strip()) if isinstance(raw_names, str) else tuple(raw_names)
    try:
        raw = ev.eval(values_arg.value)
        values = []
        for case in raw:
            items = (case,) if len(names) == 1 else tuple(case)
            if len(items) != len(names):
                raise Unevaluable(f"a case has {len(items)} values for {len(names)} names")
            values.append(tuple(normalize(v) for v in items))
        return Axis(names, tuple(values))
    except Unevaluable as exc:
        return Axis(names, None, str(exc))
    except TypeError as exc:
        return Axis(names, None, f"not a sequence of cases ({exc})")


def _dotted(node: ast.AST) -> str:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


@dataclass
class _Calls:
    ops: set[tuple[str, str]]
    wrappers: set[str]
    names: set[str]


def _scan_calls(fn: ast.AST, aliases: set[str], imported: set[str]) -> _Calls:
    """Ops a function body reaches: torch.ops.<ns>.<op>, <alias of vllm._custom_ops>.<f>, imported wrappers.

    Walked with the stdlib ast: libcst's visitor costs ~20x more on the 5 MB of current vLLM tests.
    """
    out = _Calls(set(), set(), set())
    for node in ast.walk(fn):
        if isinstance(node, ast.Attribute):
            full = _dotted(node)
            m = _OP_CHAIN.match(full)
            if m:
                out.ops.add((m.group(1), m.group(2)))
            head, _, rest = full.partition(".")
            if head in aliases and rest and "." not in rest:
                out.wrappers.add(rest)
        elif isinstance(node, ast.Name):
            out.names.add(node.id)
            if node.id in imported:
                out.wrappers.add(node.id)
    return out


def _ast_functions(tree: ast.Module) -> Iterator[tuple[ast.FunctionDef | ast.AsyncFunctionDef, str]]:
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            yield stmt, ""
        elif isinstance(stmt, ast.ClassDef):
            for inner in stmt.body:
                if isinstance(inner, ast.FunctionDef | ast.AsyncFunctionDef):
                    yield inner, stmt.name


def _custom_ops_imports(module: cst.Module) -> tuple[set[str], set[str]]:
    aliases: set[str] = set()
    names: set[str] = set()
    for stmt in module.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if isinstance(small, cst.ImportFrom) and small.module is not None:
                mod = get_full_name_for_node(small.module)
                if isinstance(small.names, cst.ImportStar):
                    continue
                for a in small.names:
                    target = a.asname.name.value if a.asname else a.name.value
                    if mod == "vllm" and a.name.value == "_custom_ops":
                        aliases.add(str(target))
                    elif mod == _CUSTOM_OPS:
                        names.add(str(target))
            elif isinstance(small, cst.Import):
                for a in small.names:
                    if get_full_name_for_node(a.name) == _CUSTOM_OPS and a.asname:
                        aliases.add(str(a.asname.name.value))
    return aliases, names


def _functions(module: cst.Module) -> Iterator[tuple[cst.FunctionDef, str]]:
    for stmt in module.body:
        if isinstance(stmt, cst.FunctionDef):
            yield stmt, ""
        elif isinstance(stmt, cst.ClassDef):
            for inner in stmt.body.body:
                if isinstance(inner, cst.FunctionDef):
                    yield inner, stmt.name.value


class _Tree:
    """Per-tree memo of module environments, so that `from tests.kernels.x import C` evaluates x once."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.envs: dict[str, dict[str, Any]] = {}
        self.modules: dict[str, cst.Module | None] = {}

    def module(self, rel: str) -> cst.Module | None:
        if rel not in self.modules:
            path = self.root / rel
            try:
                self.modules[rel] = cst.parse_module(path.read_text(encoding="utf-8")) if path.is_file() else None
            except (cst.ParserSyntaxError, UnicodeDecodeError):
                self.modules[rel] = None
        return self.modules[rel]

    def env(self, rel: str) -> dict[str, Any]:
        if rel not in self.envs:
            self.envs[rel] = {}  # a cycle sees an empty module
            module = self.module(rel)
            self.envs[rel] = module_env(module, self.imported) if module is not None else {}
        return self.envs[rel]

    def imported(self, module_name: str, name: str) -> Any:
        if not module_name.startswith("tests."):
            return Unknown(f"imported from {module_name}")
        base = module_name.replace(".", "/")
        for rel in (f"{base}.py", f"{base}/__init__.py"):
            if (self.root / rel).is_file():
                return self.env(rel).get(name, Unknown(f"{module_name}.{name} is not a constant"))
        return Unknown(f"{module_name} is not in the source tree")


def parse_test_module(text: str, *, file: str, tree: _Tree | None = None) -> tuple[TestGrid, ...]:
    """The test grids of one test module; raises libcst.ParserSyntaxError on a syntax error."""
    module = cst.parse_module(text)
    if tree is not None:
        tree.modules[file] = module
        env = tree.env(file)
    else:
        env = module_env(module)
    ev = Evaluator(env)
    aliases, imported = _custom_ops_imports(module)
    helpers: dict[str, _Calls] = {}
    lines: dict[str, int] = {}
    for afn, cls in _ast_functions(ast.parse(text)):
        key = f"{cls}.{afn.name}" if cls else afn.name
        helpers[key] = _scan_calls(afn, aliases, imported)
        lines.setdefault(key, afn.lineno)
    funcs = list(_functions(module))
    grids: list[TestGrid] = []
    for fn, cls in funcs:
        if not fn.name.value.startswith("test"):
            continue
        axes = []
        for dec in fn.decorators:
            call = dec.decorator
            if isinstance(call, cst.Call) and (get_full_name_for_node(call.func) or "").endswith("mark.parametrize"):
                axis = _parametrize_axis(call, ev)
                if axis is not None:
                    axes.append(axis)
        axes.reverse()  # decorators apply bottom-up; pytest orders ids the same way
        own = helpers[f"{cls}.{fn.name.value}" if cls else fn.name.value]
        ops, wrappers = set(own.ops), set(own.wrappers)
        seen = {fn.name.value}
        todo = [n for n in own.names if n in helpers and n not in seen]
        while todo:  # module-level helpers the test calls, transitively
            h = todo.pop()
            seen.add(h)
            ops |= helpers[h].ops
            wrappers |= helpers[h].wrappers
            todo.extend(n for n in helpers[h].names if n in helpers and n not in seen)
        name = f"{cls}::{fn.name.value}" if cls else fn.name.value
        grids.append(TestGrid(file, name, lines.get(f"{cls}.{fn.name.value}" if cls else fn.name.value, 1), tuple(axes), frozenset(ops), frozenset(wrappers)))
    return tuple(grids)


_REACHES_OPS = re.compile(r"torch\.ops\.|_custom_ops")


def scan_tests(root: Path, always: frozenset[str] = frozenset()) -> TestScan:
    """Test grids under root/tests/kernels; a file that fails to parse is reported and skipped.

    Only files that can link a grid to an op are parsed (they parametrize, and name torch.ops or
    vllm._custom_ops), plus the files in `always` (those curated entries name): parsing every file with
    libcst would double the time for grids no record could use.
    """
    tree = _Tree(root)
    grids: list[TestGrid] = []
    skipped: list[SkippedFile] = []
    base = root / TESTS_DIR
    paths = sorted(base.rglob("*.py")) if base.is_dir() else []
    # Curated entries may name a test elsewhere under tests/ (tests/lora/...): read those files too.
    paths += sorted(root / rel for rel in always if not rel.startswith(TESTS_DIR + "/") and (root / rel).is_file())
    for p in paths:
        rel = p.relative_to(root).as_posix()
        if not p.name.startswith("test"):
            continue
        try:
            text = p.read_text(encoding="utf-8")
            if rel not in always and not ("parametrize" in text and _REACHES_OPS.search(text)):
                continue
            grids.extend(parse_test_module(text, file=rel, tree=tree))
        except cst.ParserSyntaxError as exc:
            skipped.append(SkippedFile(rel, f"{rel}:{exc.raw_line}: Python syntax error: {exc.message}"))
        except UnicodeDecodeError as exc:
            skipped.append(SkippedFile(rel, f"{rel}: not UTF-8 text ({exc.reason})"))
    return TestScan(tuple(grids), tuple(skipped), {g.key: g for g in grids})


def grid_to_dict(g: TestGrid) -> dict[str, Any]:
    """A test grid as stored under details.vllm.tests."""
    return {
        "test": g.key,
        "line": g.line,
        "axes": [
            {"names": list(a.names), "values": None if a.values is None else [list(v) for v in a.values],
             **({"unevaluated": a.reason} if a.values is None else {})}
            for a in g.axes
        ],
    }


def tests_calling(grids: Sequence[TestGrid], namespace: str, op: str, wrapper_names: frozenset[str]) -> list[TestGrid]:
    """Tests that call the op directly or through one of its wrappers."""
    return [g for g in grids if (namespace, op) in g.ops or g.wrappers & wrapper_names]
