"""CPU: does Triton's compile rule as the sandbox applies it (sandbox/kernel_rules.py) pass a real library's kernels?

Imports every module of an installed package (FlagGems, Liger-Kernel: pure Python, importable without a GPU),
finds every @triton.jit function in them (bare, or under autotune/heuristics wrappers), and checks each with
`KernelRules().check(kernel)`: the names its body reads, the constexpr globals it bakes in, the JIT functions it
calls. A correct library's kernels all compile on a GPU, so every break listed is a false positive of the rule
(issue 13). Launch arguments are not seen here (no launch): `kgb eval` on a GPU covers them.

Usage:  GEMS_VENDOR=nvidia python bench/scan_kernel_rules.py flag_gems liger_kernel [--path /tmp/site]
Prints per package: modules imported (and those that failed, with why), kernels checked, kernels with breaks,
and each break; exit status 1 when any kernel breaks the rule.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Iterator
from typing import Any


def _modules(package: str) -> tuple[list[Any], list[str]]:
    """Every importable module of `package`, and a line for each that failed to import."""
    root = importlib.import_module(package)
    found, failed = [root], []
    for info in pkgutil.walk_packages(root.__path__, prefix=package + ".", onerror=lambda name: failed.append(name)):
        if ".backend._" in info.name and ".backend._nvidia" not in info.name:
            continue  # another vendor's kernels (FlagGems' runtime/backend/_<vendor>): not what runs on NVIDIA
        try:
            found.append(importlib.import_module(info.name))
        except Exception as exc:  # noqa: BLE001 - a vendor backend this machine lacks: listed, scan goes on
            failed.append(f"{info.name}: {type(exc).__name__}: {str(exc)[:120]}")
    return found, failed


def _kernels(modules: list[Any]) -> Iterator[tuple[str, Any]]:
    """(qualified name, JITFunction) of every Triton kernel the modules hold, unwrapping autotune/heuristics."""
    from triton.runtime.jit import JITFunction

    seen: set[int] = set()
    for module in modules:
        for name, value in list(vars(module).items()):
            inner, depth = value, 0
            while not isinstance(inner, JITFunction) and hasattr(inner, "fn") and depth < 4:
                inner, depth = inner.fn, depth + 1
            if isinstance(inner, JITFunction) and id(inner) not in seen:
                seen.add(id(inner))
                yield f"{module.__name__}.{name}", inner


def scan(package: str) -> int:
    """Print the package's scan; the number of kernels that break the rule."""
    from kernelgenbench.sandbox.kernel_rules import KernelRules

    modules, failed = _modules(package)
    rules, broken, checked = KernelRules(), 0, 0
    for name, kernel in _kernels(modules):
        checked += 1
        try:
            breaks, _ = rules.check(kernel)
        except Exception as exc:  # noqa: BLE001 - the rule itself failed on a real kernel: that is a finding too
            breaks = [f"the rule raised {type(exc).__name__}: {exc}"]
        if breaks:
            broken += 1
            print(f"BREAK {name}: " + " | ".join(b[:300] for b in breaks))
    print(f"{package}: {len(modules)} modules imported, {len(failed)} failed, {checked} kernels checked, "
          f"{broken} break the rule")
    for line in failed:
        print(f"  not imported: {line}")
    return broken


def _placeholder_device() -> None:
    """On a CPU-only torch, torch.cuda's device queries answer a placeholder, so a GPU library imports (its
    kernels are only read here, never launched)."""
    import types

    import torch

    if torch.cuda.is_available():
        return
    props = types.SimpleNamespace(name="placeholder", multi_processor_count=132, major=9, minor=0,
                                  total_memory=80 << 30, L2_cache_size=50 << 20, warp_size=32)
    torch.cuda.get_device_name = lambda *a, **k: props.name
    torch.cuda.get_device_properties = lambda *a, **k: props
    torch.cuda.get_device_capability = lambda *a, **k: (props.major, props.minor)
    torch.cuda.current_device = lambda: 0
    torch.cuda.device_count = lambda: 1


def main() -> None:
    """Scan the packages named on the command line."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("packages", nargs="+")
    ap.add_argument("--path", action="append", default=[], help="a folder to import the packages from")
    args = ap.parse_args()
    sys.path[:0] = args.path
    _placeholder_device()
    sys.exit(1 if sum(scan(p) for p in args.packages) else 0)


if __name__ == "__main__":
    main()
