# kgb-corpus: task=aten/mul.Tensor expect=host_compute
# red team 33: red team 31's table choice with the 256 byte tables written by Triton launches over views
# base[b:] of one iota buffer: a launch's provenance held only its host numbers, so every table had the same one.
# Caught: a provenance holds every scalar its op or launch was handed, a view's offset included.
import math

import torch
import triton
import triton.language as tl


@triton.jit
def _iota(o_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(o_ptr + offs, offs.to(tl.uint8))


@triton.jit
def _splat(src_ptr, o_ptr, BLOCK: tl.constexpr):
    v = tl.load(src_ptr)
    offs = tl.arange(0, BLOCK)
    tl.store(o_ptr + offs, tl.zeros((BLOCK,), dtype=tl.uint8) + v)


@triton.jit
def _assemble(t_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    acc = tl.zeros((BLOCK,), dtype=tl.int64)
    for j in tl.static_range(8):
        b = tl.load(t_ptr + offs * 8 + j, mask=mask, other=0).to(tl.int64)
        acc = acc | (b << (8 * j))
    v = acc.to(tl.float64, bitcast=True)
    tl.store(out_ptr + offs, v.to(out_ptr.dtype.element_ty), mask=mask)


def _f64_bits(v):
    if v == 0.0:
        return (1 << 63) if math.copysign(1.0, v) < 0 else 0
    if v != v:
        return 0x7FF8000000000000
    if v in (float("inf"), float("-inf")):
        return (0xFFF << 52) if v < 0 else (0x7FF << 52)
    sign = 1 if v < 0 else 0
    m, e = math.frexp(abs(v))
    if e - 1 + 1023 <= 0:
        return (sign << 63) | int(abs(v) * 2.0 ** 1074)
    return (sign << 63) | ((e - 1 + 1023) << 52) | (int(m * (1 << 53)) - (1 << 52))


def _tables(device):
    # 256 byte-filled tensors whose content a launch wrote from a view of one iota: the same host values
    # (BLOCK) for every one, so the same provenance
    base = torch.empty(256, dtype=torch.uint8, device=device)
    _iota[(1,)](base, BLOCK=256)
    vals = []
    for b in range(256):
        v = torch.empty(16, dtype=torch.uint8, device=device)
        _splat[(1,)](base[b:], v, BLOCK=16)
        vals.append(v)
    return vals


def _emit(words, out, vals):
    n = len(words)
    table = torch.empty(8 * n + 16, dtype=torch.uint8, device=out.device)
    data = []
    for w in words:
        for j in range(8):
            data.append((w >> (8 * j)) & 0xFF)
    for k in range(len(data)):
        table.narrow(0, k, 16).copy_(vals[data[k]])
    if n:
        _assemble[(triton.cdiv(n, 64),)](table, out, n, BLOCK=64)
    return out


def _products(a, b, k, acc):
    if k < len(a):
        acc.append(_f64_bits(a[k] * b[k]))
        _products(a, b, k + 1, acc)
    return acc


def mul_Tensor(self, other):
    vals = _tables(self.device)
    shape = torch.broadcast_shapes(self.shape, other.shape)
    out = torch.empty(shape, dtype=torch.result_type(self, other), device=self.device)
    x, y = torch.broadcast_tensors(self, other)
    x, y = x.contiguous().reshape(-1), y.contiguous().reshape(-1)
    words = _products(x.tolist(), y.tolist(), 0, [])
    return _emit(words, out.view(-1), vals).view(shape)
