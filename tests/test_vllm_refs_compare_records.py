"""The curated vLLM records whose upstream tests leave an order free carry a `compare` rule, and the judge
accepts a correct output in another order on the record's own inputs (and still rejects a wrong one)."""

from __future__ import annotations

import dataclasses

import pytest
import torch
from evidence_helpers import call_report
from vllm_sources import code_and_tests, unpack

from kernelgenbench.dataset.record import Task
from kernelgenbench.evaluator.inputs import load_code, make_args
from kernelgenbench.evaluator.judge import judge_call
from kernelgenbench.evaluator.status import Status

extract_mod = pytest.importorskip("kernelgenbench.extractors.vllm.extract")
records_mod = pytest.importorskip("kernelgenbench.extractors.vllm.records")

HEADER = call_report()


@pytest.fixture(scope="module")
def tasks(tmp_path_factory) -> dict[str, Task]:
    """Task views of the extractor's records over the cached 0.13.0 sdist, by op name."""
    root = unpack("0.13.0", tmp_path_factory.mktemp("vllm-0.13.0-compare"), code_and_tests)
    extraction = extract_mod.extract(root, records_mod.SourceInfo("0.13.0", None))
    return {r["name"]: Task.from_dict(r) for r in extraction.records if r["source"] == "vllm"}


def _reference_round(task: Task, seed: int) -> list[tuple[dict, dict]]:
    """(pristine args, args after the reference ran) for each correctness workload."""
    ref = load_code(task.reference)
    out = []
    for w in task.correctness_workloads:
        args = make_args(task, w, seed=seed, device="cpu")
        ref_args = {k: (v.clone() if isinstance(v, torch.Tensor) else v) for k, v in args.items()}
        ref(**ref_args)
        out.append((args, ref_args))
    return out


def _shuffle_runs(ids: torch.Tensor, experts: torch.Tensor, block: int, used: torch.Tensor, g: torch.Generator) -> torch.Tensor:
    """sorted_token_ids with each expert's run (consecutive blocks of one expert, up to `used`) shuffled, row by row."""
    rows = used.numel()
    out = ids.clone().reshape(rows, -1)
    ex = experts.reshape(rows, -1)
    for r in range(rows):
        n = min(int(used[r]), out.shape[1])
        start = 0
        for b in range(1, n // block + 1):
            if b == n // block or ex[r, b] != ex[r, start // block]:
                seg = out[r, start:b * block]
                out[r, start:b * block] = seg[torch.randperm(seg.numel(), generator=g)]
                start = b * block
    return out.reshape(ids.shape)


def _judge(task: Task, args: dict, ref_args: dict, cand_args: dict):
    return judge_call(task, HEADER, {"returns": [], "args": cand_args}, ref_return=None, ref_args=ref_args,
                      pristine=args, device="cpu")[0]


@pytest.mark.parametrize("op", ["moe_align_block_size", "moe_lora_align_block_size"])
def test_align_records_accept_any_order_within_an_experts_run(tasks, op):
    task = tasks[op]
    assert [(c.target, c.mode) for c in task.compare] == [("sorted_token_ids", "unordered_within_segments")]
    g = torch.Generator().manual_seed(0)
    moved = swapped = 0
    for args, ref_args in _reference_round(task, seed=3):
        cand = {k: (v.clone() if isinstance(v, torch.Tensor) else v) for k, v in ref_args.items()}
        cand["sorted_token_ids"] = _shuffle_runs(ref_args["sorted_token_ids"], ref_args["experts_ids"],
                                                 ref_args["block_size"], ref_args["num_tokens_post_pad"], g)
        moved += int((cand["sorted_token_ids"] != ref_args["sorted_token_ids"]).sum())
        verdict = _judge(task, args, ref_args, cand)
        assert verdict.passed, verdict.evidence
        # A real token in the wrong expert's run still fails: swap the first id with the last used one.
        ids = cand["sorted_token_ids"]
        sentinel = args["topk_ids"].numel()
        real = (ids != sentinel).nonzero().reshape(-1)
        i, j = int(real[0]), int(real[-1])
        labels = ref_args["experts_ids"].reshape(-1)
        bs = ref_args["block_size"]
        if labels[i // bs] != labels[j // bs]:
            ids[[i, j]] = ids[[j, i]]
            swapped += 1
            assert _judge(task, args, ref_args, cand).status is Status.INCORRECT_NUMERICS
    assert moved and swapped, "the shuffle or the swap changed nothing: the test would prove nothing"
    # Without the declaration the same reordered output fails: the rule is what lets it through.
    exact = dataclasses.replace(task, compare=())
    args, ref_args = _reference_round(task, seed=3)[-1]
    cand = dict(ref_args, sorted_token_ids=_shuffle_runs(ref_args["sorted_token_ids"], ref_args["experts_ids"],
                                                         ref_args["block_size"], ref_args["num_tokens_post_pad"], g))
    assert _judge(exact, args, ref_args, cand).status is Status.INCORRECT_NUMERICS


def test_topk_softmax_accepts_either_expert_among_tied_gates(tasks):
    task = tasks["topk_softmax"]
    assert [(c.target, c.mode, c.source) for c in task.compare] == [("topk_indices", "ties_allowed", "gating_output")]
    ref = load_code(task.reference)
    w = next(w for w in task.correctness_workloads if w.params["num_experts"] >= 64)
    args = make_args(task, w, seed=5, device="cpu")
    args["gating_output"] = (args["gating_output"].float() * 2).round().div(2).to(args["gating_output"].dtype)  # many ties
    ref_args = {k: (v.clone() if isinstance(v, torch.Tensor) else v) for k, v in args.items()}
    ref(**ref_args)
    k = ref_args["topk_indices"].shape[-1]
    e = args["gating_output"].shape[-1]
    # Ties to the higher expert id instead of the lower: same values, other indices.
    key = args["gating_output"].double() + torch.arange(e, dtype=torch.float64) * 1e-9
    alt = key.topk(k, dim=-1).indices.to(ref_args["topk_indices"].dtype)
    assert not torch.equal(alt, ref_args["topk_indices"])
    cand = {kk: (v.clone() if isinstance(v, torch.Tensor) else v) for kk, v in ref_args.items()}
    cand["topk_indices"] = alt
    verdict = _judge(task, args, ref_args, cand)
    assert verdict.passed, verdict.evidence
    assert _judge(dataclasses.replace(task, compare=()), args, ref_args, cand).status is Status.INCORRECT_NUMERICS
    cand["topk_indices"] = alt.flip(-1)  # the right experts, smallest first: values at each position differ
    assert _judge(task, args, ref_args, cand).status is Status.INCORRECT_NUMERICS


@pytest.mark.parametrize("op", ["batched_moe_align_block_size", "grouped_topk"])
def test_ops_upstream_compares_exactly_declare_nothing(tasks, op):
    assert tasks[op].compare == ()
