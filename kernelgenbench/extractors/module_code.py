"""The code a record embeds: a kernelgenbench module's text, read as package data (never imported), made
self-contained (the shared helpers it imports written into it: a record's code imports only torch).

One reader for every extractor (and the examples), so each record's `reference` and `inputs` text is made
the same way.
"""

from __future__ import annotations

import functools
from importlib import resources

from kernelgenbench.dataset.record import Code
from kernelgenbench.errors import SourceParseError
from kernelgenbench.reference_impls.inline import self_contained


@functools.cache
def module_source(module: str) -> str:
    """The self-contained text of a kernelgenbench module ('kernelgenbench.reference_impls.vllm_norm')."""
    package, _, leaf = module.rpartition(".")
    try:
        return self_contained((resources.files(package) / f"{leaf}.py").read_text(encoding="utf-8"))
    except (ModuleNotFoundError, FileNotFoundError):
        raise SourceParseError(f"module {module} not found") from None


def module_code(module: str, function: str) -> dict[str, str]:
    """A record's {module, function, code} part: `function` of `module`, with the module's text."""
    return Code(module, function, module_source(module)).to_dict()
