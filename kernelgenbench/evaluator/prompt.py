"""Render what a kernel writer (a person or an LLM) needs to implement one task, as text or JSON.

Everything comes from the task record: the entry point and a Python signature made from its params,
the semantics in words, the reference source, the dtypes and shapes it is tested on, the tolerance,
what is forbidden, the platform and the calling convention of its source.

It lives with the evaluator because the rules it states are the evaluator's: the "Forbidden" list is the
check registry's prompt lines (kernelgenbench/evaluator/checks/) and the static checks' (data/eval_forbidden.yaml),
so a new check reaches the prompt from its own module. The data layer (kernelgenbench/dataset/) never imports it.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from functools import cache
from typing import Any

from kernelgenbench import sources
from kernelgenbench.dataset.record import Param, Return, Task
from kernelgenbench.evaluator.checks import REGISTRY
from kernelgenbench.evaluator.static_checks import forbidden as static_forbidden

_HINTS = {
    "tensor": "torch.Tensor",
    "tensor_list": "list[torch.Tensor]",
    "optional_tensor": "torch.Tensor | None",
    "int": "int",
    "float": "float",
    "bool": "bool",
    "str": "str",
    "scalar": "int | float | bool",
    "int_list": "list[int]",
    "float_list": "list[float]",
    "bool_list": "list[bool]",
    "scalar_type": "torch.dtype",
    "layout": "torch.layout",
    "device": "torch.device",
    "memory_format": "torch.memory_format",
    "generator": "torch.Generator",
    "enum": "str",
    "complex": "complex",
    "other": "object",
}

_DTYPE_NAME = re.compile(r"^(bool|u?int\d+|bfloat16|float\d+(_e\d+m\d+(fnuz|fn|fnu)?)?|complex\d+)$")

# C++ enumerators that native_functions.yaml uses as defaults, and their Python values.
_ENUM_DEFAULTS = {"Mean": "1", "Sum": "2"}

_SEMANTICS = {
    "deterministic": "Every output, and every argument the op writes, is compared elementwise with the reference "
                     "within the tolerance below; shape and dtype must match exactly; integer and bool outputs are "
                     "compared exactly unless the tolerance names their dtype. Non-finite values where the reference has none fail.",
    "random": "The op draws random values: outputs are checked by shape, dtype and distribution, not elementwise "
              "(use the given generator or the global one as the reference does).",
    "uninitialized": "The output's values are unspecified: only its metadata (shape, dtype, strides, device) is checked.",
    "view": "The output must be a view that aliases the input's storage, and its values must match the reference.",
}

@cache
def forbidden_common() -> tuple[str, ...]:
    """The lines every source shares: each registered check's (in judging order, each line once), then the
    static checks'."""
    return tuple(dict.fromkeys([*(c.prompt for c in REGISTRY if c.prompt), *static_forbidden().prompt]))


@dataclass(frozen=True)
class WorkloadView:
    """One workload as a kernel writer reads it."""

    id: str
    purpose: str
    description: str
    args: Mapping[str, str]
    generator_params: Mapping[str, Any] | None


@dataclass(frozen=True)
class Prompt:
    """The prompt of one task: every part separately (for JSON) and `text` (for reading)."""

    task_id: str
    source: str
    entry_point: str
    python_signature: str
    upstream_signature: str | None
    description: str
    semantics: str
    semantics_text: str
    writes: tuple[str, ...]
    calling_convention: str
    params: tuple[Mapping[str, Any], ...]
    reference_function: str | None
    reference_code: str | None
    inputs_code: str | None
    workloads: tuple[WorkloadView, ...]
    dtypes: tuple[str, ...]
    tolerance: Mapping[str, Mapping[str, float]]
    forbidden: tuple[str, ...]
    platforms: tuple[str, ...]
    platform_text: str

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict of every part, plus the rendered `text`."""
        return {**asdict(self), "text": self.text}

    @property
    def text(self) -> str:
        """The prompt as Markdown text."""
        return _text(self)


def _default(param: Param) -> str | None:
    text = param.default
    if text is None:
        return None
    if text in _ENUM_DEFAULTS and param.kind == "int":
        return _ENUM_DEFAULTS[text]
    if param.kind in ("memory_format", "layout", "scalar_type") and text.isidentifier() and text != "None":
        return f"torch.{text}"
    if text in ("inf", "-inf", "nan"):
        return f"float({text!r})"
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return repr(text)
    if isinstance(value, list):
        return repr(tuple(value))  # an immutable default: the value is the same, and it is safe to share
    return repr(value)


def _enum_hint(param: Param, task: Task | None) -> str:
    # Sources pass enums differently (cuBLAS by letter or enumerator name, others by value): the workloads say.
    for w in task.workloads if task else ():
        arg = (w.args or {}).get(param.name)
        value = arg.get("value") if isinstance(arg, Mapping) else (w.params or {}).get(param.name)
        if isinstance(value, (str, int)) and not isinstance(value, bool):
            return type(value).__name__
    return "str"


def _hint(param: Param, task: Task | None = None) -> str:
    hint = _enum_hint(param, task) if param.kind == "enum" else _HINTS[param.kind]
    if param.kind == "tensor_list" and "?" in param.type.split("[")[0]:
        hint = "list[torch.Tensor | None]"
    if param.optional and "None" not in hint:
        hint += " | None"
    return hint


def _return_hint(returns: tuple[Return, ...]) -> str:
    hints = [_HINTS.get(r.kind, "object") for r in returns]
    if not hints:
        return "None"
    return hints[0] if len(hints) == 1 else f"tuple[{', '.join(hints)}]"


def python_signature(task: Task) -> str:
    """`def entry(...) -> ...:` with type hints from param kinds, defaults, and `*` before keyword-only params."""
    parts: list[str] = []
    star = False
    for p in task.params:
        if p.keyword_only and not star:
            parts.append("*")
            star = True
        default = _default(p)
        parts.append(f"{p.name}: {_hint(p, task)}" + (f" = {default}" if default is not None else ""))
    return f"def {task.entry_point}({', '.join(parts)}) -> {_return_hint(task.returns)}:"


def _tensor_text(spec: Mapping[str, Any]) -> str:
    text = f"{spec['dtype']}{list(spec['shape'])}"
    if spec.get("strides") is not None:
        text += f" strides={list(spec['strides'])}"
    if spec.get("offset"):
        text += f" offset={spec['offset']}"
    init = dict(spec.get("init", {}))
    dist = init.pop("dist", "normal")
    return text + f" ~ {dist}" + (f"({', '.join(f'{k}={v}' for k, v in sorted(init.items()))})" if init else "")


def _arg_text(arg: Mapping[str, Any]) -> str:
    kind = arg.get("kind")
    if kind == "tensor":
        return _tensor_text(arg)
    if kind == "tensor_list":
        return "[" + ", ".join("None" if t is None else _tensor_text(t) for t in arg["items"]) + "]"
    if kind == "float" and isinstance(arg["value"], str):
        return f"float({arg['value']!r})"
    if kind in ("value", "float"):
        return repr(arg["value"])
    if kind == "device":
        return "the evaluation device"
    if kind in ("dtype", "layout", "memory_format"):
        return "None" if arg["value"] is None else f"torch.{arg['value']}"
    if kind == "complex":
        return repr(complex(arg["real"], arg["imag"]))
    return json.dumps(arg, sort_keys=True)


def _dtypes(task: Task) -> tuple[str, ...]:
    found: set[str] = set()
    for w in task.workloads:
        for arg in (w.args or {}).values():
            specs = arg.get("items", []) if arg.get("kind") == "tensor_list" else [arg]
            found.update(s["dtype"] for s in specs if isinstance(s, Mapping) and s.get("kind") == "tensor")
        for key, value in (w.params or {}).items():
            # generator params name dtypes under keys like dtype / cache_dtype; other values (kv_cache_dtype
            # 'auto', 'fp8') are format switches, not dtypes
            if key.endswith("dtype") and isinstance(value, str) and _DTYPE_NAME.match(value):
                found.add(value)
    return tuple(sorted(found))


def _platform_text(platforms: tuple[str, ...]) -> str:
    if "any" in platforms:
        return ("Any Triton backend (NVIDIA, AMD, Intel, ...): use no vendor-specific intrinsics. Correctness is also "
                "checked on CPU with TRITON_INTERPRET=1.")
    return f"Triton on {', '.join(platforms)} devices."


def _writes(task: Task) -> tuple[str, ...]:
    return tuple(f"{p.name} ({p.direction})" for p in task.params if p.mutable)


def _bound_names(node: ast.stmt) -> set[str]:
    """The module-level names a top-level statement binds."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in node.names}
    targets: list[ast.expr] = []
    if isinstance(node, ast.Assign):
        targets = list(node.targets)
    elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
        targets = [node.target]
    return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}


def _used_names(node: ast.AST) -> set[str]:
    """Every name a statement reads (its body, decorators, defaults and annotations included)."""
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def prune_module(code: str, function: str) -> str:
    """The module text cut to what `function` uses, transitively: its def, the defs, constants and imports it
    reaches, and `from __future__` imports; the module docstring and unrelated ops go. The record is not
    changed: this is only what a prompt shows. Unparsable text, or a function not defined at the top level,
    comes back whole."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return code
    stmts = tree.body
    binds = [_bound_names(st) for st in stmts]
    if not any(function in b for b in binds):
        return code
    keep: set[int] = set()
    wanted, seen = [function], set()
    while wanted:
        name = wanted.pop()
        if name in seen:
            continue
        seen.add(name)
        for i, st in enumerate(stmts):
            if name in binds[i] and i not in keep:
                keep.add(i)
                wanted.extend(_used_names(st) - seen)
    lines = code.splitlines(keepends=True)
    parts = []
    for i, st in enumerate(stmts):
        future = isinstance(st, ast.ImportFrom) and st.module == "__future__"
        if i in keep or future:
            start = min([st.lineno, *(d.lineno for d in getattr(st, "decorator_list", []))]) - 1
            parts.append("".join(lines[start:st.end_lineno]).rstrip("\n"))
    # Blank lines as the module's style has them: two around defs, one between other statements.
    out = parts[0] if parts else ""
    defs = ("def ", "class ", "@", "async def ")
    for prev, part in zip(parts, parts[1:], strict=False):
        if part.startswith(defs) or prev.startswith(defs):
            gap = "\n\n\n"
        else:
            gap = "\n\n" if prev.startswith("from __future__") else "\n"
        out += gap + part
    return out + "\n"


def build_prompt(task: Task) -> Prompt:
    """The prompt of one task."""
    op = f"{task.name}.{task.overload or 'default'}"
    source = sources.get(task.source)
    return Prompt(
        task_id=task.id,
        source=task.source,
        entry_point=task.entry_point,
        python_signature=python_signature(task),
        upstream_signature=task.signature,
        description=task.description,
        semantics=task.semantics,
        semantics_text=_SEMANTICS[task.semantics],
        writes=_writes(task),
        calling_convention=source.calling_convention.format(entry=task.entry_point, op=op),
        params=tuple(
            {"name": p.name, "type": p.type, "kind": p.kind, "hint": _hint(p, task), "default": p.default,
             "keyword_only": p.keyword_only, "mutable": p.mutable, "direction": p.direction, "dtype": p.dtype,
             "description": p.description}
            for p in task.params
        ),
        reference_function=task.reference.function if task.reference else None,
        reference_code=prune_module(task.reference.code, task.reference.function) if task.reference else None,
        inputs_code=prune_module(task.inputs.code, task.inputs.function) if task.inputs else None,
        workloads=tuple(
            WorkloadView(w.id, w.purpose, w.description,
                         {p.name: _arg_text(w.args[p.name]) for p in task.params if p.name in (w.args or {})},
                         dict(w.params) if w.params is not None else None)
            for w in task.workloads
        ),
        dtypes=_dtypes(task),
        tolerance={k: {"atol": v.atol, "rtol": v.rtol, "max_mismatch": v.max_mismatch}
                   for k, v in sorted(task.tolerance.items())},
        forbidden=source.forbidden + forbidden_common(),
        platforms=task.platforms,
        platform_text=_platform_text(task.platforms),
    )


def _workload_lines(prompt: Prompt) -> list[str]:
    lines = []
    for w in prompt.workloads:
        head = f"- `{w.id}` ({w.purpose})" + (f": {w.description}" if w.description else "")
        lines.append(head)
        if w.generator_params is not None:
            lines.append(f"  - generator params: `{json.dumps(w.generator_params, sort_keys=True)}`")
        lines.extend(f"  - `{name}`: {text}" for name, text in w.args.items())
    return lines or ["- (no workloads yet)"]


def _text(p: Prompt) -> str:
    out = [f"# Task {p.task_id}", "", f"Write a Triton implementation of `{p.task_id}`.", ""]
    if p.description:
        out += [p.description, ""]
    out += [f"Deliver one self-contained Python module that defines `{p.entry_point}` and the @triton.jit kernels it "
            "launches; it may import torch, triton, triton.language, math and the standard library. Returned "
            "tensors must be plain torch.Tensor objects on the inputs' device, with the reference's shape and dtype.",
            ""]
    out += ["## Entry point", "", "```python", "import torch", "import triton", "import triton.language as tl", "",
            "", p.python_signature, "    ...", "```", ""]
    if p.upstream_signature:
        out += [f"Upstream signature: `{' '.join(p.upstream_signature.split())}`", ""]
    out += [p.calling_convention, ""]
    out += ["Parameters:", ""]
    for prm in p.params:
        extra = [f"default {prm['default']}"] if prm["default"] is not None else []
        extra += ["keyword-only"] if prm["keyword_only"] else []
        extra += [f"written ({prm['direction']})"] if prm["mutable"] else []
        extra += [f"dtype {prm['dtype']}"] if prm["dtype"] else []
        desc = f" — {prm['description']}" if prm["description"] else ""
        out.append(f"- `{prm['name']}`: `{prm['type']}` ({', '.join([prm['kind'], *extra])}){desc}")
    out += ["", "## Semantics", "", p.semantics_text]
    if p.writes:
        out += ["", f"The op writes: {', '.join(p.writes)}; these arguments are compared after the call, and any "
                    "other argument must be left unchanged."]
    else:
        out += ["", "The op writes none of its arguments; an input changed by your kernel fails the task."]
    if p.reference_code:
        out += ["", f"## Reference (`{p.reference_function}`, pure PyTorch; your output must match it)", "",
                "```python", p.reference_code.rstrip("\n"), "```"]
    if p.inputs_code:
        out += ["", "## Input generator (makes the arguments of the generator workloads)", "",
                "```python", p.inputs_code.rstrip("\n"), "```"]
    out += ["", "## Workloads (tested on fresh random inputs of these shapes each round)", "",
            f"Dtypes: {', '.join(p.dtypes) or 'none listed'}.", "", *_workload_lines(p)]
    out += ["", "## Tolerance", "", "|out - ref| <= atol + rtol * |ref|, per dtype of the compared output "
            "(integer and bool outputs exactly unless their dtype is listed):", ""]
    # The tested dtypes' tolerances are what matters; a record may list more (the JSON form keeps them all).
    shown = {dt: t for dt, t in p.tolerance.items() if dt in p.dtypes} or p.tolerance
    out += [f"- {dt}: atol={t['atol']}, rtol={t['rtol']}" + (f", max_mismatch={t['max_mismatch']}"
                                                              if t.get("max_mismatch") else "")
            for dt, t in shown.items()] or ["- (exact)"]
    out += ["", "## Forbidden", "", *[f"- {f}" for f in p.forbidden]]
    out += ["", "## Platform", "", p.platform_text, ""]
    return "\n".join(out)
