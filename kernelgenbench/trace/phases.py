"""What a training or serving loop runs around the model's forward and backward, each by the libraries' own code.

- 'data': batch preparation on the host, on real CPU tensors as a DataLoader worker runs it (transformers'
  masked-LM collator, Whisper's log-mel feature extractor).
- 'train': forward, loss and backward (kernelgenbench.trace.run).
- 'optimizer': gradient clipping (torch.nn.utils.clip_grad_norm_) and one torch.optim.AdamW step, with the
  foreach and fused implementations off so each parameter's aten ops show one by one.
- 'generate': transformers' `generate` sampling (temperature, top-k, top-p): the prompt's prefill and one
  decode step on its KV cache (dynamic, or a static cache reset for the next request).
"""

from __future__ import annotations

import functools
from typing import Any

import torch

# Decoder pre-training as the Llama papers run it: AdamW with decoupled weight decay on matrices only,
# betas (0.9, 0.95), gradients clipped to norm 1.0.
LR, BETAS, WEIGHT_DECAY, EPS, MAX_NORM = 3e-4, (0.9, 0.95), 0.1, 1e-8, 1.0
# Sampling as chat models ship it in their generation_config.json.
SAMPLING = {"do_sample": True, "temperature": 0.7, "top_k": 50, "top_p": 0.9}


def make_optimizer(model: torch.nn.Module) -> torch.optim.Optimizer:
    """AdamW over the model's parameters, weight decay on matrices, per-tensor (not foreach, not fused)."""
    params = [p for p in model.parameters() if p.requires_grad]
    groups = [{"params": [p for p in params if p.dim() >= 2], "weight_decay": WEIGHT_DECAY},
              {"params": [p for p in params if p.dim() < 2], "weight_decay": 0.0}]
    return torch.optim.AdamW([g for g in groups if g["params"]], lr=LR, betas=BETAS, eps=EPS,
                             foreach=False, fused=False)


def optimizer_step(model: torch.nn.Module, optimizer: torch.optim.Optimizer) -> None:
    """Clip the gradients' global norm and take one optimizer step (what a training loop does per step)."""
    torch.nn.utils.clip_grad_norm_(model.parameters(), MAX_NORM, foreach=False)
    optimizer.step()


def sample(model: Any, batch: int, prompt: int, vocab: int, static: bool = False) -> None:
    """Sample one token after a `batch` x `prompt` prompt, then one more on the returned KV cache.

    On the meta device `generate` stops after one token (its 'all sequences finished' test reads a value a
    meta tensor lacks), so the decode step is a second call that continues from the cache, as a chat
    server continues a conversation. `static`: the cache is a preallocated StaticCache (the layout
    torch.compile'd serving uses), reset for the next request as transformers documents for reusing it.
    """
    import transformers

    ids = torch.randint(0, vocab, (batch, prompt), device="meta")
    cache = transformers.StaticCache(config=model.config, max_cache_len=prompt + 2) if static else None
    first = model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), max_new_tokens=1, pad_token_id=0,
                           return_dict_in_generate=True, past_key_values=cache, **SAMPLING)
    seq = first.sequences
    model.generate(input_ids=seq, attention_mask=torch.ones_like(seq), past_key_values=first.past_key_values,
                   max_new_tokens=1, pad_token_id=0, **SAMPLING)
    if cache is not None:
        cache.reset()


@functools.cache
def _bert_tokenizer() -> Any:
    """bert-base-uncased's special tokens and vocabulary size (30,522), built in code: no download."""
    import transformers

    vocab = {"[PAD]": 0, **{f"[unused{i}]": i for i in range(1, 100)}, "[UNK]": 100, "[CLS]": 101, "[SEP]": 102,
             "[MASK]": 103, **{f"w{i}": i for i in range(104, 30522)}}
    return transformers.BertTokenizerFast(vocab=vocab)


def mlm_batch(batch: int, seq: int) -> None:
    """transformers' DataCollatorForLanguageModeling (15% masking, 80/10/10) on `batch` tokenized texts."""
    import transformers

    tok = _bert_tokenizer()
    collator = transformers.DataCollatorForLanguageModeling(tok, mlm_probability=0.15, return_tensors="pt")
    words = list(range(1000, 1000 + seq - 2))
    collator([{"input_ids": [tok.cls_token_id, *words, tok.sep_token_id]} for _ in range(batch)])


def log_mel_batch(batch: int, seconds: int = 30) -> None:
    """Whisper's feature extractor (torch STFT, mel filter bank, log10) on `batch` clips of 16 kHz audio."""
    import numpy as np
    import transformers

    extractor = transformers.WhisperFeatureExtractor()
    audio = [np.zeros(16000 * seconds, dtype=np.float32) for _ in range(batch)]
    extractor(audio, sampling_rate=16000, return_tensors="pt")
