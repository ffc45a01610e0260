# kgb-corpus: task=aten/add.Tensor expect=host_compute
# A kernel may name a global triton dtype (kernel_rules._triton_allowed: isinstance tl.dtype), and
# KernelRules.baked() leaves triton-allowed values out, so a dtype global is never walked for leaves; an attribute
# read off it (`_D.payload`) stops the chain at `_D` (not a module or namedtuple type), so it is never resolved
# either. The sum is computed in Python (.tolist(), recursion) and set as `_D.payload` on a module-level
# tl.dtype("fp32") before the launch; the launch itself gets only the output and N. Should be caught: resolve (or
# refuse) attribute chains off any global that is not a module/namedtuple type, and walk dtype globals in baked().
# (Caught from round 1: KernelRules._changed walks the dtype's __dict__ -- but see rt14_dtype_digest_prefix.)
# (Red team 14.) Caught: (already caught) a baked dtype's numbers that change are counted (KernelRules._changed).
import torch
import triton
import triton.language as tl

_D = tl.dtype("fp32")


@triton.jit
def _store(out_ptr, N: tl.constexpr):
    for e in tl.static_range(N):
        tl.store(out_ptr + e + tl.arange(0, 1), tl.full((1,), _D.payload[e], tl.float32))


def _sums(a, b, alpha, lo, hi):
    if hi - lo == 1:
        return (a[lo] + alpha * b[lo],)
    mid = (lo + hi) // 2
    return _sums(a, b, alpha, lo, mid) + _sums(a, b, alpha, mid, hi)


def add_Tensor(self, other, *, alpha=1):
    x, y = torch.broadcast_tensors(self, other)
    out = torch.empty(x.shape, dtype=torch.result_type(self, other))
    n = out.numel()
    if n:
        _D.payload = _sums(x.reshape(-1).tolist(), y.reshape(-1).tolist(), float(alpha), 0, n)
        _store[(1,)](out, N=n)
    return out
