"""Shared reference helpers live once in the source tree and are written into each record's self-contained text."""

from __future__ import annotations

import ast

import pytest

from kernelgenbench.extractors.vllm.curated import module_source
from kernelgenbench.reference_impls.inline import SHARED, self_contained


def test_embedded_module_text_imports_only_torch_and_defines_the_shared_helper():
    text = module_source("kernelgenbench.reference_impls.vllm_norm")
    imports = {n.module if isinstance(n, ast.ImportFrom) else a.name
               for n in ast.parse(text).body if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}
    assert imports <= {"__future__", "torch", "math"}, imports
    namespace: dict = {}
    exec(compile(text, "vllm_norm", "exec"), namespace)  # noqa: S102 - the record's code, as the evaluator runs it
    import torch

    assert namespace["_dtype"]("fp8") is torch.float8_e4m3fn and namespace["_dtype"]("half") is torch.float16


def test_an_unknown_shared_name_is_an_error_naming_it():
    with pytest.raises(KeyError, match="no _nothing"):
        self_contained(f"import torch\nfrom {SHARED} import _dtype, _nothing\n")


def test_text_without_shared_imports_is_unchanged():
    text = "import torch\n\n\ndef f():\n    return 1\n"
    assert self_contained(text) == text
