"""selective_scan_fwd against a closed-form (segment-sum) evaluation of the recurrence, on CPU."""

from __future__ import annotations

import pytest
import torch

from kernelgenbench.reference_impls import vllm_ssm as vs


def _closed_form(u, dt_raw, A, B, C, D, z, bias, x0):
    """y_t = sum_{k<=t} C_t . (exp(A * sum_{k<j<=t} dt_j) dt_k u_k B_k) + C_t . exp(A * sum_{j<=t} dt_j) x0."""
    dt = dt_raw.double() + bias.double()[:, None]
    dt = torch.nn.functional.softplus(dt)
    cs = dt.cumsum(1)  # [dim, L]
    seg = cs[:, :, None] - cs[:, None, :]  # [dim, t, k] = sum_{k<j<=t} dt_j
    length = u.shape[1]
    tri = torch.ones(length, length, dtype=torch.bool).tril()
    decay = torch.exp(seg[:, :, :, None] * A.double()[:, None, None, :])  # [dim, t, k, n]
    decay = torch.where(tri[None, :, :, None], decay, 0.0)
    inp = (dt * u.double())[:, None, :, None] * B.double().permute(0, 2, 1)[:, None, :, :]  # [dim, 1, k, n]
    x = (decay * inp).sum(2) + torch.exp(cs[:, :, None] * A.double()[:, None, :]) * x0.double()[:, None, :]
    y = (x * C.double().permute(0, 2, 1)).sum(-1) + D.double()[:, None] * u.double()
    return y, y * z.double() * torch.sigmoid(z.double()), x


def _check_seq(a, orig, b, lo, hi, slot, tol):
    g = orig["B"].shape[0]
    dim = orig["u"].shape[0]
    Bd = orig["B"][:, :, lo:hi].repeat_interleave(dim // g, 0)
    Cd = orig["C"][:, :, lo:hi].repeat_interleave(dim // g, 0)
    x0 = orig["ssm_states"][slot] if bool(orig["has_initial_state"][b]) else torch.zeros(dim, Bd.shape[1])
    y, gated, x = _closed_form(orig["u"][:, lo:hi], orig["delta"][:, lo:hi], orig["A"], Bd, Cd, orig["D_"],
                               orig["z_"][:, lo:hi], orig["delta_bias_"], x0)
    torch.testing.assert_close(a["delta"][:, lo:hi].double(), y, **tol)
    torch.testing.assert_close(a["z_"][:, lo:hi].double(), gated, **tol)
    torch.testing.assert_close(a["ssm_states"][slot].double(), x[:, -1], **tol)
    return x


@pytest.mark.parametrize("itype", ["float32", "bfloat16"])
@pytest.mark.parametrize("groups", [1, 2])
def test_selective_scan_varlen_matches_closed_form(itype, groups):
    p = dict(seqlen=120, varBC_groups=groups, itype=itype, with_padding=True)
    a = vs.make_selective_scan_fwd_inputs(p, seed=0, device="cpu")
    orig = {k: (v.clone() if isinstance(v, torch.Tensor) else v) for k, v in a.items()}
    vs.selective_scan_fwd(**a)
    tol = dict(atol=2e-3, rtol=6e-4) if itype == "float32" else dict(atol=5e-2, rtol=3e-2)
    qsl = a["query_start_loc"].tolist()
    slots = a["cache_indices"].tolist()
    assert slots[-3:] == [-1, -1, -1]
    for b, slot in enumerate(slots):
        lo, hi = qsl[b], qsl[b + 1]
        if slot == -1:  # padding: nothing written
            assert torch.equal(a["delta"][:, lo:hi], orig["delta"][:, lo:hi])
            assert torch.equal(a["z_"][:, lo:hi], orig["z_"][:, lo:hi])
            continue
        _check_seq(a, orig, b, lo, hi, slot, tol)
    untouched = [i for i in range(a["ssm_states"].shape[0]) if i not in slots]
    assert torch.equal(a["ssm_states"][untouched], orig["ssm_states"][untouched])


def test_selective_scan_dense_chunks_carry_state():
    p = dict(seqlen=96, varlen=False, varBC_groups=2, itype="float32")
    a = vs.make_selective_scan_fwd_inputs(p, seed=1, device="cpu")
    whole = {k: (v.clone() if isinstance(v, torch.Tensor) else v) for k, v in a.items()}
    vs.selective_scan_fwd(**whole)
    halves = {k: (v.clone() if isinstance(v, torch.Tensor) else v) for k, v in a.items()}
    for lo, hi in ((0, 40), (40, 96)):
        part = dict(halves)
        for k in ("u", "delta", "B", "C", "z_"):
            part[k] = halves[k][..., lo:hi]
        vs.selective_scan_fwd(**part)  # has_initial_state is all True: the second call resumes the first
    for k in ("delta", "z_", "ssm_states"):
        torch.testing.assert_close(halves[k], whole[k], atol=1e-5, rtol=1e-5)


def test_selective_scan_prefix_cache_writes_block_states():
    p = dict(seqlen=40, batch_size=1, itype="float32", with_padding=False)
    a = vs.make_selective_scan_fwd_inputs(p, seed=2, device="cpu")
    orig = {k: (v.clone() if isinstance(v, torch.Tensor) else v) for k, v in a.items()}
    # one sequence of 40 tokens in blocks of 16: states after tokens 16, 32 and 40 go to slots 5, 7, 2
    a.update(cache_indices=torch.tensor([[3, 5, 7, 2]], dtype=torch.int32), block_size=16,
             has_initial_state=torch.tensor([True]),
             block_idx_first_scheduled_token=torch.tensor([1], dtype=torch.int32),
             block_idx_last_scheduled_token=torch.tensor([3], dtype=torch.int32),
             initial_state_idx=torch.tensor([0], dtype=torch.int32))
    vs.selective_scan_fwd(**a)
    dim = orig["u"].shape[0]
    Bd, Cd = orig["B"].repeat_interleave(dim, 0), orig["C"].repeat_interleave(dim, 0)
    y, _, x = _closed_form(orig["u"], orig["delta"], orig["A"], Bd, Cd, orig["D_"], orig["z_"],
                           orig["delta_bias_"], orig["ssm_states"][3])
    torch.testing.assert_close(a["delta"].double(), y, atol=2e-3, rtol=6e-4)
    for slot, t in ((5, 15), (7, 31), (2, 39)):
        torch.testing.assert_close(a["ssm_states"][slot].double(), x[:, t], atol=2e-3, rtol=6e-4)
    assert torch.equal(a["ssm_states"][3], orig["ssm_states"][3])
