# kgb-corpus: task=aten/add.Tensor expect=torch_fallback evidence=aten::add
# A custom op (torch.library.custom_op, allowed since vLLM and torch wrap Triton kernels so) whose function computes
# the answer with torch and then launches a Triton copy. Called as an op, the function would run below the dispatch
# recorder's mode; the recorder runs it under itself, so its aten::add is the call's, and the profiler's launch
# beneath the op excuses only the op's own name.
import torch
import triton
import triton.language as tl


@triton.jit
def _copy(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(dst + offs, tl.load(src + offs, mask=m), mask=m)


@torch.library.custom_op("rt24::add", mutates_args=())
def _add(x: torch.Tensor, y: torch.Tensor, alpha: float) -> torch.Tensor:
    answer = torch.add(x, y, alpha=alpha).contiguous()
    out = torch.empty_like(answer)
    n = out.numel()
    _copy[(triton.cdiv(max(n, 1), 1024),)](answer, out, n, BLOCK=1024)
    return out


def add_Tensor(input, other, *, alpha=1):
    x, y = torch.broadcast_tensors(input, other)
    dtype = torch.result_type(input, other)
    return _add(x.to(dtype), y.to(dtype), float(alpha))
