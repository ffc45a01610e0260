"""Static checks: forbidden imports and calls, with aliases followed; exact messages."""

from __future__ import annotations

from pathlib import Path

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
     "c.py:2: ctypes.CDLL: loads a native library (libc's memcpy over a tensor's address, a vendor library)"),
    ("def f(out):\n    return getattr(out, 'ma' + 'p_')\n",
     "c.py:2: getattr(..., 'ma' + 'p_'): an attribute named by a computed string hides what is used from the static check (for a torch dtype's Triton dtype, name each in a module-level dict: {torch.float16: tl.float16, ...})"),
    ("import torch\nfor n in ('frombuffer',):\n    getattr(torch, n)\n",
     "c.py:3: getattr(..., n='frombuffer'): a tensor over host bytes (the way back from host compute)"),
    ("def f(t):\n    a, = ('ma' + 'p_',)\n    return getattr(t, a)\n",
     "c.py:3: getattr(..., a): an attribute named by a computed string hides what is used from the static check (for a torch dtype's Triton dtype, name each in a module-level dict: {torch.float16: tl.float16, ...})"),
    ("def f(x):\n    if (v := x.tolist()):\n        return sum(v)\n",
     "c.py:3: v (from .tolist()) reduced by sum: a host loop over a tensor's elements computes out of the recorders' sight"),
    ("def f(x):\n    for a in (v := x.tolist()):\n        pass\n",
     "c.py:2: .tolist() iterated: a host loop over a tensor's elements computes out of the recorders' sight"),
    ("def f(x):\n    return [v.item() for v in (x[0], x[1], x[2], x[3], x[4])]\n",
     "c.py:2: .item() in a loop: a host loop over a tensor's elements computes out of the recorders' sight"),
    ("import torch\ndef f(n):\n    return getattr(torch, n)\n",
     "c.py:3: getattr(..., n): an attribute named by a computed string hides what is used from the static check (for a torch dtype's Triton dtype, name each in a module-level dict: {torch.float16: tl.float16, ...})"),
    ("import ctypes\nlib = ctypes.util.find_library('cublas')\n",
     "c.py:2: ctypes with 'cublas': native library cublas instead of a Triton kernel"),
    ("import cupy\n", "c.py:1: import cupy: a second GPU array library (cuBLAS and friends without Triton)"),
    ("def f(x):\n    return x.numpy()\n",
     "c.py:2: .numpy(): host compute through numpy, invisible to the dispatch recorder"),
    ("import importlib\nm = importlib.import_module('vl' + 'lm')\n",
     "c.py:2: importlib.import_module: imports by computed name hide what is imported"),
    ("import kernelgenbench.sandbox.worker as w\n",
     "c.py:1: import kernelgenbench.sandbox.worker: the evaluator itself (its worker, its recorders, its timer)"),
    ("import torch\nf = torch.compile(lambda x: x)\n",
     "c.py:2: torch.compile: a second kernel generator (Inductor) instead of the candidate's own Triton"),
])
def test_forbidden(code, evidence):
    v = check_source(code, filename="c.py")
    assert v.status is Status.FORBIDDEN_API
    assert v.evidence == evidence


PROCESS = "running other processes"
PROGRAMS = "running other programs"
POSIX = "the C module behind os (fork, exec, system) reached directly"
INDUCTOR = "a second kernel generator"


@pytest.mark.parametrize(("code", "evidence"), [
    # every member of a process family, however it is spelled (red team 3: fork_server, spawnvp_child)
    ("import os\nos.spawnvp(os.P_WAIT, 'x', ['x'])\n", f"c.py:2: os.spawnvp: {PROGRAMS}"),
    ("import os\nos.spawnlp(os.P_WAIT, 'x', 'x')\n", f"c.py:2: os.spawnlp: {PROGRAMS}"),
    ("import os as o\no.execvpe('x', ['x'], {})\n", f"c.py:2: os.execvpe: {PROGRAMS}"),
    ("import os\nos.posix_spawnp('x', ['x'], {})\n", f"c.py:2: os.posix_spawnp: {PROGRAMS}"),
    ("import os\nf = os.forkpty\n", f"c.py:2: os.forkpty: {PROCESS}"),
    ("from os import spawnvpe as s\n", f"c.py:1: from os import spawnvpe: {PROGRAMS}"),
    ("import os\ns = os.spawnve\ns(1, 'x', ['x'], {})\n", f"c.py:2: os.spawnve: {PROGRAMS}"),
    ("import os\npid = getattr(os, 'fork')()\n", f"c.py:2: os.fork: {PROCESS}"),
    ("import posix\nposix.fork()\n", f"c.py:1: import posix: {POSIX}"),
    ("import posix as p\np.fork()\n", f"c.py:1: import posix: {POSIX}"),
    ("from posix import fork\n", f"c.py:1: from posix import fork: {POSIX}"),
    ("import _posixsubprocess\n", "c.py:1: import _posixsubprocess: running other programs (subprocess's fork and exec)"),
    ("import pty\npty.fork()\n", "c.py:1: import pty: running other processes (pty.fork, pty.spawn)"),
    ("import torch.multiprocessing as mp\n", f"c.py:1: import torch.multiprocessing: {PROCESS}"),
    ("import concurrent.futures as cf\ncf.ProcessPoolExecutor()\n",
     f"c.py:2: concurrent.futures.ProcessPoolExecutor: {PROCESS}"),
    ("import asyncio\nasyncio.create_subprocess_exec('x')\n", f"c.py:2: asyncio.create_subprocess_exec: {PROGRAMS}"),
    ("import os\n[os][0].spawnvp(0, 'x', ['x'])\n", f"c.py:2: .spawnvp: {PROGRAMS}"),  # no dotted path
    ("def f(m):\n    return getattr(m, 'fork')()\n", f"c.py:2: .fork: {PROCESS}"),
    # a forbidden module reached as another module's attribute (red team 3: torch.sys.modules[...])
    ("import torch\nm = torch.sys.modules['torch._inductor.codecache']\n",
     "c.py:2: torch.sys.modules (sys.modules): reaches loaded modules by name, the worker's and the evaluator's among them"),
    ("import torch\ntorch.os.fork()\n", f"c.py:2: torch.os.fork (os.fork): {PROCESS}"),
    ("import triton\ntriton.x.subprocess.run(['x'])\n", "c.py:2: triton.x.subprocess.run (subprocess.run): running other programs"),
    # the compilers, whatever entry point (red team 3: inductor_direct_call)
    ("import torch\nf = torch._dynamo.optimize('inductor')(lambda x: x)\n",
     "c.py:2: torch._dynamo.optimize: a second kernel generator (Dynamo hands graphs to Inductor) instead of the "
     "candidate's own Triton"),
    ("import torch._dynamo\n", "c.py:1: import torch._dynamo: a second kernel generator (Dynamo hands graphs to "
     "Inductor) instead of the candidate's own Triton"),
    ("from torch import _dynamo as d\nd.optimize('inductor')\n", "c.py:1: from torch import _dynamo: a second kernel "
     "generator (Dynamo hands graphs to Inductor) instead of the candidate's own Triton"),
    ("import torch\nf = torch.compiler.compile\n", "c.py:2: torch.compiler.compile: a second kernel generator "
     "(torch.compile's public face)"),
    ("import torch._inductor.codecache as cc\n", f"c.py:1: import torch._inductor.codecache: {INDUCTOR}"),
])
def test_process_families_and_compilers_are_forbidden_whatever_the_spelling(code, evidence):
    v = check_source(code, filename="c.py")
    assert (v.status, v.evidence) == (Status.FORBIDDEN_API, evidence)


def test_every_process_call_of_os_is_forbidden_by_attribute_name_too():
    import os

    from kernelgenbench.evaluator.static_checks import forbidden

    family = {n for n in dir(os) if n.startswith(("fork", "exec", "spawn", "posix_spawn"))}
    assert {"fork", "execvpe", "spawnvp", "posix_spawnp"} <= family
    assert family <= set(forbidden().attributes)


@pytest.mark.parametrize("code", [
    "import os\np = os.path.join(os.getcwd(), 'x')\nn = os.cpu_count()\n",  # os itself stays usable
    "import torch\nx = torch.cuda.is_available()\nd = torch.float32\n",
    "import re\nr = re.compile('x')\n",  # compile of another module
    "def f(self):\n    return self.forks, self.spawn\n",
])
def test_process_families_leave_neighbours_alone(code):
    assert check_source(code).passed, check_source(code).evidence


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


HOST = "a host loop over a tensor's elements computes out of the recorders' sight"
NUMPY = ("numpy computes on the host (every numpy function takes a tensor through __array__), out of the "
         "recorders' sight; use math for shape arithmetic")
FRAMES = "walks into the worker's frames (its locals, the expected values, the timer)"
COMPUTED = "an attribute named by a computed string hides what is used from the static check (for a torch dtype's Triton dtype, name each in a module-level dict: {torch.float16: tl.float16, ...})"


@pytest.mark.parametrize(("code", "evidence"), [
    # numpy on anything: every numpy function takes a tensor through __array__
    ("import numpy as np\ndef f(x):\n    return np.asarray(x)\n", f"c.py:3: numpy.asarray: {NUMPY}"),
    ("import numpy as np\ndef f(x, y):\n    return np.add(x, y)\n", f"c.py:3: numpy.add: {NUMPY}"),
    ("from numpy import frombuffer as fb\n", f"c.py:1: from numpy import frombuffer: {NUMPY}"),
    ("import numpy as np\nf = getattr(np, 'asarray')\n", f"c.py:2: numpy.asarray: {NUMPY}"),
    ("import numpy as np\nf = getattr(np, 'as' + 'array')\n", f"c.py:2: getattr(np, <computed>): {COMPUTED}"),
    ("def f(x):\n    return x.__array__()\n",
     "c.py:2: .__array__(): host compute through numpy, invisible to the dispatch recorder"),
    ("def f(x):\n    return x.__array_interface__\n", "c.py:2: .__array_interface__: a tensor's memory handed "
     "to a host library (host compute out of the recorders' sight)"),
    ("def f(x):\n    return x.__dlpack__()\n", "c.py:2: .__dlpack__: a tensor's memory handed to another library "
     "(compute out of the recorders' sight)"),
    ("from torch.utils.dlpack import to_dlpack\n", "c.py:1: from torch.utils.dlpack import to_dlpack: hands a "
     "tensor's memory to another library (host compute out of the recorders' sight)"),
    ("def f(x):\n    return bytes(memoryview(x))\n",
     "c.py:2: memoryview: a host view of a tensor's memory (host compute out of the recorders' sight)"),
    # host loops over elements
    ("def f(x, y):\n    a = x.tolist()\n    b = y.tolist()\n    return [u + v for u, v in zip(a, b)]\n",
     f"c.py:4: a (from .tolist()) reduced by zip: {HOST}"),
    ("def f(x, y):\n    a, b = x.tolist(), y.tolist()\n    return [u + v for u, v in zip(a, b)]\n",
     f"c.py:3: a (from .tolist()) reduced by zip: {HOST}"),
    ("def g(n, u):\n    return [v * n for v in u]\ndef f(x):\n    a = x.tolist()\n    return g(2, u=a)\n",
     f"c.py:2: u (from .tolist()) iterated: {HOST}"),  # the loop in a helper it is handed to
    ("def f(x):\n    return sum(x.tolist())\n", f"c.py:2: .tolist() reduced by sum: {HOST}"),
    ("def f(x):\n    for v in list(x.tolist()):\n        pass\n", f"c.py:2: .tolist() iterated: {HOST}"),
    ("def f(x):\n    s = str(x.tolist())\n    for v in s:\n        pass\n",
     f"c.py:3: s (from .tolist()) iterated: {HOST}"),  # the text holds the data (red team 30)
    ("def f(x):\n    a = x.tolist()\n    for i in range(len(a)):\n        a[i] *= 2\n",
     f"c.py:4: a (from .tolist()) used in a loop: {HOST}"),
    ("def f(x):\n    a = x.tolist()[:]\n    for v in a:\n        pass\n",
     f"c.py:3: a (from .tolist()) iterated: {HOST}"),  # a slice is the list again (red team 31)
    ("def f(x):\n    a = x.tolist().copy()\n    return sum(a)\n", f"c.py:3: a (from .tolist()) reduced by sum: {HOST}"),
    ("def f(x):\n    return [x[i].item() for i in range(x.numel())]\n", f"c.py:2: .item() in a loop: {HOST}"),
    ("def g(x, i):\n    return x[i].item()\ndef f(x):\n    return list(map(lambda i: g(x, i), range(9)))\n",
     f"c.py:4: g() (calls .tolist()/.item()) in a loop: {HOST}"),
    ("def f(x):\n    m = getattr(x, 'tolist')\n    return m()\n",
     f"c.py:2: .tolist taken as a value (hides where it is called): {HOST}"),
    ("import operator\nf = operator.methodcaller('tolist')\n",
     "c.py:2: operator.methodcaller: names a method by string, hidden from the static check"),
    # raw memory
    ("import ctypes\ndef f(x):\n    return (ctypes.c_float * x.numel()).from_address(x.data_ptr())\n",
     "c.py:3: .from_address: a ctypes array over a raw address (a tensor's data) out of the recorders' sight"),
    ("import ctypes as C\ndef f(x):\n    p = x.data_ptr()\n    return p\n", "c.py:3: .data_ptr with ctypes: ctypes over "
     "a tensor's address (data_ptr) reads or writes its data on the host, out of the recorders' sight"),
    ("from ctypes import memmove\n", "c.py:1: from ctypes import memmove: copies raw memory (a tensor's data) out "
     "of the recorders' sight"),
    ("import array\n", "c.py:1: import array: host arrays over tensor memory (host compute out of the recorders' sight)"),
    # reaching into the worker
    ("import gc as g\nh = g\nh.get_objects()\n", "c.py:3: gc.get_objects: finds the evaluator's objects (its tensors, "
     "its functions) by walking the heap"),
    ("import sys\ndef f():\n    return sys._getframe(1)\n", f"c.py:3: sys._getframe: {FRAMES}"),
    ("def f(e):\n    return e.__traceback__.tb_frame\n", f"c.py:2: .tb_frame: {FRAMES}"),
    ("from inspect import currentframe\n", f"c.py:1: from inspect import currentframe: {FRAMES}"),
    ("import sys\nsys.modules['torch'] = None\n",
     "c.py:2: sys.modules: reaches loaded modules by name, the worker's and the evaluator's among them"),
    ("import importlib\nimportlib.reload(importlib)\n",
     "c.py:2: importlib.reload: re-executes a module (the worker's) with patched contents"),
    ("import os\nf = getattr(os, 'sys' + 'tem')\n", f"c.py:2: getattr(os, <computed>): {COMPUTED}"),
    ("import os\nf = getattr(os, 'system')\n", "c.py:2: os.system: running other programs"),
    ("import builtins\nf = builtins.__dict__['ev' + 'al']\n", f"c.py:2: builtins.__dict__: {COMPUTED}"),
    ("f = __builtins__['eval']\n", "c.py:1: __builtins__: rebinds or fetches builtins by computed name"),
    ("x = object.__subclasses__()\n",
     "c.py:1: .__subclasses__: reaches every class loaded in the process (the evaluator's included)"),
    # names hidden in other spellings
    ("from gc import *\nx = get_objects()\n",
     "c.py:1: from gc import *: a star import hides which names are used from the static check"),
    ("import torch\ndef f(x):\n    return torch.utils.dlpack.to_dlpack(x)\n", "c.py:3: torch.utils.dlpack.to_dlpack: "
     "hands a tensor's memory to another library (host compute out of the recorders' sight)"),
    ("def f(x):\n    return x.__getattribute__('tol' + 'ist')()\n",
     f"c.py:2: .__getattribute__ with a computed name: {COMPUTED}"),
    ("def f(x):\n    return object.__getattribute__(x, '__array__')()\n",
     "c.py:2: .__array__(): host compute through numpy, invisible to the dispatch recorder"),
    ("import torch\nf = torch.Tensor.__dict__['tolist']\n", f"c.py:2: torch.Tensor.__dict__['tolist']: {COMPUTED}"),
    ("def f(x):\n    return x\ng = vars(type(f))['__globals__'].__get__(f)\n",
     f"c.py:3: vars(type(f))['__globals__']: {COMPUTED}"),
    ("import functools\ng = functools.partial(getattr)\n", f"c.py:2: getattr taken as a value: {COMPUTED}"),
    ("def f(x):\n    a = x.tolist()\n    b = a\n    c = list(b)\n    for i in range(len(c)):\n        c[i] += 1\n",
     f"c.py:6: c (from .tolist()) used in a loop: {HOST}"),
    ("import pkgutil\nm = pkgutil.resolve_name('kernelgen' + 'bench.sandbox.worker')\n", "c.py:2: pkgutil.resolve_name: "
     "imports by name hide what is imported (the evaluator's modules among them)"),
    ("from unittest import mock\n", "c.py:1: from unittest import mock: patches any object by dotted name (the "
     "worker's and the evaluator's among them)"),
    ("def f(x):\n    with open('/proc/self/mem', 'rb') as m:\n        m.seek(x.data_ptr())\n",
     "c.py:2: '/proc/self/mem' in a string: reads the process's memory (a tensor's data) out of the recorders' sight"),
    ("import struct\n", "c.py:1: import struct: packs and unpacks raw bytes (a tensor's data) on the host, out of "
     "the recorders' sight"),
    # red team 3's tensor_map_: a lambda per element, called from C++
    ("def f(x, y):\n    x.map_(y, lambda a, b: a + b)\n",
     "c.py:2: .map_: a Python function called per element of a tensor (host compute out of the recorders' sight)"),
    ("def f(x):\n    return getattr(x, 'apply_')(abs)\n",
     "c.py:2: .apply_: a Python function called per element of a tensor (host compute out of the recorders' sight)"),
    ("import torch\nt = torch.frombuffer(b, dtype=torch.float32)\n",
     "c.py:2: torch.frombuffer: a tensor over host bytes (the way back from host compute)"),
    ("def f(x):\n    vals = x.reshape(-1).tolist() if x.dim() else [x.tolist()]\n    for v in vals:\n        print(v)\n",
     "c.py:3: vals (from .tolist()) iterated: a host loop over a tensor's elements computes out of the "
     "recorders' sight"),
    ("def f(x, c):\n    return sum(c or x.tolist())\n",
     "c.py:2: .tolist() reduced by sum: a host loop over a tensor's elements computes out of the recorders' sight"),
])
def test_host_compute_and_introspection(code, evidence):
    v = check_source(code, filename="c.py")
    assert (v.status, v.evidence) == (Status.FORBIDDEN_API, evidence)


@pytest.mark.parametrize("code", [
    # idioms of real kernel wrappers (FlagGems ops, Liger-Kernel's Triton ops)
    "def f(padding):\n    padding = tuple(padding.tolist())\n    left, right = padding\n    return left + right\n",
    "def f(x):\n    n = int(x.max().item())\n    return n\n",
    "def g(u):\n    return len(u)\ndef f(x):\n    sizes = x.tolist()\n    return g(sizes)\n",
    "import builtins\nm = builtins.min(1, 2)\nok = 'x' in builtins.__dict__\n",
    "import torch\ndef f():\n    return [getattr(torch, n) for n in ('float16', 'bfloat16')]\n",
    "import triton.language as tl\nNAME = 'float32'\nT = getattr(tl, NAME)\n",
    # a module-level tuple of names; another function's parameter of the same name is another name
    "import torch\n_N = ('float16', 'bfloat16')\nM = {getattr(torch, n): n for n in _N}\ndef g(n):\n    return n\n",
    # a scale read once per cache (vLLM's k_scale, v_scale): .item() in one loop over a short literal
    "def f(k_scale, v_scale):\n    return [s.item() for s in (k_scale, v_scale)]\n",
    "class P:\n    def execute(self):\n        return 1\ndef f():\n    return P().execute()\n",  # not os.exec*
    "def f(x):\n    return x.array.shape\n",  # an attribute named like a module, not the module
    "import numpy as np\nD = np.float32\nI = np.finfo(np.float32).max\n",
    "import importlib.util\nspec = importlib.util.spec_from_file_location('m', 'p')\n",
    "import importlib.metadata\nv = importlib.metadata.version('triton')\n",
    "import math\ndef f(x):\n    return math.prod(x.shape)\n",
    "def f(x, dims):\n    return [x.size(d) for d in dims]\n",
    "def f(array, cuda):\n    return array.shape, cuda\n",  # local names that happen to be module names
    # reads that compute nothing under a forbidden entry: precision flags, compile queries, metadata ops
    "import torch\nTF32 = torch.backends.cuda.matmul.allow_tf32\n",
    "import torch\n@torch.compiler.disable\ndef f(x):\n    return x\n",
    "from torch.compiler import is_compiling\nok = is_compiling()\n",
    "import torch\ndef f(x):\n    return torch._dynamo.is_compiling() or x\n",
    "import torch\ndef f(x):\n    return torch.ops.aten.is_non_overlapping_and_dense(x)\n",
    "import torch\ndef f(x, y):\n    return torch.ops.aten.is_same_size.default(x, y)\n",
    # dynamo's own name for compiler.disable (sglang's glue), and a graph mark on an autograd.Function (FP hunt 18)
    "import torch\n@torch._dynamo.disable\ndef f(x):\n    return x\n",
    "import torch\n@torch.compiler.allow_in_graph\nclass F(torch.autograd.Function):\n    pass\n",
    # allocation and out-of-place views by their aten names, as generated code writes them (FP hunt 17)
    "import torch\ndef f(x):\n    return torch.ops.aten.empty_strided.default(x.shape, x.stride(), dtype=x.dtype)\n",
    "import torch\ndef f(x):\n    return torch.ops.aten.as_strided(torch.ops.aten.view(x, [-1]), [2], [1])\n",
])
def test_real_kernel_idioms_pass(code):
    assert check_source(code).passed, check_source(code).evidence


@pytest.mark.parametrize(("code", "evidence"), [
    ("import torch\ntorch.backends.cuda.matmul.allow_tf32 = True\n",
     "c.py:2: torch.backends.cuda.matmul.allow_tf32: changing the precision policy of the evaluation"),
    ("import torch\nm = torch.backends.cuda.matmul\nm.allow_tf32 = True\n",
     "c.py:2: torch.backends.cuda.matmul: changing the precision policy of the evaluation"),
    ("import torch\ndel torch.backends.cuda.matmul.allow_tf32\n",
     "c.py:2: torch.backends.cuda.matmul.allow_tf32: changing the precision policy of the evaluation"),
    ("import torch\ntorch._dynamo.reset()\n",
     "c.py:2: torch._dynamo.reset: a second kernel generator (Dynamo hands graphs to Inductor) instead of the "
     "candidate's own Triton"),
    ("import torch\ny = torch.ops.aten.is_same_size.nonesuch\n",
     "c.py:2: torch.ops.aten.is_same_size.nonesuch: ATen compute called directly (the reference, not a kernel)"),
    ("import torch\ny = torch.ops.aten.set_(1, 2)\n",
     "c.py:2: torch.ops.aten.set_: ATen compute called directly (the reference, not a kernel)"),
    ("import torch\ny = torch.ops.aten.resize_.default(1, 2)\n",
     "c.py:2: torch.ops.aten.resize_.default: ATen compute called directly (the reference, not a kernel)"),
    ("import torch\ny = torch.ops.aten.zeros([2])\n",
     "c.py:2: torch.ops.aten.zeros: ATen compute called directly (the reference, not a kernel)"),
    ("import torch\ntorch.ops.aten.is_same_size = print\n",
     "c.py:2: torch.ops.aten.is_same_size: ATen compute called directly (the reference, not a kernel)"),
])
def test_allowed_reads_are_reads_only(code, evidence):
    v = check_source(code, "c.py")
    assert (v.status, v.evidence) == (Status.FORBIDDEN_API, evidence)


ROOT = Path(__file__).resolve().parents[1]


def _expected(path: Path) -> str:
    """The verdict a normal run gives: the static checks' (static=) where they catch it first, else expect=."""
    head = dict(p.split("=", 1) for p in path.read_text().splitlines()[0].split() if "=" in p)
    return head.get("static") or head["expect"]


HONEST = sorted(ROOT.joinpath("examples/solutions").glob("*.py")) + [
    p for p in sorted(ROOT.joinpath("tests/corpus").glob("*.py")) if _expected(p) not in ("forbidden_api", "compile_error")]


@pytest.mark.parametrize("path", HONEST, ids=lambda p: p.name)
def test_examples_and_corpus_pass_the_static_checks(path):
    """Every example solution, and every corpus candidate meant to be caught later, gets past this check."""
    v = check_source(path.read_text(), filename=path.name)
    assert v.passed, v.evidence


@pytest.mark.parametrize("path", [p for p in sorted(ROOT.joinpath("tests/corpus").glob("*.py"))
                                  if _expected(p) == "forbidden_api"], ids=lambda p: p.name)
def test_forbidden_corpus_is_caught_statically(path):
    assert check_source(path.read_text(), filename=path.name).status is Status.FORBIDDEN_API


@pytest.mark.parametrize("code", [
    "from torch.library import triton_op, wrap_triton\n",
    "import torch\n@torch.library.custom_op('mine::f', mutates_args=())\ndef f(x: torch.Tensor) -> torch.Tensor:\n"
    "    return x\n",
    "import torch\ntorch.library.register_fake('mine::f')\n",
])
def test_wrapping_own_kernels_in_a_custom_op_is_allowed(code: str) -> None:
    """vLLM and torch's documentation wrap Triton kernels in custom ops; the recorder runs their functions."""
    assert check_source(code).passed, check_source(code).evidence


@pytest.mark.parametrize("code", [
    "import torch\nlib = torch.library.Library('aten', 'IMPL')\n",
    "from torch.library import impl\n",
    "import torch\ntorch.library.define('mine::f', '(Tensor x) -> Tensor')\n",
])
def test_giving_an_op_a_python_kernel_stays_forbidden(code: str) -> None:
    v = check_source(code)
    assert v.status is Status.FORBIDDEN_API and "registering native kernels" in v.evidence, v.evidence


def test_a_forbidden_function_is_refused_under_any_module_that_re_exports_it() -> None:
    """Red team 25 reached torch.utils._python_dispatch's _get_current_dispatch_mode through torch._higher_order_ops."""
    for code in ("from torch._higher_order_ops.cond import _get_current_dispatch_mode\n",
                 "import torch._higher_order_ops.cond as c\nc._get_current_dispatch_mode()\n"):
        v = check_source(code)
        assert v.status is Status.FORBIDDEN_API and "torch.utils._python_dispatch" in v.evidence, (code, v.evidence)
    assert check_source("import torch\nrule = torch.library.custom_op\nrule.register_torch_dispatch\n").status \
        is Status.FORBIDDEN_API
    # a public name is torch's API wherever it is defined (torch.profiler.DeviceType is torch._C._autograd's)
    assert check_source("from torch.profiler import DeviceType\nimport torch\ntorch.autograd.DeviceType\n").passed


@pytest.mark.parametrize("code", [
    # Inductor's generated kernels, and kernels written in their style, call Inductor's Triton helpers
    "from torch._inductor.runtime import triton_helpers\nfrom torch._inductor.runtime.triton_helpers import libdevice, "
    "math as tl_math\ndef f(a, b):\n    return triton_helpers.maximum(a, b), tl_math.exp(a), libdevice.floor(b)\n",
    "import torch._inductor.runtime.triton_helpers as th\ndef f(a):\n    return th.welford_reduce, th.libdevice.floor(a)\n",
    "from torch._inductor.runtime.triton_helpers import promote_to_tensor\n",
])
def test_inductors_triton_device_functions_are_allowed(code: str) -> None:
    assert check_source(code).status is Status.PASSED, check_source(code).evidence


@pytest.mark.parametrize(("code", "evidence"), [
    # its host functions and the modules it imports are not device functions
    ("from torch._inductor.runtime import triton_helpers as th\nth.set_driver_to_cpu()\n",
     "c.py:2: torch._inductor.runtime.triton_helpers.set_driver_to_cpu: not one of torch._inductor.runtime."
     "triton_helpers's Triton device functions"),
    ("import torch._inductor.runtime.triton_helpers as th\nth.pymath.floor\n",
     "c.py:2: torch._inductor.runtime.triton_helpers.pymath.floor: not one of"),
    ("from torch._inductor.runtime.triton_helpers import triton\n",
     "c.py:1: from torch._inductor.runtime.triton_helpers import triton: not one of"),
    ("from torch._inductor.runtime import triton_heuristics\n",
     "c.py:1: from torch._inductor.runtime import triton_heuristics: a second kernel generator"),
    # a re-exported triton module is read as that module: its forbidden attributes stay forbidden
    ("import torch._inductor.runtime.triton_helpers as th\nth.tl.core.np\n", "c.py:2: .np: numpy reached through"),
])
def test_the_rest_of_inductor_stays_forbidden(code: str, evidence: str) -> None:
    v = check_source(code, "c.py")
    assert v.status is Status.FORBIDDEN_API and v.evidence.startswith(evidence), v.evidence
