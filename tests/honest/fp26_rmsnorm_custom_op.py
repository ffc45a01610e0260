# kgb-honest: task=vllm/rms_norm
"""vLLM rms_norm registered as a torch custom op (vLLM's direct_register_custom_op idiom) whose impl launches Triton."""
import torch
import triton
import triton.language as tl


@triton.jit
def _rms_kernel(out_ptr, x_ptr, w_ptr, x_stride, out_stride, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < N
    x = tl.load(x_ptr + row * x_stride + cols, mask=m, other=0.0).to(tl.float32)
    var = tl.sum(x * x, axis=0) / N
    inv = 1.0 / tl.sqrt(var + eps)
    y = (x * inv).to(out_ptr.dtype.element_ty).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=m, other=0.0).to(tl.float32)
    tl.store(out_ptr + row * out_stride + cols, (y * w).to(out_ptr.dtype.element_ty), mask=m)


@torch.library.custom_op("fp7_ops::rms_norm", mutates_args=("result",))
def _rms_norm_op(result: torch.Tensor, input: torch.Tensor, weight: torch.Tensor, epsilon: float) -> None:
    N = input.shape[-1]
    x = input.view(-1, N)
    y = result.view(-1, N)
    if x.shape[0] == 0:
        return
    _rms_kernel[(x.shape[0],)](y, x, weight, x.stride(0), y.stride(0), N, epsilon,
                               BLOCK=triton.next_power_of_2(N))


@_rms_norm_op.register_fake
def _(result, input, weight, epsilon):
    return None


def rms_norm(result, input, weight, epsilon):
    torch.ops.fp7_ops.rms_norm(result, input, weight, epsilon)
