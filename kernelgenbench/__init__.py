"""kernelgenbench: real operator sources turned into a benchmark for machine-written Triton kernels."""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

# Lazy exports keep `import kernelgenbench` free of torch and datasets (no side effects, fast CLI start).
_LAZY = {
    "load_tasks": "kernelgenbench.dataset.load",
    "evaluate": "kernelgenbench.evaluator.api",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'kernelgenbench' has no attribute {name!r}")


__all__ = ["__version__", "load_tasks", "evaluate"]
