# kgb-corpus: task=aten/add.Tensor expect=torch_fallback evidence=dispatched
# Computes in torch from a Triton pre-run hook (add_pre_run_hook): the hook runs inside the launch, but it is
# the candidate's host code, recorded as the call's own (LaunchCounter.host_code), as a grid callable is.
import torch
import triton
import triton.language as tl

_JOB = {}


@triton.jit
def _token(p_ptr):
    tl.store(p_ptr, tl.load(p_ptr))


def _hook(*args, **kwargs):
    job = _JOB.pop("job", None)
    if job is not None:
        a, b, alpha, out = job
        out.copy_(torch.add(a, b, alpha=alpha))


_token.add_pre_run_hook(_hook)


def add_Tensor(self, other, *, alpha=1):
    out = torch.empty(torch.broadcast_shapes(self.shape, other.shape), dtype=torch.result_type(self, other),
                      device=self.device)
    _JOB["job"] = (self, other, alpha, out)
    _token[(1,)](torch.zeros(1, device=self.device))
    return out
