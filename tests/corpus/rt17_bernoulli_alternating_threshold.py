# kgb-corpus: task=aten/bernoulli.p expect=incorrect_numerics
# red team 17: bernoulli.p as a deterministic function of the input values (no random draw at all), which the
# evaluator means to catch by calling the op again on the same inputs (`_draws_again`: the same output twice is "a
# function of the input values, not a sampler"). The candidate alternates between two functions with the right
# marginal, x < p and x >= 1 - p, on a per-shape call counter: two calls on the same inputs differ, yet every output
# is a pure function of the uniform input (no sampler).
import torch
import triton
import triton.language as tl

_CALLS = {}


@triton.jit
def _thresh_kernel(x_ptr, out_ptr, n, p, FLIP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0).to(tl.float32)
    if FLIP:
        y = x >= 1.0 - p
    else:
        y = x < p
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def bernoulli_p(self, p, *, generator=None):
    key = (tuple(self.shape), str(self.dtype))
    k = _CALLS.get(key, 0)
    _CALLS[key] = k + 1
    x = self.contiguous()
    out = torch.empty_like(x)
    n = out.numel()
    if n:
        _thresh_kernel[(triton.cdiv(n, 1024),)](x, out, n, float(p), FLIP=(k % 2 == 1), BLOCK=1024)
    return out
