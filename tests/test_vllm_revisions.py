"""The curated vLLM references at every checked release (0.13.0, 0.33.0, 0.34.0, from the cached sdists).

Each curated entry declares the schema its op had at each checked release (`schema`, then `revisions`) or
the release that removed it (`removed`). Here the declarations are held against the real sources, the
adapted references run on the inputs generated for their release's schema through the evaluator's input
path, and they agree with the 0.13.0 reference where the semantics are the same.
"""

from __future__ import annotations

import importlib
import math
from typing import Any

import pytest
import torch
from vllm_sources import code_and_tests, unpack

from kernelgenbench.dataset.record import Task
from kernelgenbench.dataset.schema import record_errors
from kernelgenbench.evaluator.inputs import load_code, make_args
from kernelgenbench.extractors.vllm.curated import CuratedEntry, load_curated_data
from kernelgenbench.extractors.vllm.extract import Extraction, extract
from kernelgenbench.extractors.vllm.records import SourceInfo

CURATED = load_curated_data()
LATER = ("0.33.0", "0.34.0")
# Curated ops vLLM dropped, with the first checked release that lacks each (declared as `removed`).
REMOVED_AT_033 = {"convert_vertical_slash_indexes", "copy_blocks", "copy_blocks_mla", "paged_attention_v1",
                  "paged_attention_v2", "permute_cols", "allspark_w8a16_gemm", "ggml_dequantize", "ggml_moe_a8",
                  "ggml_moe_a8_vec", "ggml_mul_mat_a8", "ggml_mul_mat_vec_a8", "gptq_marlin_24_gemm"}
REMOVED = {"0.13.0": set(), "0.33.0": REMOVED_AT_033, "0.34.0": REMOVED_AT_033 | {"marlin_int4_fp8_preprocess"}}


@pytest.fixture(scope="module", params=LATER)
def later(request, tmp_path_factory) -> Extraction:
    version = request.param
    root = unpack(version, tmp_path_factory.mktemp(f"vllm-{version}"), code_and_tests)
    return extract(root, SourceInfo(version, None))


def test_checked_revisions_are_declared() -> None:
    assert CURATED.checked == ("0.13.0", "0.33.0", "0.34.0")
    assert CURATED.problems == ()


def test_later_release_counts(later: Extraction) -> None:
    version = later.source.version
    states = {c.name: c.state for c in later.curated}
    removed = {n for n, s in states.items() if s == "removed"}
    assert removed == REMOVED[version]
    # every curated op vLLM still has gets a reference for this release's schema, none is a mismatch
    assert {n for n, s in states.items() if s != "ok"} == removed, {n: s for n, s in states.items() if s != "ok"}
    summary = later.summary()
    assert f"curated with reference: {50 - len(removed)}/50" in summary
    assert "schema mismatches: 0;" in summary and "curated absent: 0;" in summary
    assert f"curated removed upstream: {len(removed)}" in summary
    detail = next(c.detail for c in later.curated if c.name == "paged_attention_v1")
    assert detail == "dropped by vLLM: paged_attention_v1 is in no checked release from 0.33.0 on"


def test_later_records_carry_the_revision_reference(later: Extraction) -> None:
    version = later.source.version
    by_id = {r["id"]: r for r in later.records}
    assert later.invalid == ()
    for op, entry in CURATED.entries.items():
        if entry.removed_at(version):
            assert f"vllm/{op}" not in by_id, op
            continue
        rec = by_id.get(f"vllm/{op}") or by_id[f"vllm/{next(a for a, o in CURATED.aliases.items() if o == op)}"]
        d = rec["details"]["vllm"]
        assert record_errors(rec) == [], op
        assert d["reference_status"] == "ok", (op, d["schema_differences"])
        assert version in d["reference_checked"], (op, d["reference_checked"])
        assert {w["purpose"] for w in rec["workloads"]} == {"correctness", "performance"}, op
        declared = [e for e, revs in entry.schemas(CURATED.checked) if version in revs]
        assert len(declared) == 1 and rec["reference"]["function"] == declared[0].function, op
        assert rec["inputs"]["function"] == declared[0].inputs, op
        if declared[0] is not entry:  # an adapted reference: run it as the evaluator would
            task = Task.from_dict(rec)
            ref = load_code(task.reference)
            for w in [w for w in task.workloads if w.purpose == "correctness"][:2]:
                kwargs = make_args(task, w, seed=3, device="cpu")
                assert set(kwargs) == {p.name for p in task.params}, (op, w.id)
                ref(*[kwargs[p.name] for p in task.params])
    rms = by_id["vllm/rms_norm"]
    assert rms["reference"]["function"] == "rms_norm_v033" and "rounded once" in rms["description"]
    assert rms["details"]["vllm"]["reference_checked"] == ["0.33.0", "0.34.0"]
    grouped = by_id["vllm/grouped_topk"]["details"]["vllm"]["reference_checked"]
    assert grouped == (["0.13.0", "0.33.0"] if version == "0.33.0" else ["0.34.0"])


def _close(a: Any, b: Any, tol: dict[str, dict[str, float]]) -> bool:
    if isinstance(a, torch.Tensor):
        if a.dtype in (torch.float8_e4m3fn, torch.float8_e5m2):
            a, b = a.float(), b.float()
        if not a.is_floating_point():
            return torch.equal(a, b)
        t = tol.get(str(a.dtype).removeprefix("torch."), {"atol": 1e-5, "rtol": 1e-5})
        return torch.allclose(a.float(), b.float(), atol=t["atol"], rtol=t["rtol"], equal_nan=True)
    if isinstance(a, tuple | list):
        return len(a) == len(b) and all(_close(x, y, tol) for x, y in zip(a, b, strict=True))
    return a == b


def _adapted_pairs() -> list[tuple[str, str]]:
    """(op, release) for every entry whose schema at a later release is a declared revision."""
    return [(op, r.since) for op, e in sorted(CURATED.entries.items()) for r in e.revisions]


def _revision(entry: CuratedEntry, since: str) -> CuratedEntry:
    return next(e for e, revs in entry.schemas(CURATED.checked) if revs and revs[0] == since)


def _arg_names(schema: str) -> list[str]:
    return [a.name for a in torch._C.parse_schema(schema).arguments]


# Where a later kernel really writes something else, what makes its output the 0.13.0 one (asserted apart).
SAME_AFTER = {
    # from 0.33.0 the blocks past the used ones get expert id -1, where 0.13.0 wrote 0
    ("moe_align_block_size", "experts_ids"): lambda t: t.clamp_min(0),
}


@pytest.mark.parametrize(("op", "since"), _adapted_pairs())
def test_adapted_reference_agrees_with_013(op: str, since: str) -> None:
    """On each of the entry's correctness cases: the adapted reference takes the inputs generated for its
    schema (called in that schema's argument order), and gives the tensors the 0.13.0 reference gives on the
    0.13.0 generator's inputs for the same case (new arguments at their neutral values; act-order, gone
    from 0.33.0's GPTQ kernels, off)."""
    entry = CURATED.entries[op]
    rev = _revision(entry, since)
    module = importlib.import_module(entry.module)
    base_fn, base_inputs = getattr(module, entry.function), getattr(module, entry.inputs)
    fn, inputs = getattr(module, rev.function), getattr(module, rev.inputs)
    names = _arg_names(rev.schema)
    tol = {k: dict(v) for k, v in entry.tolerance.items()}
    for case in entry.correctness:
        params = {**entry.fixed, **rev.fixed, **case, "act_order": False, "is_k_full": True}
        if "a_scales" in _arg_names(entry.schema) and "a_scales" not in names:
            params.pop("a_dtype", None)  # 0.34.0's marlin_gemm has no 8-bit activations
        if "is_a_8bit" not in names:
            params["is_a_8bit"] = False  # nor the 0.34.0 repacks
        got_args = inputs(dict(params), seed=5, device="cpu")
        assert list(got_args) == names, (op, since, list(got_args))
        got = fn(*got_args.values())
        want_args = base_inputs(dict(params), seed=5, device="cpu")
        want = base_fn(**want_args)
        assert _close(got, want, tol), (op, since, case)
        for name, value in got_args.items():
            if isinstance(value, torch.Tensor) and isinstance(want_args.get(name), torch.Tensor):
                value = SAME_AFTER.get((op, name), lambda t: t)(value)
                assert _close(value, want_args[name], tol), (op, since, case, name)


def test_rms_norm_later_schema_without_weight_and_per_row() -> None:
    """rms_norm from 0.33.0: no weight is RMSNorm alone; a [tokens, hidden] weight scales each row."""
    from kernelgenbench.reference_impls import vllm_norm as m

    x = m.make_rms_norm_inputs_v033({"num_tokens": 5, "hidden_size": 64, "dtype": "float32", "weight": "none"},
                                    seed=1, device="cpu")
    assert x["weight"] is None
    m.rms_norm_v033(**x)
    rows = x["input"].float()
    want = rows * torch.rsqrt((rows * rows).mean(-1, keepdim=True) + 1e-6)
    assert torch.allclose(x["result"], want, atol=1e-6)
    y = m.make_rms_norm_inputs_v033({"num_tokens": 5, "hidden_size": 64, "dtype": "float32", "weight": "per_row"},
                                    seed=1, device="cpu")
    assert y["weight"].shape == (5, 64)
    m.rms_norm_v033(**y)
    assert torch.allclose(y["result"], want * y["weight"], atol=1e-5)


def test_later_arguments_have_their_upstream_meaning() -> None:
    """The arguments added after 0.13.0 at non-neutral values, against a direct statement of the kernel's rule."""
    from kernelgenbench.reference_impls import vllm_cache_blocks as blocks
    from kernelgenbench.reference_impls import vllm_moe as moe
    from kernelgenbench.reference_impls import vllm_rope as rope

    g = torch.Generator().manual_seed(0)
    logits = torch.randn(6, 8, generator=g)
    bias = torch.zeros(8)
    bias[7] = 100.0  # expert 7 always chosen, weighted by its unbiased softmax probability
    pad = torch.tensor([False, False, False, False, True, True])
    w, i, t = torch.empty(6, 2), torch.empty(6, 2, dtype=torch.int32), torch.empty(6, 2, dtype=torch.int32)
    moe.topk_softmax(w, i, t, logits, False, bias, pad)
    p = torch.softmax(logits, -1)
    assert (i[:4, 0] == 7).all() and (i[4:] == -1).all()
    assert torch.allclose(w[:, 0], p[:, 7])
    inp, out = torch.randn(3, 2, 16, generator=g), torch.empty(3, 16)
    moe.moe_sum_v033(inp, out, torch.tensor([[0, 1], [-1, 1], [2, 3]], dtype=torch.int32),
                     torch.tensor([0, 1, -1, 2], dtype=torch.int32))
    assert torch.allclose(out, torch.stack([inp[0, 0] + inp[0, 1], inp[1, 1], inp[2, 1]]))
    q = torch.randn(1, 1, 2, 8, generator=g)
    cache = rope.make_cos_sin_cache(4, 4, 10000.0, torch.float32)
    pos = torch.tensor([[3]])
    fwd = q.clone()
    rope.rotary_embedding_v033(pos, fwd, None, 8, cache, True, 2, False)
    assert torch.equal(fwd[..., :2], q[..., :2]) and torch.equal(fwd[..., 6:], q[..., 6:])
    rope.rotary_embedding_v033(pos, fwd, None, 8, cache, True, 2, True)  # the inverse rotation undoes it
    assert torch.allclose(fwd, q, atol=1e-6)
    x = moe.make_moe_align_block_size_inputs_v033({"num_tokens": 3, "num_experts": 8, "topk": 2, "block_size": 4,
                                                   "expert_map": True, "scatter_idx": True}, seed=0, device="cpu")
    moe.moe_align_block_size_v033(**x)
    used = int(x["num_tokens_post_pad"][0]) // 4
    assert (x["experts_ids"][used:] == -1).all() and (x["experts_ids"][:used] >= 0).all()
    kept = x["maybe_expert_map"].long()[x["topk_ids"].reshape(-1).long()] >= 0
    assert x["scatter_idx"].tolist() == [i if k else -1 for i, k in enumerate(kept.tolist())]
    src, dst = torch.arange(24.0).reshape(4, 6), torch.zeros(4, 6)
    blocks.swap_blocks_v033(src, dst, 12, torch.tensor([[1, 2]]))  # blocks of 12 bytes: 3 fp32 elements
    flat = dst.reshape(-1)
    assert flat[6:9].tolist() == [3.0, 4.0, 5.0] and math.isclose(float(flat.sum()), 12.0)
