"""Static checks of a candidate's source: forbidden imports, calls and host-compute idioms, in its syntax tree.

The lists live in kernelgenbench/data/eval_forbidden.yaml, each entry with the reason that becomes the
evidence. Aliases are followed (`import subprocess as sp; sp.run`, `from torch import ops; ops.aten.mm`,
`g = gc; g.get_objects()`), and `getattr(x, "name")` with a constant name is checked as `x.name`. A key
ending in '*' names a family (`os.spawn*`: spawnv, spawnvp, ...), and a forbidden standard-library path is
caught where another module re-exports it (`torch.sys.modules`, `torch.os.fork`).

What this can prove and what it cannot: it sees the text, not the values. A computed attribute name on an
arbitrary object (`getattr(t, "__arr" + "ay__")`), a tensor iterated directly (`for v in t`), or host
compute reached through a helper library cannot be told apart from honest code here; those are left to
the recorders in the candidate's process and to device activity on an accelerator (host↔device copies).
"""

from __future__ import annotations

import ast
import functools
import importlib
import sys
import types
from dataclasses import dataclass
from typing import Any

from kernelgenbench.datafiles import load_data
from kernelgenbench.errors import KgbError
from kernelgenbench.evaluator.dispatch_guard import computes_nothing
from kernelgenbench.evaluator.parsing import parse
from kernelgenbench.evaluator.status import PASS, Status, Verdict
from kernelgenbench.sources import Source, sources

_REPEATED = (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp,
             ast.Lambda)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)
_EXTRACTORS = ("tolist", "item")  # methods that turn tensor data into Python values
_TRANSPARENT = ("tuple", "list", "str", "repr", "ascii", "format")  # wrappers whose result holds the data
_FILLERS = ("append", "extend", "insert", "add", "update", "setdefault")  # a container method that stores a value


@dataclass(frozen=True)
class Forbidden:
    """The forbidden-API lists, each name with the reason that becomes the evidence."""

    modules: dict[str, str]
    calls: dict[str, str]
    methods: dict[str, str]
    native_libraries: tuple[str, ...]
    attributes: dict[str, str]
    numpy_allowed: frozenset[str]
    numpy_why: str
    host_loop_why: str
    reducers: tuple[str, ...]
    guarded_roots: tuple[str, ...]
    computed_name_why: str
    star_import_why: str
    strings: dict[str, str]
    ctypes_data_ptr_why: str
    prompt: tuple[str, ...]  # what these checks refuse, in the prompt's words
    allowed: frozenset[str] = frozenset()  # read-only names under a forbidden entry that compute nothing
    device_libraries: tuple[str, ...] = ()  # modules of Triton device functions under a forbidden one


def forbidden() -> Forbidden:
    """The lists from kernelgenbench/data/eval_forbidden.yaml (an unknown key there is an error), with each
    registered source's own libraries among the forbidden modules."""
    return _forbidden(sources())


@functools.cache
def _forbidden(registered: tuple[Source, ...]) -> Forbidden:
    data: dict[str, Any] = load_data("eval_forbidden.yaml", top=dict)
    out = Forbidden(
        modules={**{m: why for s in registered for m, why in s.forbidden_imports}, **data.pop("modules")},
        calls=dict(data.pop("calls")), methods=dict(data.pop("methods")),
        native_libraries=tuple(data.pop("native_libraries")), attributes=dict(data.pop("attributes")),
        numpy_allowed=frozenset(data.pop("numpy_allowed")),
        numpy_why=data.pop("numpy_why"), host_loop_why=data.pop("host_loop_why"),
        reducers=tuple(data.pop("reducers")), guarded_roots=tuple(data.pop("guarded_roots")),
        computed_name_why=data.pop("computed_name_why"), star_import_why=data.pop("star_import_why"),
        strings=dict(data.pop("strings")), ctypes_data_ptr_why=data.pop("ctypes_data_ptr_why"),
        prompt=tuple(data.pop("prompt")), allowed=frozenset(data.pop("allowed")),
        device_libraries=tuple(data.pop("device_libraries")),
    )
    if data:
        raise KgbError(f"eval_forbidden.yaml: unknown keys {sorted(data)}")
    return out


def _dotted(node: ast.AST, aliases: dict[str, str]) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(aliases.get(node.id, node.id))
    return ".".join(reversed(parts))


def _device_function(name: str, libraries: tuple[str, ...]) -> tuple[bool, str] | None:
    """For a name in a library of Triton device functions (`torch._inductor.runtime.triton_helpers.maximum`):
    whether it is the library or one of its JIT functions (True, the name), or the triton.language module it
    re-exports (False, that module's own name and the rest); None for a name outside them or anything else
    of theirs (a host function, a module they import)."""
    lib = _under(name, libraries)
    if lib is None:
        return None
    if name == lib:
        return True, name
    member, _, rest = name[len(lib) + 1:].partition(".")
    value = _device_members(lib).get(member)
    if isinstance(value, str):  # a triton.language module, by its own name
        return False, value + ("." + rest if rest else "")
    return (True, name) if value is not None and not rest else None


@functools.cache
def _device_members(lib: str) -> dict[str, Any]:
    """A device library's JIT functions (True) and the triton.language modules it holds (their names)."""
    try:
        from triton.runtime.jit import JITFunction

        module = importlib.import_module(lib)
    except Exception:  # noqa: BLE001 - absent from this torch: nothing of it is allowed
        return {}
    out: dict[str, Any] = {}
    for key, value in vars(module).items():
        if isinstance(value, JITFunction):
            out[key] = True
        elif isinstance(value, types.ModuleType) and value.__name__.startswith("triton.language"):
            out[key] = value.__name__
    return out


def _under(name: str, table: dict[str, str] | tuple[str, ...]) -> str | None:
    """The key `name` falls under: equal to it, below it after a dot, or in its family ('os.spawn*')."""
    for key in table:
        if name == key or name.startswith(key + ".") or (key.endswith("*") and name.startswith(key[:-1])):
            return key
    return None


@functools.cache
def _canonical(name: str) -> str | None:
    """Where a torch or triton name is defined, when another module re-exports it
    (`torch._higher_order_ops.cond._get_current_dispatch_mode` is torch.utils._python_dispatch's): the
    `module.qualname` of the object it names, or None."""
    parts = name.split(".")
    if parts[0] not in ("torch", "triton") or len(parts) < 2:
        return None
    for i in range(len(parts) - 1, 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:i]))
        except Exception:  # noqa: BLE001 - not a module (or one that fails to import here): try a shorter one
            continue
        for attr in parts[i:]:
            obj = getattr(obj, attr, None)
        break
    else:
        return None
    if isinstance(obj, types.ModuleType):
        return obj.__name__
    module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    return f"{module}.{qualname}" if isinstance(module, str) and isinstance(qualname, str) else None


def _exactly(name: str, key: str) -> bool:
    """`name` is the entry itself (a member of a family for a 'prefix*' key), not something below it."""
    return name == key or (key.endswith("*") and name.startswith(key[:-1]) and "." not in name[len(key) - 1:])


def _reexported(name: str, fb: Forbidden) -> tuple[str, str] | None:
    """A forbidden path reached as an attribute of another module (`torch.sys.modules`, `torch.os.fork`,
    `triton.x.subprocess.run`): (the path from the standard-library module on, its reason)."""
    parts = name.split(".")
    roots = _stdlib_roots(fb)
    for i in range(1, len(parts) - 1):
        if parts[i] in roots:
            real = sys.modules.get(parts[i]) or _stdlib_module(parts[i])
            if real is not None and not hasattr(real, parts[i + 1]):
                continue  # `x.array.shape`: no attribute of the array module, so not the module reached again
            tail = ".".join(parts[i:])
            hit = _under(tail, fb.modules) or _under(tail, fb.calls)
            if hit:
                return tail, fb.modules.get(hit) or fb.calls[hit]
    return None


@functools.cache
def _stdlib_module(name: str) -> types.ModuleType | None:
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def _stdlib_roots(fb: Forbidden) -> frozenset[str]:
    """Standard-library modules with forbidden entries: other modules re-export them (`torch.sys`, `torch.os`)."""
    return frozenset(k.split(".")[0] for k in (*fb.modules, *fb.calls)) & frozenset(sys.stdlib_module_names)


def _loose_tails(fb: Forbidden) -> dict[str, str]:
    """Last names of the standard library's forbidden paths (`sys.modules` -> `modules`): on an object no
    dotted path names (`[sys][0].modules`, `f().modules`) they are checked by name alone."""
    roots = _stdlib_roots(fb)
    tails = {k.rsplit(".", 1)[1]: why for k, why in fb.calls.items() if "." in k and k.split(".")[0] in roots}
    return {t: why for t, why in tails.items() if not t.endswith("*")}  # exact names: `attributes`


def _keyed(node: ast.AST) -> bool:
    """`box["x"]`: an entry of a container by a string key (a dict used as a box)."""
    return isinstance(node, ast.Subscript) and _const_str(node.slice) is not None


def _root_name(node: ast.AST) -> str | None:
    """The name a chain of string-keyed subscripts starts from (`box["x"]["y"]` -> box); None for others."""
    while _keyed(node):
        node = node.value  # type: ignore[attr-defined]
    return node.id if isinstance(node, ast.Name) else None


def _passes_value(parent: ast.AST | None, child: ast.AST) -> bool:
    """`parent`'s value may be `child`'s: a branch of a conditional expression, an operand of and/or."""
    return isinstance(parent, ast.BoolOp) or (isinstance(parent, ast.IfExp) and child is not parent.test)


def _namespace(node: ast.AST) -> bool:
    """`X.__dict__` or `vars(X)`: a namespace read by key."""
    if isinstance(node, ast.Attribute):
        return node.attr == "__dict__"
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "vars"


def _const_str(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


class _ConstantGetattr(ast.NodeTransformer):
    """`getattr(x, "name"[, default])`, `x.__getattribute__("name")` and `object.__getattribute__(x, "name")`
    become `x.name`, so every attribute rule sees them."""

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        f, args = node.func, node.args
        obj: ast.expr | None = None
        name: str | None = None
        if isinstance(f, ast.Name) and f.id == "getattr" and 2 <= len(args) <= 3 and not node.keywords:
            obj, name = args[0], _const_str(args[1])
        elif isinstance(f, ast.Attribute) and f.attr == "__getattribute__" and len(args) == 1:
            obj, name = f.value, _const_str(args[0])
        elif isinstance(f, ast.Attribute) and f.attr == "__getattribute__" and len(args) == 2:
            obj, name = args[0], _const_str(args[1])
        if obj is not None and name is not None:
            return ast.copy_location(ast.Attribute(value=obj, attr=name, ctx=ast.Load()), node)
        return node


class _Source:
    """One parsed candidate: its tree, parents, import aliases, and the rules run over it."""

    def __init__(self, tree: ast.Module, filename: str, fb: Forbidden) -> None:
        self.tree = _ConstantGetattr().visit(tree)
        self.filename = filename
        self.fb = fb
        self.parents = {c: p for p in ast.walk(self.tree) for c in ast.iter_child_nodes(p)}
        self.aliases: dict[str, str] = {}
        self.nodes = list(ast.walk(self.tree))
        self.tails = _loose_tails(fb)

    def at(self, node: ast.AST, text: str) -> str:
        return f"{self.filename}:{getattr(node, 'lineno', 0)}: {text}"

    def imports(self) -> str | None:
        """Forbidden imports (aliases recorded on the way), numpy's functions imported by name included."""
        fb = self.fb
        for node in self.nodes:
            if isinstance(node, ast.Import):
                for a in node.names:
                    self.aliases[(a.asname or a.name).split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
                    hit = _under(a.name, fb.modules)
                    if hit and _device_function(a.name, fb.device_libraries) == (True, a.name):
                        continue  # `import torch._inductor.runtime.triton_helpers as th`
                    if hit:
                        return self.at(node, f"import {a.name}: {fb.modules[hit]}")
                    if a.name.startswith("numpy.") and a.name.split(".")[1] not in fb.numpy_allowed:
                        return self.at(node, f"import {a.name}: {fb.numpy_why}")
            elif isinstance(node, ast.ImportFrom) and node.module:
                for a in node.names:
                    found = self._import_from(node, node.module, a)
                    if found:
                        return found
        return None

    def _import_from(self, node: ast.ImportFrom, module: str, a: ast.alias) -> str | None:
        fb = self.fb
        full = f"{module}.{a.name}"
        self.aliases[a.asname or a.name] = full
        device = _device_function(full, fb.device_libraries)
        if device is not None:  # a device library, one of its JIT functions, or a triton module it re-exports
            self.aliases[a.asname or a.name] = device[1]
            return None
        lib = _under(full, fb.device_libraries)
        if lib:
            return self.at(node, f"from {module} import {a.name}: not one of {lib}'s Triton device functions (only "
                                 "those, and the triton.language modules it re-exports, may be used)")
        if a.name == "*" and (_under(module, fb.guarded_roots) or any(c.startswith(module + ".") for c in fb.calls)):
            return self.at(node, f"from {module} import *: {fb.star_import_why}")
        hit = _under(module, fb.modules) or _under(full, fb.modules) or _under(full, fb.calls)
        if hit and full not in fb.allowed:
            return self.at(node, f"from {module} import {a.name}: {fb.modules.get(hit) or fb.calls[hit]}")
        again = None if full in fb.allowed else self._defined_in(full)
        if again:
            return self.at(node, f"from {module} import {a.name} ({again[0]}): {again[1]}")
        if full.startswith("numpy.") and full.split(".")[1] not in fb.numpy_allowed:
            return self.at(node, f"from {module} import {a.name}: {fb.numpy_why}")
        return None

    def assigned_aliases(self) -> None:
        """`g = gc` or `f = np.asarray`: a plain name bound to a module path is an alias of it."""
        roots = set(self.aliases.values()) | {"os", "sys", "builtins"}
        for _ in range(2):  # a chain of two renamings
            for node in self.nodes:
                if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                        and isinstance(node.value, (ast.Name, ast.Attribute))):
                    name = _dotted(node.value, self.aliases)
                    if name and name.split(".")[0] in {r.split(".")[0] for r in roots}:
                        self.aliases[node.targets[0].id] = name

    def names(self) -> str | None:
        """Forbidden calls and attributes: by dotted path, by attribute name anywhere, numpy's functions."""
        fb = self.fb
        for node in self.nodes:
            found = self._hidden_names(node)
            if found:
                return found
            if isinstance(node, ast.Attribute) and self._allowed_read(node):
                continue
            if isinstance(node, (ast.Attribute, ast.Name)):
                name = _dotted(node, self.aliases)
                device = _device_function(name, fb.device_libraries) if name else None
                if device is not None and device[0]:
                    continue  # a device library's JIT function: a kernel body the kernel rule judges
                lib = _under(name, fb.device_libraries) if name and device is None else None
                if lib and isinstance(node, ast.Attribute):
                    return self.at(node, f"{name}: not one of {lib}'s Triton device functions (only those, and the "
                                         "triton.language modules it re-exports, may be used)")
                name = device[1] if device is not None else name
                root = node.value if isinstance(node, ast.Attribute) else node
                while isinstance(root, ast.Attribute):
                    root = root.value
                if name and isinstance(node, ast.Attribute) and isinstance(root, ast.Name) \
                        and root.id in self.aliases and _under(name, fb.modules):
                    return self.at(node, f"{name}: {fb.modules[_under(name, fb.modules)]}")  # type: ignore[index]
                if name:
                    hit = _under(name, fb.calls)
                    if hit and (isinstance(node, ast.Attribute) or _exactly(name, hit)):
                        return self.at(node, f"{name}: {fb.calls[hit]}")
                    again = (_reexported(name, fb) or self._defined_in(name)) if isinstance(node, ast.Attribute) \
                        else None
                    if again:
                        return self.at(node, f"{name} ({again[0]}): {again[1]}")
                    if isinstance(node, ast.Attribute) and name.startswith("numpy.") \
                            and name.split(".")[1] not in fb.numpy_allowed:
                        return self.at(node, f"{name}: {fb.numpy_why}")
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                hit = next((s for s in fb.strings if s in node.value), None)
                if hit:
                    return self.at(node, f"{hit!r} in a string: {fb.strings[hit]}")
            if isinstance(node, ast.Attribute):
                if node.attr in fb.methods:
                    return self.at(node, f".{node.attr}(): {fb.methods[node.attr]}")
                if node.attr in fb.attributes:
                    return self.at(node, f".{node.attr}: {fb.attributes[node.attr]}")
                if node.attr == "__dict__" and self._guarded(node.value) \
                        and isinstance(self.parents.get(node), (ast.Subscript, ast.Attribute)):
                    return self.at(node, f"{_dotted(node, self.aliases)}: {fb.computed_name_why}")
                loose = self._loose(node)
                if loose:
                    return loose
        return None

    def _defined_in(self, name: str) -> tuple[str, str] | None:
        """A forbidden torch or triton object reached under another module's private name: (where it is defined,
        why). A public name is torch's API wherever it is defined (torch.profiler.DeviceType is torch._C's)."""
        parts = name.split(".")
        private = any(p.startswith("_") and not p.startswith("__") for p in parts)
        where = _canonical(name) if parts[0] in ("torch", "triton") and private else None
        hit = where and where != name and where not in self.fb.allowed \
            and (_under(where, self.fb.modules) or _under(where, self.fb.calls))
        return (where, self.fb.modules.get(hit) or self.fb.calls[hit]) if hit else None  # type: ignore[return-value]

    def _allowed_read(self, node: ast.Attribute) -> bool:
        """`node` is (part of) a read of an allowed name: a precision flag, a compile query, an aten op that
        computes nothing. An assignment or `del` is not a read."""
        top: ast.AST = node
        while isinstance(self.parents.get(top), ast.Attribute) and self.parents[top].value is top:
            top = self.parents[top]
        if not isinstance(top, ast.Attribute) or not isinstance(top.ctx, ast.Load):
            return False
        name = _dotted(top, self.aliases)
        if name is None:
            return False
        aten = "torch.ops.aten."
        return name in self.fb.allowed or (name.startswith(aten) and computes_nothing("aten::" + name[len(aten):]))

    def _loose(self, node: ast.Attribute) -> str | None:
        """A standard-library path's last name on an object that no dotted path names (a subscript, a call)."""
        if _dotted(node, self.aliases) is not None:
            return None
        why = self.tails.get(node.attr)
        return self.at(node, f".{node.attr} (on {ast.unparse(node.value)[:40]}): {why}") if why else None

    def _hidden_names(self, node: ast.AST) -> str | None:
        """Attribute lookups that hide their name: getattr as a value, __getattribute__ with a computed
        name, and a forbidden method fetched by subscript (`type(t).__dict__["tolist"]`)."""
        why = self.fb.computed_name_why
        parent = self.parents.get(node)
        if isinstance(node, ast.Name) and node.id in ("getattr", "setattr", "delattr") \
                and not (isinstance(parent, ast.Call) and parent.func is node):
            return self.at(node, f"{node.id} taken as a value: {why}")
        if isinstance(node, ast.Attribute) and node.attr == "__getattribute__":
            return self.at(node, f".__getattribute__ with a computed name: {why}")
        key = _const_str(node.slice) if isinstance(node, ast.Subscript) else None
        if key and key in (*self.fb.methods, *self.fb.attributes, *_EXTRACTORS) and _namespace(node.value):
            # `type(f).__dict__["__code__"]`, `vars(type(f))["__globals__"].__get__(f)` (red team 29)
            return self.at(node, f"{ast.unparse(node.value)[:40]}[{key!r}]: {why}")
        return None

    def _guarded(self, node: ast.AST) -> bool:
        name = _dotted(node, self.aliases)
        return bool(name) and bool(_under(name, self.fb.guarded_roots) or _under(name, self.fb.modules))  # type: ignore[arg-type]

    def computed_names(self) -> str | None:
        """getattr/setattr/delattr with a computed name, or vars(), on a guarded module."""
        for node in self.nodes:
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args):
                continue
            fn = node.func.id
            if fn in ("getattr", "setattr", "delattr", "hasattr") and len(node.args) >= 2 \
                    and self._guarded(node.args[0]) and not isinstance(node.args[1], ast.Constant):
                return self.at(node, f"{fn}({ast.unparse(node.args[0])}, <computed>): {self.fb.computed_name_why}")
            if fn in ("vars", "dir") and self._guarded(node.args[0]):
                return self.at(node, f"{fn}({ast.unparse(node.args[0])}): {self.fb.computed_name_why}")
            if fn in ("setattr", "delattr") and self._guarded(node.args[0]):
                return self.at(node, f"{fn}({ast.unparse(node.args[0])}, ...): patches a module the worker relies on")
        return None

    def computed_attributes(self) -> str | None:
        """getattr/setattr/delattr with a name that is neither a constant nor a name bound only to constants in
        this file (`getattr(t, "ma" + "p_")`, `getattr(torch, "from" + "buffer")`, a helper's parameter): the
        attribute is hidden, on a tensor or a module (a module's computed attribute reaches everything it
        holds, `torch.__builtins__` and the modules it imported among them). Each constant it may be is
        checked as if spelled."""
        for node in self.nodes:
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id in ("getattr", "setattr", "delattr") and len(node.args) >= 2):
                continue
            name = node.args[1]
            if isinstance(name, ast.Constant):
                continue
            values = self._constant_values(name, node) if isinstance(name, ast.Name) else None
            if values is None:
                return self.at(node, f"{node.func.id}(..., {ast.unparse(name)[:40]}): {self.fb.computed_name_why}")
            for v in values:
                spelled = self._spelled(node.args[0], v)
                if spelled:
                    return self.at(node, f"{node.func.id}(..., {name.id}={v!r}): {spelled}")
        return None

    def _spelled(self, obj: ast.expr, attr: str) -> str | None:
        """Why `obj.attr`, spelled out, would be refused (None: it would pass)."""
        fb = self.fb
        if attr in fb.attributes or attr in fb.methods or attr in _EXTRACTORS:
            return fb.attributes.get(attr) or fb.methods.get(attr) or fb.host_loop_why
        name = _dotted(ast.Attribute(value=obj, attr=attr, ctx=ast.Load()), self.aliases)
        hit = name and (_under(name, fb.calls) or _under(name, fb.modules))
        return (fb.calls.get(hit) or fb.modules.get(hit)) if hit else None

    def _literal_strings(self, node: ast.AST) -> list[ast.expr] | None:
        """The elements of a literal tuple/list, or of a module-level name bound once to one."""
        if isinstance(node, (ast.Tuple, ast.List)):
            return list(node.elts)
        if isinstance(node, ast.Name):
            stores = [n for n in self.nodes if isinstance(n, ast.Name) and n.id == node.id and not isinstance(n.ctx, ast.Load)]
            rebinders = any(isinstance(n, (ast.Global, ast.Nonlocal)) and node.id in n.names for n in self.nodes) or any(
                isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("globals", "vars", "locals")
                for n in self.nodes)
            bind = self.parents.get(stores[0]) if len(stores) == 1 else None
            if not rebinders and isinstance(bind, ast.Assign) and bind.targets == [stores[0]] \
                    and self.parents.get(bind) is self.tree and isinstance(bind.value, ast.Tuple):
                return list(bind.value.elts)
        return None

    def _constant_values(self, name: ast.Name, at: ast.AST) -> list[str] | None:
        """The strings a name is ever bound to in the file, when every binding is a string constant (an
        assignment, or a loop over a literal tuple or list of them, or over a module-level tuple bound once);
        None otherwise: a parameter of a function around `at`, a computation, or a binding not understood
        (unpacking, `with`, `except`, an import, `global`)."""
        if self._bound_otherwise(name.id) or self._parameter_around(name.id, at):
            return None
        values: list[str] = []
        for node in self.nodes:
            bound = self._binding(node, name.id)
            strings = [_const_str(b) for b in bound or ()]
            if any(v is None for v in strings):
                return None
            values += strings  # type: ignore[arg-type]
        return values

    def _binding(self, node: ast.AST, name: str) -> list[ast.expr] | None:
        """What `node` binds `name` to, if it is a plain binding of it (`name = ...`, `for name in ...`)."""
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return [node.value]
        if isinstance(node, (ast.For, ast.comprehension)) and isinstance(node.target, ast.Name) and node.target.id == name:
            return self._literal_strings(node.iter) or [node.iter]
        return None

    def _bound_otherwise(self, name: str) -> bool:
        """`name` is stored other than by a plain binding, or bound by an import, `except`, `global`."""
        stores = sum(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in self.nodes)
        plain = sum(self._binding(n, name) is not None for n in self.nodes)
        other = any((isinstance(n, (ast.Global, ast.Nonlocal)) and name in n.names)
                    or (isinstance(n, ast.alias) and name in (n.name, n.asname))
                    or (isinstance(n, (ast.ExceptHandler, ast.FunctionDef, ast.ClassDef)) and n.name == name)
                    for n in self.nodes)
        return stores > plain or other

    def _parameter_around(self, name: str, at: ast.AST) -> bool:
        """`name` is a parameter of a function that encloses `at` (another function's parameter is another name)."""
        around, parent = set(), self.parents.get(at)
        while parent is not None:
            around.add(id(parent))
            parent = self.parents.get(parent)
        return any(isinstance(n, ast.arg) and n.arg == name and id(self.parents.get(self.parents.get(n))) in around
                   for n in self.nodes)

    def ctypes_memory(self) -> str | None:
        """ctypes in a file that takes a tensor's address, or ctypes reaching a native library by name."""
        if not any(v.split(".")[0] == "ctypes" for v in self.aliases.values()):
            return None
        for node in self.nodes:
            if isinstance(node, ast.Attribute) and node.attr == "data_ptr":
                return self.at(node, f".data_ptr with ctypes: {self.fb.ctypes_data_ptr_why}")
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                low = node.value.lower()
                lib = next((lib for lib in self.fb.native_libraries if lib.lower() in low), None)
                if lib:
                    return self.at(node, f"ctypes with {node.value!r}: native library {lib} instead of a Triton kernel")
        return None

    # -- host loops over tensor elements -------------------------------------------------------------

    def _repeated(self, node: ast.AST, short_ok: bool = False) -> bool:
        """Inside a loop body or test, a comprehension or a lambda, within the node's own function (with
        `short_ok`: one loop over a short literal, and no other, does not count)."""
        child, parent = node, self.parents.get(node)
        loops = 0
        while parent is not None and not isinstance(parent, _SCOPES):
            repeats = False
            short = False
            if isinstance(parent, (ast.For, ast.AsyncFor)) and child is not parent.iter and child is not parent.target:
                repeats, short = True, self._short_literal(parent.iter)
            elif isinstance(parent, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
                repeats = True
                short = len(parent.generators) == 1 and not parent.generators[0].ifs \
                    and self._short_literal(parent.generators[0].iter) and child is not parent.generators[0]
            elif isinstance(parent, _REPEATED) and not isinstance(parent, (ast.For, ast.AsyncFor)):
                repeats = True
            if repeats:
                loops += 1
                if not (short_ok and short and loops == 1):
                    return True
            child, parent = parent, self.parents.get(parent)
        return False

    def _short_literal(self, node: ast.AST) -> bool:
        """A literal tuple/list of at most 4 elements, or zip()/enumerate() of such literals."""
        if isinstance(node, (ast.Tuple, ast.List)):
            return len(node.elts) <= 4 and not any(isinstance(e, ast.Starred) for e in node.elts)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("zip", "enumerate") \
                and not node.keywords:
            return bool(node.args) and all(self._short_literal(a) for a in node.args)
        return False

    def _consumer(self, node: ast.AST) -> str | None:
        """What iterates or reduces the value of `node` (through tuple()/list() or a walrus), if anything does."""
        child, parent = node, self.parents.get(node)
        while isinstance(parent, ast.NamedExpr) or _passes_value(parent, child) or (
                isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id in _TRANSPARENT):
            child, parent = parent, self.parents.get(parent)
        if isinstance(parent, (ast.For, ast.AsyncFor, ast.comprehension)) and child is parent.iter:
            return "iterated"
        if isinstance(parent, ast.Starred) or (isinstance(parent, ast.Call) and child in parent.args
                                               and _under(_dotted(parent.func, self.aliases) or "", self.fb.reducers)):
            return f"reduced by {ast.unparse(parent.func) if isinstance(parent, ast.Call) else '*'}"
        return None

    def _item_only_helpers(self) -> set[str]:
        """File-local functions that call .item() but never .tolist() and no other helper."""
        out = set()
        for d in self.nodes:
            if isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef)):
                calls = [n for n in ast.walk(d) if isinstance(n, ast.Call)]
                if not any(isinstance(n.func, ast.Attribute) and n.func.attr == "tolist" for n in calls) and not any(
                        isinstance(n.func, ast.Name) and n.func.id in self._extracting_functions() for n in calls):
                    out.add(d.name)
        return out

    def _extracting_functions(self) -> set[str]:
        """File-local functions that call .tolist()/.item(), directly or through one another."""
        defs = [n for n in self.nodes if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        found: set[str] = set()
        for _ in range(len(defs) + 1):
            before = len(found)
            for d in defs:
                for n in ast.walk(d):
                    if isinstance(n, ast.Call) and ((isinstance(n.func, ast.Attribute) and n.func.attr in _EXTRACTORS)
                                                    or (isinstance(n.func, ast.Name) and n.func.id in found)):
                        found.add(d.name)
            if len(found) == before:
                break
        return found

    def host_loops(self) -> str | None:
        """.tolist()/.item() repeated, .tolist() iterated or reduced, or a name bound to it used so."""
        why = self.fb.host_loop_why
        helpers = self._extracting_functions()
        tainted: dict[tuple[int, str], ast.AST] = {}  # (scope id, name) -> the .tolist() call it holds
        for node in self.nodes:
            if isinstance(node, ast.Attribute) and node.attr in _EXTRACTORS and not (
                    isinstance(self.parents.get(node), ast.Call) and self.parents[node].func is node):  # type: ignore[attr-defined]
                return self.at(node, f".{node.attr} taken as a value (hides where it is called): {why}")
            if not isinstance(node, ast.Call):
                continue
            method = node.func.attr if isinstance(node.func, ast.Attribute) else None
            helper = node.func.id if isinstance(node.func, ast.Name) and node.func.id in helpers else None
            short_ok = method == "item" or (helper is not None and helper in self._item_only_helpers())
            if (method in _EXTRACTORS or helper) and self._repeated(node, short_ok):
                what = f".{method}()" if method else f"{helper}() (calls .tolist()/.item())"
                return self.at(node, f"{what} in a loop: {why}")
            if method == "tolist":
                use = self._consumer(node)
                if use:
                    return self.at(node, f".tolist() {use}: {why}")
                target = self._bound_name(node)
                if target:
                    tainted[(id(self._scope(node)), target)] = node
        self._copies(tainted)
        return self._tainted_uses(tainted, why)

    def _copies(self, tainted: dict[tuple[int, str], ast.AST]) -> None:
        """`b = a`, `b = list(a)`: b holds what a held; `helper(a)`: the file-local helper's parameter holds it
        (two rounds: a chain of two copies or calls)."""
        defs = {n.name: n for n in self.nodes if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        for _ in range(2):
            for node in self.nodes:
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) \
                        and (id(self._scope(node)), node.id) in tainted:
                    target = self._bound_name(node)
                    if target:
                        tainted.setdefault((id(self._scope(node)), target), node)
                    param = self._parameter(node, defs)
                    if param:
                        tainted.setdefault(param, node)

    def _parameter(self, node: ast.AST, defs: dict[str, ast.AST]) -> tuple[int, str] | None:
        """(scope id, name) of the file-local function parameter `node` is passed to, if it is an argument."""
        call = self.parents.get(node)
        if isinstance(call, ast.keyword):
            call, name = self.parents.get(call), call.arg
        else:
            name = None
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in defs):
            return None
        fn = defs[call.func.id]
        params = [a.arg for a in fn.args.posonlyargs + fn.args.args]  # type: ignore[attr-defined]
        if name is None and node in call.args and call.args.index(node) < len(params):
            name = params[call.args.index(node)]
        return (id(fn), name) if name else None

    def _bound_name(self, node: ast.AST) -> str | None:
        parent = self.parents.get(node)
        while isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id in _TRANSPARENT:
            parent = self.parents.get(parent)
        if isinstance(parent, ast.Tuple):  # `a, b = x.tolist(), y.tolist()`: element by element
            outer = self.parents.get(parent)
            if isinstance(outer, ast.Assign) and len(outer.targets) == 1 and isinstance(outer.targets[0], ast.Tuple) \
                    and len(outer.targets[0].elts) == len(parent.elts):
                target = outer.targets[0].elts[parent.elts.index(node)]
                return target.id if isinstance(target, ast.Name) else None
        if _passes_value(parent, node):  # `v = x.tolist() if x.dim() else [x.item()]`, `a or x.tolist()`
            return self._bound_name(parent)  # type: ignore[arg-type]
        if isinstance(parent, ast.NamedExpr):  # `(v := x.tolist())`
            return parent.target.id
        if isinstance(parent, ast.Subscript) and parent.value is node and isinstance(parent.slice, ast.Slice):
            return self._bound_name(parent)  # `v = x.tolist()[:]`: a slice is the list again (red team 31)
        if isinstance(parent, ast.Attribute) and parent.value is node and parent.attr == "copy" \
                and isinstance(call := self.parents.get(parent), ast.Call) and call.func is parent:
            return self._bound_name(call)  # `v = x.tolist().copy()`
        if isinstance(parent, (ast.Dict, ast.List, ast.Set, ast.Tuple)):  # `box = {"x": x.tolist()}`: box holds it
            return self._bound_name(parent)
        if isinstance(parent, ast.keyword) and isinstance(call := self.parents.get(parent), ast.Call):
            return self._bound_name(call)  # `box = dict(x=x.tolist())`, `ns = Namespace(v=...)`: the result holds it
        if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id == "dict":
            return self._bound_name(parent)  # `box = dict(pairs_from(x.tolist()))`
        if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Attribute) and parent.func.attr in _FILLERS \
                and node in parent.args:  # `acc.append(x.tolist())`
            return parent.func.value.id if isinstance(parent.func.value, ast.Name) else None
        if isinstance(parent, (ast.Assign, ast.AnnAssign)):
            targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
            if len(targets) == 1:  # `v = ...`, `box["x"] = ...`: the name at the root holds it
                return _root_name(targets[0])
        return None

    def _scope(self, node: ast.AST) -> ast.AST:
        parent = self.parents.get(node)
        while parent is not None and not isinstance(parent, _SCOPES):
            parent = self.parents.get(parent)
        return parent or self.tree

    def _tainted_uses(self, tainted: dict[tuple[int, str], ast.AST], why: str) -> str | None:
        if not tainted:
            return None
        for node in self.nodes:
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) \
                    and (id(self._scope(node)), node.id) in tainted:
                held = node  # `box["x"]`: what the container holds is used
                while _keyed(self.parents.get(held)) and self.parents[held].value is held:  # type: ignore[attr-defined]
                    held = self.parents[held]
                use = self._consumer(held) or ("used in a loop" if self._repeated(node) else None)
                if use:
                    return self.at(node, f"{node.id} (from .tolist()) {use}: {why}")
        return None


def check_source(code: str, filename: str = "<candidate>") -> Verdict:
    """PASS, or FORBIDDEN_API with the first offending line; a syntax error is COMPILE_ERROR."""
    try:
        tree = parse(code, filename=filename)
    except SyntaxError as exc:
        return Verdict(Status.COMPILE_ERROR, f"{filename}:{exc.lineno}: SyntaxError: {exc.msg}")
    src = _Source(tree, filename, forbidden())
    found = src.imports()
    if found is None:
        src.assigned_aliases()
        found = src.names() or src.computed_names() or src.computed_attributes() or src.ctypes_memory() \
            or src.host_loops()
    return Verdict(Status.FORBIDDEN_API, found) if found else PASS
