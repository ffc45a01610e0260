# kgb-honest: task=aten/sum.dim_IntList
"""Style: a hand-rolled autotuner. The first call for a (rows, cols, dtype) key times two BLOCK choices with
time.perf_counter (each run writes the full answer), keeps the faster in a module-level cache of dataclass
configs; later calls launch the cached config only."""
import dataclasses
import time

import torch
import triton
import triton.language as tl


@triton.jit
def _row_sum_kernel(x_ptr, out_ptr, rows, cols, ROWS: tl.constexpr, BLOCK: tl.constexpr):
    r = tl.program_id(0) * ROWS + tl.arange(0, ROWS)[:, None]
    acc = tl.zeros((ROWS, BLOCK), dtype=tl.float32)
    for c0 in range(0, cols, BLOCK):
        offs = c0 + tl.arange(0, BLOCK)[None, :]
        acc += tl.load(x_ptr + r * cols + offs, mask=(offs < cols) & (r < rows), other=0.0).to(tl.float32)
    s = tl.sum(acc, axis=1)
    rr = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    tl.store(out_ptr + rr, s.to(out_ptr.dtype.element_ty), mask=rr < rows)


@dataclasses.dataclass(frozen=True)
class Config:
    rows: int
    block: int


_CANDIDATES = (Config(1, 256), Config(4, 64))
_BEST: dict = {}


def _launch(cfg, x, out, rows, cols):
    _row_sum_kernel[(triton.cdiv(rows, cfg.rows),)](x, out, rows, cols, ROWS=cfg.rows, BLOCK=cfg.block)


def sum_dim_IntList(self, dim, keepdim=False, *, dtype=None):
    nd = self.dim()
    dims = sorted({d % max(nd, 1) for d in (dim if dim else range(nd))}) if nd else []
    keep = [d for d in range(nd) if d not in dims]
    out_dtype = dtype or (torch.int64 if not (self.dtype.is_floating_point or self.dtype.is_complex) else self.dtype)
    x = self.permute(*keep, *dims).contiguous() if nd else self.reshape(1)
    rows = 1
    for d in keep:
        rows *= self.shape[d]
    cols = x.numel() // rows if rows else 0
    out = torch.empty(rows, dtype=out_dtype, device=self.device)
    if rows:
        if cols:
            key = (rows, cols, x.dtype, out_dtype)
            cfg = _BEST.get(key)
            if cfg is None:
                times = []
                for c in _CANDIDATES:
                    t0 = time.perf_counter()
                    _launch(c, x, out, rows, cols)
                    times.append((time.perf_counter() - t0, c))
                cfg = _BEST[key] = min(times, key=lambda t: t[0])[1]
            _launch(cfg, x, out, rows, cols)
        else:
            out.zero_()
    shape = [1 if d in dims else self.shape[d] for d in range(nd)] if keepdim else [self.shape[d] for d in keep]
    return out.view(shape)
