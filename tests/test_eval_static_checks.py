"""Static checks: forbidden imports and calls, with aliases followed; exact messages."""

from __future__ import annotations

import pytest

from kernelgenbench.evaluator.static_checks import check_source
from kernelgenbench.evaluator.status import Status


@pytest.mark.parametrize(("code", "evidence"), [
    ("import vllm\n", "c.py:1: import vllm: the library under test (vLLM custom ops)"),
    ("from vllm import _custom_ops\n", "c.py:1: from vllm import _custom_ops: the library under test (vLLM custom ops)"),
    ("import subprocess as sp\nsp.run(['x'])\n", "c.py:1: import subprocess: running other programs"),
    ("import torch\ny = torch.ops.aten.mm.default\n",
     "c.py:2: torch.ops.aten.mm.default: ATen compute called directly (the reference, not a kernel)"),
    ("from torch import ops as o\no.aten.mm(1, 2)\n",
     "c.py:2: torch.ops.aten.mm: ATen compute called directly (the reference, not a kernel)"),
    ("from torch.utils.cpp_extension import load_inline\n",
     "c.py:1: from torch.utils.cpp_extension import load_inline: inline C++/CUDA extensions"),
    ("import os\nos.system('ls')\n", "c.py:2: os.system: running other programs"),
    ("import ctypes\nlib = ctypes.CDLL('libcublas.so.12')\n",
     "c.py:2: ctypes with 'libcublas.so.12': native library cublas instead of a Triton kernel"),
    ("import cupy\n", "c.py:1: import cupy: a second GPU array library (cuBLAS and friends without Triton)"),
    ("def f(x):\n    return x.numpy()\n",
     "c.py:2: .numpy(): host compute through numpy, invisible to the dispatch recorder"),
    ("import importlib\nm = importlib.import_module('vl' + 'lm')\n",
     "c.py:2: importlib.import_module: imports by computed name hide what is imported"),
    ("import torch\nf = torch.compile(lambda x: x)\n",
     "c.py:2: torch.compile: a second kernel generator (Inductor) instead of the candidate's own Triton"),
])
def test_forbidden(code, evidence):
    v = check_source(code, filename="c.py")
    assert v.status is Status.FORBIDDEN_API
    assert v.evidence == evidence


def test_syntax_error_is_a_compile_error():
    v = check_source("def f(:\n", filename="c.py")
    assert v.status is Status.COMPILE_ERROR
    assert v.evidence.startswith("c.py:1: SyntaxError:")


def test_ordinary_triton_kernel_and_harmless_ctypes_pass():
    code = (
        "import ctypes\nimport torch\nimport triton\nimport triton.language as tl\n\n"
        "@triton.jit\ndef k(x_ptr, n, B: tl.constexpr):\n    pass\n\n"
        "def op(x):\n    out = torch.empty_like(x)\n    k[(1,)](out, x.numel(), B=16)\n"
        "    ctypes.sizeof(ctypes.c_int)\n    return out\n"
    )
    assert check_source(code).passed
