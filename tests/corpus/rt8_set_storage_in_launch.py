# kgb-corpus: task=aten/mul.Tensor expect=torch_fallback
# (Red team 8.) The product done in Python, its float32 bytes put in an UntypedStorage built from a list
# (type(t.untyped_storage())(list): no op, and UntypedStorage never named), and the storage turned into a
# tensor with set_ and copied into the output -- all *inside* a Triton launch (the interpreted kernel body
# calls a plain function). host_data looks for aten::set_.source_Storage in report.ops only, not in the
# in-launch ops; launch_ops calls set_ a view and copy_ a copy (allowed outside copy tasks); the copy_ is
# exempt from small writes while the recorder is paused. Caught first by the kernel rules (compile_error: a plain
# function called from a kernel); since red team 25 by the copy_ beyond the interpreter's argument copies.
import io

import torch
import triton
import triton.language as tl

_JOB = {}


def _host_mul():
    out, xs, ys = _JOB.pop("job")
    raw = io.BytesIO(bytes(4 * len(xs))).getbuffer()
    view = type(raw)
    f = view.cast(raw, "f")
    for i in range(len(xs)):
        f[i] = xs[i] * ys[i]
    f.release()
    storage = type(out.untyped_storage())(list(raw.tobytes()))
    res = torch.empty(0, dtype=torch.float32).set_(storage, 0, out.shape, out.stride())
    out.copy_(res)


@triton.jit
def _kernel(out_ptr):
    _host_mul()


def mul_Tensor(self, other):
    x, y = torch.broadcast_tensors(self, other)
    out = torch.empty(x.shape, dtype=torch.result_type(self, other), device=self.device)
    _JOB["job"] = (out, x.reshape(-1).tolist()[:], y.reshape(-1).tolist()[:])
    _kernel[(1,)](out)
    return out
