"""A corpus of real, correct-by-intent kernels: FlagGems and Liger-Kernel wrapped as kgb candidates.

    python bench/real_library_corpus.py dataset --tasks aten.jsonl vllm.jsonl --out tasks.jsonl [--no-performance]
    python bench/real_library_corpus.py candidates --dataset tasks.jsonl --out cands.jsonl
    python bench/real_library_corpus.py direct --dataset tasks.jsonl --candidates cands.jsonl --out direct.jsonl
    python bench/real_library_corpus.py classify --results results.jsonl --direct direct.jsonl
        --candidates cands.jsonl --out bench/results/real_library_h200.md   (and the .json beside it)

`candidates` wraps, for every task of the dataset a library implements: each ATen overload in FlagGems'
own registration table (read by running its registrar with a registrar that records instead of
registering, so nothing is overridden), each vLLM op in FlagGems' vLLM patch table (`lib_patches` of
`apply_gems_patches_to_vllm`, parsed, since calling it needs vLLM), FlagGems functions exported under a
curated vLLM op's name with that op's parameters, and a few hand adapters (Liger-Kernel's RMSNorm and
fused add + RMSNorm, FlagGems' fused add + RMSNorm) where the library's convention differs from vLLM's.
Library functions are called as the dispatcher calls a Python kernel registered with torch.library.
`direct` calls every candidate in this process, without the evaluator, against the task's reference on
the same inputs: agree / differ (max error) / exception, with the aten compute ops and device kernels
seen. `classify` joins `kgb eval`'s verdicts with those checks and explains every non-pass.
Liger-Kernel and FlagGems are imported only by `candidates` and `direct`, on the accelerator.
"""

from __future__ import annotations

import argparse
import ast
import inspect
import json
import keyword
import sys
import textwrap
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kernelgenbench.dataset.configs import get_config
from kernelgenbench.dataset.jsonl import read_jsonl
from kernelgenbench.dataset.record import Param, Task, canonical_json
from kernelgenbench.evaluator.prompt import _default as prompt_default

SHARE_TARGET = 0.95  # of the candidates that agree when run directly, the share kgb eval must pass

# ---------------------------------------------------------------------------------------------------------
# Candidate code
# ---------------------------------------------------------------------------------------------------------

# A Python kernel registered with torch.library receives what the dispatcher hands it, not what the
# caller wrote: positional parameters by position with the trailing ones that equal their default left
# out, keyword-only ones by name unless they equal their default. FlagGems writes its functions for
# that call, so the wrapper reproduces it from the task's parameters.
_DISPATCH_HELPER = '''
_REQUIRED = object()


def _same(value, default):
    """Whether an argument equals its schema default (the dispatcher then leaves it out)."""
    if default is _REQUIRED or isinstance(value, torch.Tensor):
        return False
    if default is None or value is None:
        return value is default
    if isinstance(default, (list, tuple)):
        return isinstance(value, (list, tuple)) and list(value) == list(default)
    return type(value) is type(default) and value == default


def _dispatched(args, kwargs):
    """The arguments as the dispatcher passes them to a Python kernel."""
    pos = list(args)
    for name, default in _POSITIONAL[len(pos):]:
        pos.append(kwargs.get(name, default))
    while pos and _same(pos[-1], _POSITIONAL[len(pos) - 1][1]):
        pos.pop()
    kw = {n: kwargs[n] for n, d in _KEYWORD if n in kwargs and not _same(kwargs[n], d)}
    return pos, kw
'''


@dataclass(frozen=True)
class Adapter:
    """A library function wrapped by hand for a vLLM op whose calling convention it does not share.
    `body` is the entry point's body with {0}, {1}, ... standing for the op's parameters in order."""

    source: str
    task_id: str
    imports: str
    body: str
    arity: int
    note: str


ADAPTERS: tuple[Adapter, ...] = (
    Adapter("liger", "vllm/rms_norm", "from liger_kernel.functional import rms_norm as _impl",
            "{0}.copy_(_impl({1}, {2}, {3}))", 4,
            "liger_kernel.functional.rms_norm, Llama casting (its default: 1/rms in fp32, as vLLM computes)"),
    Adapter("liger", "vllm/fused_add_rms_norm", "from liger_kernel.functional import fused_add_rms_norm as _impl",
            "y, s = _impl({0}, {1}, {2}, {3})\n{1}.copy_(s)\n{0}.copy_(y)", 4,
            "liger_kernel.functional.fused_add_rms_norm returns (norm, sum); vLLM writes them into input, residual"),
    Adapter("flaggems", "vllm/fused_add_rms_norm",
            "from flag_gems.fused.fused_add_rms_norm import fused_add_rms_norm as _impl",
            "y, s = _impl({0}, {1}, [{2}.shape[-1]], {2}, {3})\nif y.data_ptr() != {0}.data_ptr():\n"
            "    {0}.copy_(y)\nif s.data_ptr() != {1}.data_ptr():\n    {1}.copy_(s)", 4,
            "flag_gems.fused_add_rms_norm(x, residual, normalized_shape, weight, eps), in place like vLLM's op"),
)


def _identifier(name: str) -> bool:
    return name.isidentifier() and not keyword.iskeyword(name)


def _default_source(p: Param) -> str:
    """Python source of a parameter's default as the prompt renders it, or `_REQUIRED`."""
    return "_REQUIRED" if p.default is None else (prompt_default(p) or "_REQUIRED")


def parameter_table(task: Task) -> str:
    """`_POSITIONAL = (...)` and `_KEYWORD = (...)`: each parameter with the source of its default."""
    pos = [f"({p.name!r}, {_default_source(p)})" for p in task.params if not p.keyword_only]
    kw = [f"({p.name!r}, {_default_source(p)})" for p in task.params if p.keyword_only]
    return f"_POSITIONAL = ({''.join(x + ', ' for x in pos)})\n_KEYWORD = ({''.join(x + ', ' for x in kw)})\n"


def import_lines(module: str, qualname: str) -> str:
    """Import statement(s) that bind `_impl` to module.qualname (a method through its class)."""
    head, _, rest = qualname.partition(".")
    if not rest:
        return f"from {module} import {head} as _impl\n"
    return f"from {module} import {head} as _owner\n\n_impl = _owner.{rest}\n"


def wrap_function(task: Task, module: str, qualname: str, header: str) -> str:
    """A candidate whose entry point calls module.qualname as the dispatcher would call it."""
    prelude = "import flag_gems  # noqa: F401  (the package's import-time setup)\n" if module.startswith("flag_gems") else ""
    return (f'"""{header}"""\n\nimport torch\n\n{prelude}{import_lines(module, qualname)}\n'
            f"{_DISPATCH_HELPER}\n\n{parameter_table(task)}\n\n"
            f"def {task.entry_point}(*args, **kwargs):\n"
            f"    pos, kw = _dispatched(args, kwargs)\n"
            f"    return _impl(*pos, **kw)\n")


def wrap_adapter(task: Task, adapter: Adapter, header: str) -> str:
    """A candidate whose entry point runs an adapter's body over the op's parameters."""
    names = [p.name for p in task.params]
    if len(names) != adapter.arity or not all(map(_identifier, names)):
        raise ValueError(f"{task.id}: adapter expects {adapter.arity} plain parameters, the task has {names}")
    body = textwrap.indent(adapter.body.format(*names), "    ")
    return (f'"""{header}"""\n\nimport torch  # noqa: F401\n\n{adapter.imports}\n\n\n'
            f"def {task.entry_point}({', '.join(names)}):\n{body}\n")


def candidate_row(task: Task, code: str, *, source: str, method: str, function: str) -> dict[str, Any]:
    """One kgb candidate row, with what classify needs (library and function) beside it."""
    ast.parse(code)  # a template bug fails here, not as a compile_error in the results
    return {"task_id": task.id, "candidate_id": f"{source}:{task.id}:{method}", "code": code,
            "method": method, "model": source, "library": source, "function": function}


# ---------------------------------------------------------------------------------------------------------
# The libraries' own tables (imported on the accelerator only)
# ---------------------------------------------------------------------------------------------------------

def flaggems_aten_table() -> dict[str, Callable[..., Any]]:
    """FlagGems' ATen registrations, overload name -> function, from its own `enable()` path with a
    registrar that records each (key, function) instead of registering it: no op is overridden."""
    import flag_gems
    from flag_gems.runtime.register import Register

    seen: dict[str, Callable[..., Any]] = {}

    class DryRegister(Register):
        def register_impl(self, key: str, fn: Callable[..., Any]) -> None:
            self.all_ops.append(getattr(fn, "__name__", repr(fn)))
            self.all_keys.append(key)
            seen[key] = fn

    flag_gems.enable(lib=None, registrar=DryRegister)
    return seen


def parse_lib_patches(source: str) -> dict[str, str]:
    """vLLM op -> function name from the `lib_patches = [(lib, op, fn), ...]` list in `source`."""
    out: dict[str, str] = {}
    for node in ast.walk(ast.parse(textwrap.dedent(source))):
        if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.List)
                and any(isinstance(t, ast.Name) and t.id == "lib_patches" for t in node.targets)):
            continue
        for item in node.value.elts:
            if isinstance(item, ast.Tuple) and len(item.elts) == 3 and isinstance(item.elts[2], ast.Name):
                op = item.elts[1]
                if isinstance(op, ast.Constant) and isinstance(op.value, str):
                    out[op.value] = item.elts[2].id
    return out


def flaggems_vllm_table() -> dict[str, Callable[..., Any]]:
    """vLLM op -> FlagGems' drop-in: its vLLM patch table (the functions it registers onto vLLM's ops)."""
    from flag_gems.patches import patch_vllm_all

    names = parse_lib_patches(inspect.getsource(patch_vllm_all.apply_gems_patches_to_vllm))
    return {op: getattr(patch_vllm_all, fn) for op, fn in names.items()}


def same_named_dropins(tasks: Iterable[Task], module: Any) -> dict[str, Callable[..., Any]]:
    """vLLM tasks for which `module` exports a function of the op's name taking exactly its parameters."""
    out: dict[str, Callable[..., Any]] = {}
    for t in tasks:
        fn = getattr(module, t.name, None)
        if t.source != "vllm" or not callable(fn):
            continue
        try:
            sig = inspect.signature(fn)
        except (TypeError, ValueError):  # a builtin or an object without a signature: not a drop-in
            continue
        plain = all(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in sig.parameters.values())
        if plain and len(sig.parameters) == len(t.params):
            out[t.name] = fn
    return out


def importable_path(fn: Callable[..., Any], packages: Iterable[str] = ()) -> tuple[str, str] | None:
    """(module, qualname) that imports back to `fn` itself, or a package of `packages` that exports it
    under its name; None when neither does (a lambda, a partial, a local function)."""
    import importlib

    module, qualname = getattr(fn, "__module__", None), getattr(fn, "__qualname__", None)
    exported = [(p, getattr(fn, "__name__", None)) for p in packages]
    own = [(module, qualname)]
    # A function defined outside the package (a backend module it loaded by path, such as FlagGems'
    # per-architecture ops) is imported through the package, which sets that module up.
    inside = module is not None and any(module == p or module.startswith(p + ".") for p in packages)
    candidates = own + exported if inside or not packages else exported + own
    for mod, name in candidates:
        if not mod or not name or "<" in name:
            continue
        try:
            obj: Any = importlib.import_module(mod)
        except ImportError:
            continue
        for part in name.split("."):
            obj = getattr(obj, part, None)
        if obj is fn:
            return mod, name
    return None


DISPLAY = {"flaggems": "FlagGems", "liger": "Liger-Kernel"}


def source_package(source: str) -> str:
    """The top-level package of a library source ('flaggems' -> 'flag_gems')."""
    return {"flaggems": "flag_gems", "liger": "liger_kernel"}[source]


def _dist_version(dist: str) -> str:
    from importlib.metadata import version

    return version(dist)


def wrap_table(task: Task, fn: Callable[..., Any], *, source: str, method: str, what: str) -> dict[str, Any]:
    """A candidate row calling a library table's function, or a row without code saying why not."""
    path = importable_path(fn, packages=(source_package(source),))
    if path is None:
        return {"task_id": task.id, "library": source, "method": method,
                "skipped": f"{what}: {fn!r} does not import back by module and name"}
    header = f"{what} -> {path[0]}.{path[1]}"
    code = wrap_function(task, *path, header)
    return candidate_row(task, code, source=source, method=method, function=f"{path[0]}.{path[1]}")


def flaggems_candidates(tasks: Mapping[str, Task]) -> list[dict[str, Any]]:
    """FlagGems' ATen registrations and vLLM drop-ins for the tasks present, then its hand adapters."""
    import flag_gems
    import flag_gems.fused

    ver = flag_gems.__version__
    rows = [wrap_table(tasks[f"aten/{key}"], fn, source="flaggems", method="flaggems-aten",
                       what=f"FlagGems {ver} registration table: aten::{key}")
            for key, fn in sorted(flaggems_aten_table().items()) if f"aten/{key}" in tasks]
    vllm = {t.name: t for t in tasks.values() if t.source == "vllm" and t.id == f"vllm/{t.name}"}
    patched = {op: fn for op, fn in flaggems_vllm_table().items() if op in vllm}
    rows += [wrap_table(vllm[op], fn, source="flaggems", method="flaggems-vllm-patch",
                        what=f"FlagGems {ver} vLLM patch table: {op}") for op, fn in sorted(patched.items())]
    named = same_named_dropins(vllm.values(), flag_gems.fused)
    rows += [wrap_table(vllm[op], fn, source="flaggems", method="flaggems-vllm-same-name",
                        what=f"FlagGems {ver} flag_gems.fused.{op}, the op's name and parameters")
             for op, fn in sorted(named.items()) if op not in patched]
    covered = {r["task_id"] for r in rows}
    return rows + adapter_candidates(tasks, "flaggems", ver, skip=covered)


def adapter_candidates(tasks: Mapping[str, Task], source: str, version: str,
                       skip: Iterable[str] = ()) -> list[dict[str, Any]]:
    """The hand adapters of one library for the tasks present (and not already covered)."""
    rows = []
    for a in ADAPTERS:
        if a.source == source and a.task_id in tasks and a.task_id not in set(skip):
            code = wrap_adapter(tasks[a.task_id], a, f"{DISPLAY[source]} {version}, adapter: {a.note}")
            module, name = a.imports.removeprefix("from ").split(" as ")[0].split(" import ")
            rows.append(candidate_row(tasks[a.task_id], code, source=source, method=f"{source}-adapter",
                                      function=f"{module}.{name}"))
    return rows


def liger_candidates(tasks: Mapping[str, Task]) -> list[dict[str, Any]]:
    """Liger-Kernel's adapters (RMSNorm, fused add + RMSNorm) for the vLLM tasks present."""
    import liger_kernel.functional  # noqa: F401 - the adapters' import: fail here, not in every candidate
    return adapter_candidates(tasks, "liger", _dist_version("liger-kernel"))


LIBRARIES: dict[str, Callable[[Mapping[str, Task]], list[dict[str, Any]]]] = {
    "flaggems": flaggems_candidates,
    "liger": liger_candidates,
}


# ---------------------------------------------------------------------------------------------------------
# The dataset the session evaluates on
# ---------------------------------------------------------------------------------------------------------

def correctness_only(rec: Mapping[str, Any]) -> dict[str, Any]:
    """The record without its performance workloads, its workload state saying so (the schema derives
    the state from the purposes left)."""
    kept = [w for w in rec["workloads"] if w["purpose"] != "performance"]
    if len(kept) == len(rec["workloads"]):
        return dict(rec)
    state = "partial" if kept else "none"
    return {**rec, "workloads": kept,
            "workload_status": {"state": state, "reason": "performance workloads dropped for a correctness-only run"}}


def write_dataset(paths: Iterable[Path], out: Path, *, config: str | None, performance: bool) -> int:
    """Join JSONL record files into one, keeping a config's records; without `performance` the timed
    workloads are dropped (a correctness-only run). Returns the number of records written."""
    read = read_jsonl(list(paths))
    if read.problems:
        raise SystemExit(read.problems[0])
    wanted = get_config(config) if config else None
    lines = []
    for rec in (r.record for r in read.records):
        if wanted is not None and not wanted.contains(rec):
            continue
        if not performance:
            rec = correctness_only(rec)
        lines.append(canonical_json(rec))
    out.write_text("".join(x + "\n" for x in lines))
    return len(lines)


def load_dataset(dataset: str, config: str | None) -> dict[str, Task]:
    """The dataset's tasks by id."""
    from kernelgenbench.dataset.load import load_tasks

    return {t.id: t for t in load_tasks(dataset, config)}


# ---------------------------------------------------------------------------------------------------------
# Direct check: the library against the reference, in this process, without the evaluator
# ---------------------------------------------------------------------------------------------------------

def compare_leaf(ref: Any, out: Any, task: Task) -> tuple[bool, str, float | None]:
    """(agree, detail, max abs error) of one output: metadata, then values by the task's semantics and
    tolerance (exact for integers and bool; NaN where the reference has NaN agrees)."""
    import torch

    from kernelgenbench.evaluator.compare import tolerance_for

    if not isinstance(ref, torch.Tensor):
        same = ref is None or (not isinstance(out, torch.Tensor) and ref == out) or (isinstance(ref, float) and isinstance(out, float)
                                             and abs(ref - out) <= 1e-6 + 1e-5 * abs(ref))
        return bool(same), "" if same else f"got {out!r}, expected {ref!r}", None
    if not isinstance(out, torch.Tensor):
        return False, f"got {type(out).__name__}, expected a tensor", None
    if out.dtype != ref.dtype or out.shape != ref.shape:
        return False, f"got {out.dtype} {list(out.shape)}, expected {ref.dtype} {list(ref.shape)}", None
    if task.semantics in ("uninitialized", "random") or ref.numel() == 0:
        return True, f"{task.semantics}: metadata only", None
    if not (ref.dtype.is_floating_point or ref.dtype.is_complex):
        n = int((out != ref).sum())
        return n == 0, f"{n} of {ref.numel()} elements differ (exact)" if n else "", 0.0 if n == 0 else None
    tol = tolerance_for(ref.dtype, task.tolerance)
    r, o = ref.detach().to(torch.complex128 if ref.dtype.is_complex else torch.float64), out.detach().to(
        torch.complex128 if ref.dtype.is_complex else torch.float64)
    close = torch.isclose(o, r, rtol=tol.rtol, atol=tol.atol, equal_nan=True)
    finite = torch.isfinite(r) & torch.isfinite(o)
    err = float((o - r).abs()[finite].max()) if bool(finite.any()) else 0.0
    n = int((~close).sum())
    if n > tol.max_mismatch * ref.numel():
        return False, f"{n} of {ref.numel()} elements outside atol={tol.atol:g} rtol={tol.rtol:g}", err
    return True, "", err


def compare_call(task: Task, ref_ret: Any, ref_args: Mapping[str, Any], out_ret: Any,
                 out_args: Mapping[str, Any]) -> tuple[bool, str, float]:
    """Every return leaf (where the reference returns something) and every mutable argument of a call
    against the reference's: (agree, first difference, max abs error)."""
    from kernelgenbench.evaluator.compare import flatten

    pairs: list[tuple[tuple[str, Any], tuple[str, Any]]] = []
    if ref_ret is not None:
        ref_leaves, out_leaves = flatten(ref_ret, "return"), flatten(out_ret, "return")
        if len(ref_leaves) != len(out_leaves):
            return False, f"return: {len(out_leaves)} values, expected {len(ref_leaves)}", 0.0
        pairs += zip(ref_leaves, out_leaves, strict=True)
    for p in task.mutable_params:
        if p.name in ref_args:
            ref_leaves, out_leaves = flatten(ref_args[p.name], f"arg {p.name}"), flatten(out_args[p.name], "")
            pairs += zip(ref_leaves, out_leaves, strict=True)
    worst = 0.0
    for (where, r), (_, o) in pairs:
        ok, detail, err = compare_leaf(r, o, task)
        worst = max(worst, err or 0.0)
        if not ok:
            return False, f"{where}: {detail}", worst
    return True, "", worst


def _recorder() -> Any:
    """A dispatch mode counting every aten op dispatched inside it (and which of them are views)."""
    from torch.utils._python_dispatch import TorchDispatchMode

    class OpRecorder(TorchDispatchMode):
        def __init__(self) -> None:
            super().__init__()
            self.ops: Counter[str] = Counter()
            self.views: set[str] = set()

        def __torch_dispatch__(self, func: Any, types: Any, args: tuple = (), kwargs: Mapping | None = None) -> Any:
            name = str(func.name())
            self.ops[name] += 1
            if getattr(func, "is_view", False):
                self.views.add(name)
            return func(*args, **(kwargs or {}))

    return OpRecorder()


def observed_call(fn: Callable[..., Any], args: list[Any], kw: dict[str, Any], device: Any,
                  kernels: bool) -> tuple[Any, Counter[str], set[str], Counter[str] | None]:
    """fn(*args, **kw) under an aten-op recorder and, with `kernels` on CUDA, the profiler's device kernels."""
    import torch

    rec = _recorder()
    if device.type != "cuda" or not kernels:
        with rec:
            out = fn(*args, **kw)
        return out, rec.ops, rec.views, None
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        with rec:
            out = fn(*args, **kw)
        torch.cuda.synchronize()
    seen = Counter(e.name for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA)
    return out, rec.ops, rec.views, seen


def profiler_works(device: Any) -> bool:
    """Whether the profiler records device kernels here (CUPTI present and free)."""
    import torch

    if device.type != "cuda":
        return False
    try:
        _, _, _, seen = observed_call(lambda: torch.ones(8, device=device).add_(1), [], {}, device, True)
    except RuntimeError as exc:
        print(f"the profiler does not run here ({exc}); the direct check records no kernels", file=sys.stderr)
        return False
    return bool(seen)


def _exc_line(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" (at {Path(frames[-1].filename).name}:{frames[-1].lineno} in {frames[-1].name})" if frames else ""
    return f"{type(exc).__name__}: {str(exc).strip().splitlines()[0][:300] if str(exc).strip() else ''}{where}"


def check_workload(task: Task, fn: Callable[..., Any], ref_fn: Callable[..., Any], w: Any, *,
                   seed: int, device: Any, kernels: bool) -> dict[str, Any]:
    """One round of one workload: the reference and the library on inputs drawn from the same seed."""
    import torch

    from kernelgenbench.evaluator.inputs import round_inputs, split_call_args
    from kernelgenbench.evaluator.precision import precision_policy

    sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
    with precision_policy():
        try:
            ref_args = round_inputs(task, w, seed=seed, device=device)
            a, k = split_call_args(task, ref_args)
            ref_ret = ref_fn(*a, **k)
            sync()
        except Exception as exc:  # noqa: BLE001 - recorded: a dataset problem, not the library's
            return {"verdict": "reference_error", "detail": _exc_line(exc)}
        out_args = round_inputs(task, w, seed=seed, device=device)
        a, k = split_call_args(task, out_args)
        try:
            out_ret, ops, views, seen = observed_call(fn, a, k, device, kernels)
            sync()
        except Exception as exc:  # noqa: BLE001 - recorded: the library raised on this input
            return {"verdict": "exception", "detail": _exc_line(exc),
                    "fatal": "CUDA error" in str(exc) or "illegal memory access" in str(exc)}
    ok, detail, err = compare_call(task, ref_ret, ref_args, out_ret, out_args)
    return {"verdict": "agree" if ok else "differ", "detail": detail, "max_abs_err": err,
            "ops": dict(ops), "views": sorted(views), "kernels": None if seen is None else dict(seen)}


def load_entry(code: str, entry_point: str) -> Callable[..., Any]:
    """Execute a candidate's module text (our own generated wrapper) and return its entry point."""
    namespace: dict[str, Any] = {"__name__": "kgb_real_library_candidate"}
    exec(compile(code, "<candidate>", "exec"), namespace)  # noqa: S102 - code this script generated
    return namespace[entry_point]


_RANK = {"exception": 3, "differ": 2, "reference_error": 1, "agree": 0}


def check_candidate(row: Mapping[str, Any], task: Task, *, rounds: int, seed: int, device: Any,
                    performance: bool, kernels: bool) -> dict[str, Any]:
    """Every (correctness, optionally performance) workload of a candidate, run directly."""
    from kernelgenbench.evaluator.dispatch_guard import compute_ops
    from kernelgenbench.evaluator.inputs import load_code
    from kernelgenbench.evaluator.rounds import seed_for

    t0 = time.perf_counter()
    base = {"kind": "direct", "task_id": task.id, "candidate_id": row["candidate_id"], "library": row.get("library")}
    try:
        fn, ref_fn = load_entry(row["code"], task.entry_point), load_code(task.reference)
    except Exception as exc:  # noqa: BLE001 - recorded: the library (or its wrapper) does not import
        return {**base, "verdict": "exception", "detail": "import: " + _exc_line(exc), "workloads": []}
    results, ops, seen = [], Counter(), Counter()
    for w in (w for w in task.workloads if performance or w.purpose == "correctness"):
        for r in range(rounds):
            res = check_workload(task, fn, ref_fn, w, seed=seed_for(seed, "direct", task.id, w.id, r), device=device,
                                 kernels=kernels)
            res.pop("views", None)  # views are told apart from the op registry itself
            ops.update(compute_ops(res.pop("ops", {}), category=task.category))
            seen.update(res.pop("kernels", None) or {})
            results.append({"workload_id": w.id, "round": r, **res})
            if res["verdict"] != "agree":
                break
        if results and results[-1].get("fatal"):
            break
    worst = max(results, key=lambda x: _RANK[x["verdict"]], default={"verdict": "agree", "detail": "no workloads"})
    return {**base, "verdict": worst["verdict"], "detail": worst.get("detail", ""),
            "workload_id": worst.get("workload_id"), "fatal": bool(results and results[-1].get("fatal")),
            "max_abs_err": max((x.get("max_abs_err") or 0.0 for x in results), default=0.0),
            "compute_ops": sorted(ops), "kernels": dict(seen.most_common(8)),
            "kernel_launches": sum(seen.values()) if kernels else None,
            "workloads": results, "elapsed_s": round(time.perf_counter() - t0, 3)}


def mark_unfinished(out: Path, limit_s: float) -> int:
    """Record, as `unfinished`, the candidate a shard was still running when its time ran out; returns how many."""
    started: dict[str, dict[str, Any]] = {}
    for line in out.read_text().splitlines() if out.exists() else []:
        row = json.loads(line)
        if row.get("kind") == "started":
            started[row["candidate_id"]] = row
        else:
            started.pop(row["candidate_id"], None)
    with out.open("a") as fh:
        for cid, row in started.items():
            ran = time.time() - row.get("at", time.time())
            fh.write(json.dumps({"kind": "direct", "task_id": row.get("task_id", ""), "candidate_id": cid,
                                 "verdict": "unfinished", "elapsed_s": round(ran, 1),
                                 "detail": f"the direct call ran {ran:.0f} s without returning (the shard's "
                                           f"limit of {limit_s:.0f} s ended it)"}) + "\n")
    return len(started)


def _progress(out: Path) -> tuple[set[str], set[str]]:
    """Candidate ids already checked, and ids started but never finished (the process died on them)."""
    done, started = set(), set()
    for line in out.read_text().splitlines() if out.exists() else []:
        row = json.loads(line)
        (done if row.get("kind") == "direct" else started).add(row["candidate_id"])
    return done, started - done


def run_direct(rows: list[dict[str, Any]], tasks: Mapping[str, Task], out: Path, *, device: Any, rounds: int,
               seed: int, performance: bool, kernels: bool = False) -> int:
    """Check every candidate, appending to `out` as each finishes; resumable. Returns 3 when a CUDA error
    poisoned the process (run again: the rest continues in a fresh process), else 0."""
    done, died = _progress(out)
    with out.open("a") as fh:
        for cid in sorted(died):
            task_id = next((r["task_id"] for r in rows if r.get("candidate_id") == cid), "")
            fh.write(json.dumps({"kind": "direct", "task_id": task_id, "candidate_id": cid, "verdict": "exception",
                                 "detail": "the process died during this candidate's direct check"}) + "\n")
        for row in rows:
            cid = row.get("candidate_id")
            if "code" not in row or cid in done or cid in died or row["task_id"] not in tasks:
                continue
            fh.write(json.dumps({"kind": "started", "candidate_id": cid, "task_id": row["task_id"],
                                 "at": time.time()}) + "\n")
            fh.flush()
            res = check_candidate(row, tasks[row["task_id"]], rounds=rounds, seed=seed, device=device,
                                  performance=performance, kernels=kernels)
            fh.write(json.dumps(res, default=str) + "\n")
            fh.flush()
            print(f"{res['verdict']:<16} {cid:<60} {res['elapsed_s'] if 'elapsed_s' in res else '':>7} "
                  f"{res.get('detail', '')[:120]}", flush=True)
            if res.get("fatal"):
                return 3
    return 0


# ---------------------------------------------------------------------------------------------------------
# Classify: kgb eval's verdicts joined with the direct checks
# ---------------------------------------------------------------------------------------------------------

CLASSES = {
    "passed": "passed kgb eval",
    "torch_inside": "torch computation inside the library (policy: stays torch_fallback)",
    "no_kernel": "the library launches no device kernel here (its result comes from torch or metadata)",
    "real_difference": "a real numeric or semantic difference: the library differs from the reference when run directly",
    "library_exception": "a library limitation: it raises (or dies) when run directly",
    "reference_error": "the task's reference failed: a dataset problem",
    "library_slow": "the library's own call did not return in time when run directly either (e.g. its autotuner)",
    "unexplained": "UNEXPLAINED: agrees when run directly but fails kgb eval (the evaluator's fault until shown otherwise)",
    "not_run": "not evaluated: kgb eval did not reach it within the session's time",
}


def classify_one(task_row: Mapping[str, Any], direct: Mapping[str, Any] | None) -> tuple[str, str]:
    """(class, reason) of one candidate from its kgb eval verdict and its direct check."""
    status, evidence = task_row["status"], (task_row.get("evidence") or "").splitlines()[0:1]
    ev = evidence[0][:300] if evidence else ""
    verdict = direct.get("verdict") if direct else None
    seen = ", ".join((direct or {}).get("compute_ops") or [])
    if status == "passed":
        return "passed", "" if verdict in (None, "agree") else f"passes kgb eval, but directly: {verdict}: {direct.get('detail', '')}"
    if status == "torch_fallback":
        if seen:
            return "torch_inside", f"{ev}; the direct run saw: {seen}"
        return "unexplained", f"torch_fallback not reproduced directly (no compute op dispatched there): {ev}"
    if status == "reference_error" or verdict == "reference_error":
        return "reference_error", ev or direct.get("detail", "")
    if verdict == "exception":
        return "library_exception", f"{status}: {ev}; directly: {direct.get('detail', '')}"
    if verdict == "differ":
        return "real_difference", (f"{status}: {ev}; directly on {direct.get('workload_id')}: {direct.get('detail', '')} "
                                   f"(max abs err {direct.get('max_abs_err') or 0:.3g})")
    if status == "timeout" and verdict == "unfinished":
        return "library_slow", f"{ev}; directly: {direct.get('detail', '')}"
    if status == "no_triton_launch" and direct is not None and direct.get("kernel_launches") == 0:
        return "no_kernel", ev
    why = "no direct check" if direct is None else "agrees directly"
    return "unexplained", f"{status}: {ev} ({why})"


def classify(results: list[Mapping[str, Any]], direct_rows: list[Mapping[str, Any]],
             candidates: list[Mapping[str, Any]] = ()) -> dict[str, Any]:
    """Per candidate: library, verdicts and class; per library: counts and the agree-and-pass share."""
    direct = {r["candidate_id"]: r for r in direct_rows if r.get("kind") == "direct"}
    meta = {c["candidate_id"]: c for c in candidates if "candidate_id" in c}
    entries = []
    for row in (r for r in results if r.get("kind") == "task"):
        cid = row["candidate_id"]
        d, c = direct.get(cid), meta.get(cid, {})
        cls, reason = classify_one(row, d)
        entries.append({"task_id": row["task_id"], "candidate_id": cid,
                        "library": c.get("library") or row.get("model") or cid.split(":")[0],
                        "method": c.get("method") or row.get("method"), "function": c.get("function"),
                        "eval_status": row["status"], "direct": d.get("verdict") if d else None,
                        "class": cls, "reason": reason})
    evaluated = {e["candidate_id"] for e in entries}
    entries += [{"task_id": c["task_id"], "candidate_id": c["candidate_id"], "library": c.get("library"),
                 "method": c.get("method"), "function": c.get("function"), "eval_status": None,
                 "direct": (direct.get(c["candidate_id"]) or {}).get("verdict"), "class": "not_run", "reason": ""}
                for c in candidates if "code" in c and c["candidate_id"] not in evaluated]
    return {"summary": summarize_classes(entries), "candidates": entries,
            "skipped": [c for c in candidates if "skipped" in c],
            "platform": next((r.get("platform") for r in results if r.get("platform")), None)}


def summarize_classes(entries: list[Mapping[str, Any]]) -> dict[str, Any]:
    """Per library: candidates, passed, agree directly, agree and passed, their share, and class counts."""
    out: dict[str, Any] = {}
    for lib in sorted({e["library"] for e in entries}):
        es = [e for e in entries if e["library"] == lib and e["class"] != "not_run"]
        agree = [e for e in es if e["direct"] == "agree"]
        both = sum(e["eval_status"] == "passed" for e in agree)
        # torch compute inside the library, or no kernel at all, fails by policy, not by mistake
        clean = [e for e in agree if e["class"] not in ("torch_inside", "no_kernel")]
        out[lib] = {"candidates": len(es), "passed": sum(e["eval_status"] == "passed" for e in es),
                    "agree_directly": len(agree), "agree_and_passed": both,
                    "share": round(both / len(agree), 4) if agree else None,
                    "agree_without_policy_failures": len(clean),
                    "share_without_policy_failures": round(both / len(clean), 4) if clean else None,
                    "classes": dict(Counter(e["class"] for e in entries if e["library"] == lib))}
    return out


def _share(x: float | None) -> str:
    return "-" if x is None else f"{x:.1%}" + (" met" if x >= SHARE_TARGET else " NOT met")


def render_markdown(report: Mapping[str, Any]) -> str:
    """The report as Markdown: one table per library, then every non-pass by class."""
    lines = ["# Real-library corpus: kgb eval verdicts joined with direct checks", ""]
    if report.get("platform"):
        lines += [f"Platform: `{json.dumps(report['platform'], sort_keys=True)}`", ""]
    lines += ["| library | candidates | passed | agree when run directly | of those, pass kgb eval | share "
              f"(target >= {SHARE_TARGET:.0%}) | share without the policy's failures (torch inside, no kernel) |",
              "|---|---|---|---|---|---|---|"]
    for lib, s in report["summary"].items():
        lines.append(f"| {lib} | {s['candidates']} | {s['passed']} | {s['agree_directly']} | {s['agree_and_passed']} | "
                     f"{_share(s['share'])} | {_share(s['share_without_policy_failures'])} "
                     f"(of {s['agree_without_policy_failures']}) |")
    for cls, text in CLASSES.items():
        rows = [e for e in report["candidates"] if e["class"] == cls and (cls != "passed" or e["reason"])]
        if rows:
            lines += ["", f"## {text} ({len(rows)})", ""]
            lines += [f"- `{e['task_id']}` [{e['library']}, {e['method']}] {e['eval_status']}: {e['reason']}" for e in rows]
    if report.get("skipped"):
        lines += ["", f"## Not wrapped ({len(report['skipped'])})", ""]
        lines += [f"- `{c['task_id']}` [{c['library']}]: {c['skipped']}" for c in report["skipped"]]
    return "\n".join(lines) + "\n"


def _floor_cell(timing: Mapping[str, Any] | None, floor: float | None) -> str:
    """time / floor of one timing, starred when it is under the floor."""
    t = (timing or {}).get("time_us")
    if not t or not floor:
        return "-"
    return f"{t / floor:.2f}" + (" **below**" if (timing or {}).get("below_floor") else "")


def performance_lines(results: list[Mapping[str, Any]]) -> list[str]:
    """A table of the timed workloads (time, floor ratio and each baseline's), where the run timed any, and
    a count of the timings under their speed-of-light floor (issue 17: none of a correct kernel's may be)."""
    rows = [r for r in results if r.get("kind") == "workload" and r.get("purpose") == "performance"
            and (r.get("timing") or {}).get("time_us")]
    if not rows:
        return []
    below: list[str] = []
    lines = ["", f"## Timed performance workloads ({len(rows)})", "",
             "| task | candidate | workload | time_us | time / floor | baselines (time_us, time / floor) |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        sol = r.get("sol") or {}
        floor = float(sol["floor_us"]) if sol.get("available") and sol.get("floor_us") else None
        bases = {k: v for k, v in (r.get("baselines") or {}).items()
                 if isinstance(v, dict) and v.get("available") and v.get("time_us")}
        for who, t in [("candidate", r["timing"]), *bases.items()]:
            if t.get("below_floor"):
                below.append(f"- `{r['task_id']}` {r['workload_id']}: {who} {t['time_us']:.2f} us, floor {floor:.2f} us")
        base = ", ".join(f"{k} {v['time_us']:.2f} ({_floor_cell(v, floor)})" for k, v in bases.items())
        lines.append(f"| `{r['task_id']}` | {r['candidate_id'].split(':')[0]} | {r['workload_id']} | "
                     f"{r['timing']['time_us']:.2f} | {_floor_cell(r['timing'], floor)} | {base or '-'} |")
    head = [f"Timings under their speed-of-light floor: {len(below)} (candidates and baselines, "
            f"of {len(rows)} timed workloads)", *below]
    return lines[:3] + head + [""] + lines[3:]


# ---------------------------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------------------------

def _read_rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()] if path.exists() else []


def cmd_dataset(args: argparse.Namespace) -> int:
    """Write the joined (and optionally correctness-only) dataset."""
    n = write_dataset(args.tasks, args.out, config=args.config, performance=not args.no_performance)
    print(f"{args.out}: {n} records")
    return 0


def cmd_candidates(args: argparse.Namespace) -> int:
    """Write one candidate row per task a library implements (and a row without code per entry skipped)."""
    tasks = load_dataset(args.dataset, args.config)
    rows: list[dict[str, Any]] = []
    failed = []
    for lib in args.libraries.split(","):
        try:
            rows += LIBRARIES[lib](tasks)
        except Exception:  # noqa: BLE001 - one library that does not load must not cost the other its run
            traceback.print_exc()
            failed.append(lib)
    args.out.write_text("".join(json.dumps(r) + "\n" for r in rows if "code" in r))
    skipped = [r for r in rows if "code" not in r]
    if args.skipped:
        args.skipped.write_text("".join(json.dumps(r) + "\n" for r in skipped))
    per = Counter(f"{r['library']}/{r['method']}" for r in rows if "code" in r)
    print(f"{args.out}: {sum(per.values())} candidates ({dict(per)}); {len(skipped)} table entries not wrapped")
    for r in skipped:
        print(f"  not wrapped: {r['task_id']}: {r['skipped']}")
    if failed:
        print(f"libraries that failed to load (traceback above): {', '.join(failed)}")
    return 1 if failed else 0


def cmd_direct(args: argparse.Namespace) -> int:
    """Run every candidate directly against its reference; append to --out (resumable)."""
    import os

    import torch

    dev = torch.device("cuda" if args.device == "auto" and torch.cuda.is_available() else
                       ("cpu" if args.device == "auto" else args.device))
    if dev.type == "cpu":
        os.environ.setdefault("TRITON_INTERPRET", "1")  # before the libraries import triton
    k, n = (int(x) for x in args.shard.split("/"))
    if args.mark_unfinished is not None:
        print(f"{mark_unfinished(args.out, args.mark_unfinished)} unfinished")
        return 0
    rows = [r for i, r in enumerate(r for r in _read_rows(args.candidates) if "code" in r) if i % n == k]
    last = set(filter(None, args.last.split(",")))  # long autotuners go last, so they hold up nothing else
    rows.sort(key=lambda r: r["task_id"] in last)
    tasks = load_dataset(args.dataset, args.config)
    return run_direct(rows, tasks, args.out, device=dev, rounds=args.rounds, seed=args.seed,
                      performance=args.performance, kernels=profiler_works(dev))


def cmd_classify(args: argparse.Namespace) -> int:
    """Join, classify, write the Markdown and JSON reports, print the Markdown."""
    results = _read_rows(args.results)
    report = classify(results, _read_rows(args.direct), _read_rows(args.candidates) if args.candidates else [])
    if args.skipped:
        report["skipped"] += _read_rows(args.skipped)
    text = render_markdown(report) + "\n".join(performance_lines(results)) + "\n"
    args.out.write_text(text)
    args.out.with_suffix(".json").write_text(json.dumps(report, indent=1, sort_keys=True) + "\n")
    print(text)
    return 0


def parser() -> argparse.ArgumentParser:
    """The command line: dataset, candidates, direct, classify."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n".join(__doc__.splitlines()[2:8]))
    sub = ap.add_subparsers(dest="command", required=True)
    d = sub.add_parser("dataset", help="join JSONL record files into the dataset to evaluate on")
    d.add_argument("--tasks", type=Path, nargs="+", required=True)
    d.add_argument("--out", type=Path, required=True)
    d.add_argument("--config", default="ms")
    d.add_argument("--no-performance", action="store_true", help="drop the timed workloads (correctness only)")
    d.set_defaults(func=cmd_dataset)
    c = sub.add_parser("candidates", help="wrap the libraries' functions as kgb candidates (imports them)")
    c.add_argument("--dataset", required=True)
    c.add_argument("--config", default="ms")
    c.add_argument("--out", type=Path, required=True)
    c.add_argument("--libraries", default="flaggems,liger", help="comma-separated: " + ", ".join(LIBRARIES))
    c.add_argument("--skipped", type=Path, help="also write the table entries that could not be wrapped")
    c.set_defaults(func=cmd_candidates)
    r = sub.add_parser("direct", help="run each candidate directly against its reference (no evaluator)")
    r.add_argument("--dataset", required=True)
    r.add_argument("--config", default="ms")
    r.add_argument("--candidates", type=Path, required=True)
    r.add_argument("--out", type=Path, required=True)
    r.add_argument("--device", default="auto")
    r.add_argument("--rounds", type=int, default=1)
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--performance", action="store_true", help="also the performance workloads")
    r.add_argument("--last", default="aten/mm,aten/mm.out,aten/addmm,aten/bmm,aten/bmm.out",
                   help="comma-separated task ids checked after the others in each shard (long first calls)")
    r.add_argument("--mark-unfinished", type=float, metavar="LIMIT_S",
                   help="only record the candidate the shard was running when LIMIT_S ran out, as unfinished")
    r.add_argument("--shard", default="0/1", help="K/N: only every N-th candidate from the K-th (parallel processes)")
    r.set_defaults(func=cmd_direct)
    k = sub.add_parser("classify", help="join kgb eval results with the direct checks; write .md and .json")
    k.add_argument("--results", type=Path, required=True)
    k.add_argument("--direct", type=Path, required=True)
    k.add_argument("--candidates", type=Path)
    k.add_argument("--skipped", type=Path)
    k.add_argument("--out", type=Path, required=True)
    k.set_defaults(func=cmd_classify)
    return ap


def main(argv: list[str] | None = None) -> int:
    """Run one subcommand."""
    args = parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    raise SystemExit(main())
