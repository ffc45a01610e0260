"""The traced architectures: `transformers` configurations at their published sizes, built in code.

No configuration or weight is downloaded: every config is constructed here with the sizes its model card
publishes, the model is built on the meta device (no memory) and one training step (forward, loss,
backward) runs on meta inputs at a typical batch and sequence size. Attention runs the 'eager' path so the
trace holds the softmax, bmm and masking ops rather than one fused attention call. Parameters are bfloat16
(mixed-precision training as the H200 runs it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

DTYPE = torch.bfloat16


@dataclass(frozen=True)
class ModelSpec:
    """One architecture: its family, how to build it and its inputs, and the batch it runs."""

    name: str
    family: str  # decoder | encoder | encoder-decoder | vision | multimodal
    build: Callable[[], Any]  # () -> nn.Module (on the current default device)
    inputs: Callable[[], dict[str, Any]]  # () -> forward kwargs (meta tensors)
    batch: str  # human-readable batch description, stored in the data file


def _ids(batch: int, seq: int, vocab: int) -> torch.Tensor:
    return torch.randint(0, vocab, (batch, seq), device="meta")


def _lm(cls_name: str, cfg_name: str, batch: int, seq: int, labels: Callable[[torch.Tensor], Any] = lambda ids: ids,
        **cfg: Any) -> tuple[Callable, Callable]:
    """A causal or masked LM (labels: the input ids), or a classifier (labels from `labels`)."""

    def build() -> Any:
        import transformers

        config = getattr(transformers, cfg_name)(attn_implementation="eager", **cfg)
        return getattr(transformers, cls_name)(config)

    def inputs() -> dict[str, Any]:
        ids = _ids(batch, seq, cfg["vocab_size"])
        # A tokenizer always hands the model an attention mask; the model turns it into its mask ops.
        return {"input_ids": ids, "attention_mask": torch.ones_like(ids), "labels": labels(ids)}

    return build, inputs


def _seq2seq(cls_name: str, cfg_name: str, batch: int, src: int, tgt: int, **cfg: Any) -> tuple[Callable, Callable]:
    def build() -> Any:
        import transformers

        config = getattr(transformers, cfg_name)(attn_implementation="eager", **cfg)
        return getattr(transformers, cls_name)(config)

    def inputs() -> dict[str, Any]:
        ids = _ids(batch, src, cfg["vocab_size"])
        return {"input_ids": ids, "attention_mask": torch.ones_like(ids), "labels": _ids(batch, tgt, cfg["vocab_size"])}

    return build, inputs


def _whisper(batch: int, tgt: int, **cfg: Any) -> tuple[Callable, Callable]:
    build, _ = _seq2seq("WhisperForConditionalGeneration", "WhisperConfig", batch, 0, tgt, **cfg)

    def inputs() -> dict[str, Any]:
        feats = torch.empty(batch, cfg["num_mel_bins"], 2 * cfg["max_source_positions"], device="meta", dtype=DTYPE)
        return {"input_features": feats, "labels": _ids(batch, tgt, cfg["vocab_size"])}

    return build, inputs


def _image(cls_name: str, cfg_name: str, batch: int, size: int, **cfg: Any) -> tuple[Callable, Callable]:
    def build() -> Any:
        import transformers

        extra = {"attn_implementation": "eager"} if cfg_name in ("ViTConfig",) else {}
        return getattr(transformers, cls_name)(getattr(transformers, cfg_name)(**extra, **cfg))

    def inputs() -> dict[str, Any]:
        pixels = torch.empty(batch, 3, size, size, device="meta", dtype=DTYPE)
        return {"pixel_values": pixels, "labels": torch.randint(0, 1000, (batch,), device="meta")}

    return build, inputs


def _pairs(cls_name: str, cfg_name: str, batch: int, seq: int, **cfg: Any) -> tuple[Callable, Callable]:
    """Contrastive image-text pre-training (CLIP, SigLIP): its own loss over a batch of pairs."""

    def build() -> Any:
        import transformers

        return getattr(transformers, cls_name)(getattr(transformers, cfg_name)(**cfg))

    def inputs() -> dict[str, Any]:
        ids = _ids(batch, seq, 32000)
        return {"input_ids": ids, "pixel_values": torch.empty(batch, 3, 224, 224, device="meta", dtype=DTYPE),
                "return_loss": True}

    return build, inputs


def _multilabel(ids: torch.Tensor) -> torch.Tensor:
    return torch.empty(ids.shape[0], 20, device="meta", dtype=DTYPE)


def _spec(name: str, family: str, batch: str, pair: tuple[Callable, Callable]) -> ModelSpec:
    return ModelSpec(name, family, pair[0], pair[1], batch)


_LLAMA2 = dict(hidden_size=4096, intermediate_size=11008, num_hidden_layers=32, num_attention_heads=32,
               num_key_value_heads=32, vocab_size=32000, max_position_embeddings=4096)


def catalogue() -> list[ModelSpec]:
    """Every traced architecture, in a fixed order."""
    return [*_decoders(), *_encoders(), *_encoder_decoders(), *_image_text(), *_vision()]


def _decoders() -> list[ModelSpec]:
    """Decoder LLMs: batch 1 x the model's training context (what one GPU holds per step)."""
    return [
        _spec("llama-2-7b", "decoder", "1x4096", _lm("LlamaForCausalLM", "LlamaConfig", 1, 4096, **_LLAMA2)),
        _spec("llama-3-8b", "decoder", "1x8192", _lm(
            "LlamaForCausalLM", "LlamaConfig", 1, 8192, hidden_size=4096, intermediate_size=14336,
            num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=8, vocab_size=128256,
            max_position_embeddings=8192, rope_theta=500000.0)),
        _spec("mistral-7b", "decoder", "1x4096", _lm(
            "MistralForCausalLM", "MistralConfig", 1, 4096, hidden_size=4096, intermediate_size=14336,
            num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=8, vocab_size=32000,
            sliding_window=4096)),
        _spec("mixtral-8x7b", "decoder", "1x4096", _lm(
            "MixtralForCausalLM", "MixtralConfig", 1, 4096, hidden_size=4096, intermediate_size=14336,
            num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=8, vocab_size=32000,
            num_local_experts=8, num_experts_per_tok=2)),
        _spec("qwen2-7b", "decoder", "1x4096", _lm(
            "Qwen2ForCausalLM", "Qwen2Config", 1, 4096, hidden_size=3584, intermediate_size=18944,
            num_hidden_layers=28, num_attention_heads=28, num_key_value_heads=4, vocab_size=152064)),
        _spec("gemma-7b", "decoder", "1x4096", _lm(
            "GemmaForCausalLM", "GemmaConfig", 1, 4096, hidden_size=3072, intermediate_size=24576,
            num_hidden_layers=28, num_attention_heads=16, num_key_value_heads=16, head_dim=256,
            vocab_size=256000)),
        _spec("gemma-2-9b", "decoder", "1x4096", _lm(
            "Gemma2ForCausalLM", "Gemma2Config", 1, 4096, hidden_size=3584, intermediate_size=14336,
            num_hidden_layers=42, num_attention_heads=16, num_key_value_heads=8, head_dim=256,
            vocab_size=256000)),
        _spec("phi-2", "decoder", "2x2048", _lm(
            "PhiForCausalLM", "PhiConfig", 2, 2048, hidden_size=2560, intermediate_size=10240,
            num_hidden_layers=32, num_attention_heads=32, vocab_size=51200, partial_rotary_factor=0.4)),
        _spec("phi-3-mini", "decoder", "1x4096", _lm(
            "Phi3ForCausalLM", "Phi3Config", 1, 4096, hidden_size=3072, intermediate_size=8192,
            num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=32, vocab_size=32064)),
        _spec("gpt2", "decoder", "8x1024", _lm("GPT2LMHeadModel", "GPT2Config", 8, 1024, vocab_size=50257)),
        _spec("opt-1.3b", "decoder", "4x2048", _lm(
            "OPTForCausalLM", "OPTConfig", 4, 2048, hidden_size=2048, ffn_dim=8192, num_hidden_layers=24,
            num_attention_heads=32, vocab_size=50272, word_embed_proj_dim=2048, max_position_embeddings=2048)),
        _spec("pythia-1.4b", "decoder", "4x2048", _lm(
            "GPTNeoXForCausalLM", "GPTNeoXConfig", 4, 2048, hidden_size=2048, intermediate_size=8192,
            num_hidden_layers=24, num_attention_heads=16, vocab_size=50304, rotary_pct=0.25)),
    ]


def _encoders() -> list[ModelSpec]:
    """Encoders: masked-LM pre-training, batch 16 x 512."""
    return [
        _spec("bert-base", "encoder", "16x512", _lm("BertForMaskedLM", "BertConfig", 16, 512, vocab_size=30522)),
        # RoBERTa fine-tuned as a multi-label classifier (binary cross-entropy over 20 labels).
        _spec("roberta-base", "encoder", "32x512", _lm(
            "RobertaForSequenceClassification", "RobertaConfig", 32, 512, labels=_multilabel, vocab_size=50265,
            max_position_embeddings=514, type_vocab_size=1, pad_token_id=1, num_labels=20,
            problem_type="multi_label_classification")),
        _spec("distilbert-base", "encoder", "16x512", _lm(
            "DistilBertForMaskedLM", "DistilBertConfig", 16, 512, vocab_size=30522)),
        _spec("deberta-v3-base", "encoder", "16x512", _lm(
            "DebertaV2ForMaskedLM", "DebertaV2Config", 16, 512, vocab_size=128100, relative_attention=True,
            position_buckets=256, norm_rel_ebd="layer_norm", share_att_key=True, pos_att_type=["p2c", "c2p"],
            max_relative_positions=-1, position_biased_input=False, type_vocab_size=0)),
        _spec("convbert-base", "encoder", "16x512", _lm(
            "ConvBertForMaskedLM", "ConvBertConfig", 16, 512, vocab_size=30522)),
    ]


def _encoder_decoders() -> list[ModelSpec]:
    """Encoder-decoders: batch 16, source 512, target 128 (Whisper: 30 s of audio)."""
    return [
        _spec("t5-base", "encoder-decoder", "16x512->128", _seq2seq(
            "T5ForConditionalGeneration", "T5Config", 16, 512, 128, d_model=768, d_ff=3072, num_layers=12,
            num_heads=12, vocab_size=32128, decoder_start_token_id=0, pad_token_id=0)),
        _spec("bart-base", "encoder-decoder", "16x512->128", _seq2seq(
            "BartForConditionalGeneration", "BartConfig", 16, 512, 128, d_model=768, encoder_layers=6,
            decoder_layers=6, encoder_attention_heads=12, decoder_attention_heads=12, encoder_ffn_dim=3072,
            decoder_ffn_dim=3072, vocab_size=50265)),
        _spec("whisper-small", "encoder-decoder", "16x3000 frames->128", _whisper(
            16, 128, d_model=768, encoder_layers=12, decoder_layers=12, encoder_attention_heads=12,
            decoder_attention_heads=12, encoder_ffn_dim=3072, decoder_ffn_dim=3072, vocab_size=51865,
            num_mel_bins=80, max_source_positions=1500)),
        _spec("m2m100-418m", "encoder-decoder", "16x256->256", _seq2seq(
            "M2M100ForConditionalGeneration", "M2M100Config", 16, 256, 256, d_model=1024, encoder_layers=12,
            decoder_layers=12, encoder_attention_heads=16, decoder_attention_heads=16, encoder_ffn_dim=4096,
            decoder_ffn_dim=4096, vocab_size=128112)),
    ]


def _image_text() -> list[ModelSpec]:
    """Contrastive image-text pre-training: batch 128 pairs, 64 text tokens."""
    return [
        _spec("clip-vit-b-16", "multimodal", "128 pairs", _pairs(
            "CLIPModel", "CLIPConfig", 128, 64,
            text_config={"vocab_size": 49408, "max_position_embeddings": 77},
            vision_config={"patch_size": 16, "image_size": 224})),
        _spec("siglip-base-16", "multimodal", "128 pairs", _pairs(
            "SiglipModel", "SiglipConfig", 128, 64,
            text_config={"vocab_size": 32000, "max_position_embeddings": 64},
            vision_config={"patch_size": 16, "image_size": 224})),
    ]


def _vision() -> list[ModelSpec]:
    """Vision: image classification at 224 x 224, batch 64."""
    return [
        _spec("vit-base-16", "vision", "64x224x224", _image("ViTForImageClassification", "ViTConfig", 64, 224,
                                                             num_labels=1000)),
        _spec("convnext-tiny", "vision", "64x224x224", _image(
            "ConvNextForImageClassification", "ConvNextConfig", 64, 224, depths=[3, 3, 9, 3],
            hidden_sizes=[96, 192, 384, 768], num_labels=1000)),
        _spec("swin-tiny", "vision", "64x224x224", _image(
            "SwinForImageClassification", "SwinConfig", 64, 224, embed_dim=96, depths=[2, 2, 6, 2],
            num_heads=[3, 6, 12, 24], window_size=7, num_labels=1000)),
        _spec("resnet-50", "vision", "64x224x224", _image(
            "ResNetForImageClassification", "ResNetConfig", 64, 224, depths=[3, 4, 6, 3],
            hidden_sizes=[256, 512, 1024, 2048], layer_type="bottleneck", num_labels=1000)),
        _spec("beit-base-16", "vision", "64x224x224", _image(
            "BeitForImageClassification", "BeitConfig", 64, 224, use_relative_position_bias=True, num_labels=1000)),
        _spec("pp-lcnet", "vision", "64x224x224", _image("PPLCNetForImageClassification", "PPLCNetConfig", 64, 224,
                                                          num_labels=1000)),
    ]
