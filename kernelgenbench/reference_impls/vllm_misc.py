"""vLLM 0.13.0 sampling and indexing ops (csrc/sampler.cu, csrc/permute_cols.cu): references and inputs.

Self-contained once embedded in a task record: it imports only torch and the shared helpers
(reference_impls/inline.py writes those in).
"""

from __future__ import annotations

import torch

from kernelgenbench.reference_impls.shared import _dtype


def apply_repetition_penalties_(
    logits: torch.Tensor, prompt_mask: torch.Tensor, output_mask: torch.Tensor, repetition_penalties: torch.Tensor
) -> None:
    """In place, for tokens seen in the prompt or the output: logit / penalty if logit > 0 else logit * penalty
    (one penalty per sequence, in the logits dtype); other logits untouched."""
    p = repetition_penalties.reshape(-1, 1).to(logits.dtype)
    seen = prompt_mask | output_mask
    new = torch.where(logits > 0, logits / p, logits * p)
    logits.copy_(torch.where(seen, new, logits))


def permute_cols(A: torch.Tensor, perm: torch.Tensor) -> torch.Tensor:
    """A new tensor D with D[..., j] = A[..., perm[j]] (fp16/bf16, last dim a multiple of 8)."""
    return A.reshape(-1, A.shape[-1])[:, perm.long()].reshape(A.shape).contiguous()


# ----------------------------------------------------------------------------------------------- inputs


def make_apply_repetition_penalties_inputs(params: dict, *, seed: int, device: str) -> dict:
    """Args as test_apply_repetition_penalties: logits ~ N(0,1); per sequence max(1, V//200) random prompt and
    output token ids marked seen; penalties = `repetition_penalty` (or U[1, 2) per sequence when 'random')."""
    g = torch.Generator().manual_seed(int(seed))
    n, v = int(params.get("num_seqs", 4)), int(params.get("vocab_size", 1019))
    dtype = _dtype(params.get("dtype", "float32"))
    logits = torch.randn(n, v, generator=g).to(dtype)
    marks = max(1, v // 200)
    prompt = torch.zeros(n, v, dtype=torch.bool)
    output = torch.zeros(n, v, dtype=torch.bool)
    prompt.scatter_(1, torch.randint(0, v, (n, marks), generator=g), True)
    output.scatter_(1, torch.randint(0, v, (n, marks), generator=g), True)
    pen = params.get("repetition_penalty", 1.05)
    if pen == "random":
        penalties = (1.0 + torch.rand(n, generator=g)).to(dtype)
    else:
        penalties = torch.full((n,), float(pen), dtype=dtype)
    return {"logits": logits.to(device), "prompt_mask": prompt.to(device), "output_mask": output.to(device),
            "repetition_penalties": penalties.to(device)}


def make_permute_cols_inputs(params: dict, *, seed: int, device: str) -> dict:
    """permute_cols args as test_permute_cols: A ~ N(0,1) of `shape` [M, K] (K a multiple of 8), perm a random
    int32 permutation of the K columns."""
    g = torch.Generator().manual_seed(int(seed))
    shape = params.get("shape", [1, 512])
    m, k = int(shape[0]), int(shape[-1])
    dtype = _dtype(params.get("dtype", "bfloat16"))
    return {"A": torch.randn(m, k, generator=g).to(dtype).to(device),
            "perm": torch.randperm(k, generator=g).to(torch.int32).to(device)}
