"""The traced architectures: `transformers` configurations at their published sizes, built in code.

No configuration or weight is downloaded: every config is constructed here with the sizes its model card
publishes, the model is built on the meta device (no memory) and one training step (forward, loss,
backward, optimizer step) runs on meta inputs at a typical batch and sequence size; decoders also sample
(kernelgenbench.trace.phases), and models whose batches a library prepares on the host run that code.
Attention runs the 'eager' path so the trace holds the softmax, bmm and masking ops rather than one fused
attention call. Parameters are bfloat16 (mixed-precision training as the H200 runs it).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from kernelgenbench.trace import phases

DTYPE = torch.bfloat16


@dataclass(frozen=True)
class ModelSpec:
    """One architecture: its family, how to build it and its inputs, and the batch it runs."""

    name: str
    family: str  # decoder | encoder | encoder-decoder | vision | multimodal | audio
    build: Callable[[], Any]  # () -> nn.Module (on the current default device)
    inputs: Callable[[], dict[str, Any]]  # () -> forward kwargs (meta tensors)
    batch: str  # human-readable batch description, stored in the data file
    # The training loss when the model computes none itself (the published recipe's), from (model, inputs).
    loss: Callable[[Any, dict[str, Any]], torch.Tensor] | None = None
    data: Callable[[], None] | None = None  # the host-side batch preparation, on real CPU tensors
    generate: Callable[[Any], None] | None = None  # sampling from the model in eval mode
    # Built on the CPU, its floating tensors then moved to meta: for models that keep sizes in integer
    # buffers (EnCodec's conv strides) and compute shapes from them, which meta tensors cannot answer.
    on_cpu: bool = False


def _ids(batch: int, seq: int, vocab: int) -> torch.Tensor:
    return torch.randint(0, vocab, (batch, seq), device="meta")


def _lm(cls_name: str, cfg_name: str, batch: int, seq: int, labels: Callable[[torch.Tensor], Any] = lambda ids: ids,
        **cfg: Any) -> tuple[Callable, Callable]:
    """A causal or masked LM (labels: the input ids), or a classifier (labels from `labels`)."""
    build = _built(cls_name, cfg_name, attn_implementation="eager", **cfg)

    def inputs() -> dict[str, Any]:
        ids = _ids(batch, seq, cfg["vocab_size"])
        # A tokenizer always hands the model an attention mask; the model turns it into its mask ops.
        return {"input_ids": ids, "attention_mask": torch.ones_like(ids), "labels": labels(ids)}

    return build, inputs


def _packed_lm(cls_name: str, cfg_name: str, seq: int, **cfg: Any) -> tuple[Callable, Callable]:
    """A causal LM on one packed row: position ids instead of an attention mask, no KV cache in training."""
    build, _ = _lm(cls_name, cfg_name, 1, seq, **cfg)

    def inputs() -> dict[str, Any]:
        ids = _ids(1, seq, cfg["vocab_size"])
        # the ids' values are unknown on meta, so one arange stands for the restarting positions
        positions = torch.arange(seq, device="meta")[None]
        return {"input_ids": ids, "position_ids": positions, "labels": ids, "use_cache": False}

    return build, inputs


def _seq2seq(cls_name: str, cfg_name: str, batch: int, src: int, tgt: int, **cfg: Any) -> tuple[Callable, Callable]:
    build = _built(cls_name, cfg_name, attn_implementation="eager", **cfg)

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
    extra = {"attn_implementation": "eager"} if cfg_name in ("ViTConfig",) else {}
    build = _built(cls_name, cfg_name, **extra, **cfg)

    def inputs() -> dict[str, Any]:
        pixels = torch.empty(batch, 3, size, size, device="meta", dtype=DTYPE)
        return {"pixel_values": pixels, "labels": torch.randint(0, 1000, (batch,), device="meta")}

    return build, inputs


def _pairs(cls_name: str, cfg_name: str, batch: int, seq: int, **cfg: Any) -> tuple[Callable, Callable]:
    """Contrastive image-text pre-training (CLIP, SigLIP): its own loss over a batch of pairs."""
    build = _built(cls_name, cfg_name, **cfg)

    def inputs() -> dict[str, Any]:
        ids = _ids(batch, seq, 32000)
        return {"input_ids": ids, "pixel_values": torch.empty(batch, 3, 224, 224, device="meta", dtype=DTYPE),
                "return_loss": True}

    return build, inputs


def _audio_text(batch: int, samples: int, seq: int) -> Callable[[], dict[str, Any]]:
    def inputs() -> dict[str, Any]:
        ids = _ids(batch, seq, 50368)  # ModernBERT's vocabulary
        return {"input_ids": ids, "attention_mask": torch.ones_like(ids), "return_loss": True,
                "input_values": torch.empty(batch, 1, samples, device="meta", dtype=DTYPE)}

    return inputs


def _multilabel(ids: torch.Tensor) -> torch.Tensor:
    return torch.empty(ids.shape[0], 20, device="meta", dtype=DTYPE)


def _spec(name: str, family: str, batch: str, pair: tuple[Callable, Callable], **extra: Any) -> ModelSpec:
    return ModelSpec(name, family, pair[0], pair[1], batch, **extra)


def _sampling(vocab: int, batch: int = 8, prompt: int = 512, static: bool = False) -> dict[str, Any]:
    """A decoder's generation phase: `batch` prompts of `prompt` tokens, sampled (phases.sample)."""
    return {"generate": functools.partial(phases.sample, batch=batch, prompt=prompt, vocab=vocab, static=static)}


_LLAMA2 = dict(hidden_size=4096, intermediate_size=11008, num_hidden_layers=32, num_attention_heads=32,
               num_key_value_heads=32, vocab_size=32000, max_position_embeddings=4096)


_LLAMA3 = dict(hidden_size=4096, intermediate_size=14336, num_hidden_layers=32, num_attention_heads=32,
               num_key_value_heads=8, vocab_size=128256, max_position_embeddings=8192, rope_theta=500000.0)


def catalogue() -> list[ModelSpec]:
    """Every traced architecture, in a fixed order."""
    return [*_decoders(), *_encoders(), *_encoder_decoders(), *_image_text(), *_vision(), *_generative_vision()]


def _decoders() -> list[ModelSpec]:
    """Decoder LLMs: batch 1 x the model's training context (what one GPU holds per step), and sampling."""
    return [
        _spec("llama-2-7b", "decoder", "1x4096", _lm("LlamaForCausalLM", "LlamaConfig", 1, 4096, **_LLAMA2),
              **_sampling(32000)),
        _spec("llama-3-8b", "decoder", "1x8192", _lm("LlamaForCausalLM", "LlamaConfig", 1, 8192, **_LLAMA3),
              **_sampling(128256, static=True)),
        _spec("mistral-7b", "decoder", "1x4096", _lm(
            "MistralForCausalLM", "MistralConfig", 1, 4096, hidden_size=4096, intermediate_size=14336,
            num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=8, vocab_size=32000,
            sliding_window=4096), **_sampling(32000)),
        _spec("mixtral-8x7b", "decoder", "1x4096", _lm(
            "MixtralForCausalLM", "MixtralConfig", 1, 4096, hidden_size=4096, intermediate_size=14336,
            num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=8, vocab_size=32000,
            num_local_experts=8, num_experts_per_tok=2), **_sampling(32000)),
        _spec("qwen2-7b", "decoder", "1x4096", _lm(
            "Qwen2ForCausalLM", "Qwen2Config", 1, 4096, hidden_size=3584, intermediate_size=18944,
            num_hidden_layers=28, num_attention_heads=28, num_key_value_heads=4, vocab_size=152064),
              **_sampling(152064)),
        _spec("gemma-7b", "decoder", "1x4096", _lm(
            "GemmaForCausalLM", "GemmaConfig", 1, 4096, hidden_size=3072, intermediate_size=24576,
            num_hidden_layers=28, num_attention_heads=16, num_key_value_heads=16, head_dim=256,
            vocab_size=256000), **_sampling(256000)),
        _spec("gemma-2-9b", "decoder", "1x4096", _lm(
            "Gemma2ForCausalLM", "Gemma2Config", 1, 4096, hidden_size=3584, intermediate_size=14336,
            num_hidden_layers=42, num_attention_heads=16, num_key_value_heads=8, head_dim=256,
            vocab_size=256000), **_sampling(256000)),
        _spec("phi-2", "decoder", "2x2048", _lm(
            "PhiForCausalLM", "PhiConfig", 2, 2048, hidden_size=2560, intermediate_size=10240,
            num_hidden_layers=32, num_attention_heads=32, vocab_size=51200, partial_rotary_factor=0.4),
              **_sampling(51200)),
        _spec("phi-3-mini", "decoder", "1x4096", _lm(
            "Phi3ForCausalLM", "Phi3Config", 1, 4096, hidden_size=3072, intermediate_size=8192,
            num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=32, vocab_size=32064),
              **_sampling(32064)),
        _spec("gpt2", "decoder", "8x1024", _lm("GPT2LMHeadModel", "GPT2Config", 8, 1024, vocab_size=50257),
              **_sampling(50257)),
        _spec("opt-1.3b", "decoder", "4x2048", _lm(
            "OPTForCausalLM", "OPTConfig", 4, 2048, hidden_size=2048, ffn_dim=8192, num_hidden_layers=24,
            num_attention_heads=32, vocab_size=50272, word_embed_proj_dim=2048, max_position_embeddings=2048),
              **_sampling(50272)),
        _spec("pythia-1.4b", "decoder", "4x2048", _lm(
            "GPTNeoXForCausalLM", "GPTNeoXConfig", 4, 2048, hidden_size=2048, intermediate_size=8192,
            num_hidden_layers=24, num_attention_heads=16, vocab_size=50304, rotary_pct=0.25),
              **_sampling(50304)),
        *_more_decoders(),
    ]


def _more_decoders() -> list[ModelSpec]:
    """Padding-free fine-tuning, a mixture of experts with its own router, a state-space model."""
    return [
        # Supervised fine-tuning with packed sequences (TRL's padding_free, transformers'
        # DataCollatorWithFlattening): one row of concatenated documents, position ids restarting at each
        # document and no attention mask; the model finds the documents from the position ids.
        _spec("llama-3-8b-sft-packed", "decoder", "1x8192 packed", _packed_lm(
            "LlamaForCausalLM", "LlamaConfig", 8192, **_LLAMA3)),
        # Phi-3.5-MoE routes with SparseMixer, which samples the top experts with Gumbel noise in training.
        _spec("phi-3.5-moe", "decoder", "1x4096", _lm(
            "PhimoeForCausalLM", "PhimoeConfig", 1, 4096, hidden_size=4096, intermediate_size=6400,
            num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=8, vocab_size=32064,
            num_local_experts=16, num_experts_per_tok=2, max_position_embeddings=131072),
              **_sampling(32064)),
        # Mamba-2 runs its chunked SSD scan in PyTorch here (no mamba_ssm kernels): what the model computes.
        _spec("mamba2-2.7b", "decoder", "4x2048", _lm(
            "Mamba2ForCausalLM", "Mamba2Config", 4, 2048, hidden_size=2560, num_hidden_layers=64,
            vocab_size=50288, state_size=128, head_dim=64, num_heads=80, expand=2, n_groups=1, chunk_size=256,
            conv_kernel=4)),
    ]


def _encoders() -> list[ModelSpec]:
    """Encoders: masked-LM pre-training, batch 16 x 512."""
    return [
        # BERT's batches come from transformers' masked-LM collator (which tokens to mask, and with what).
        _spec("bert-base", "encoder", "16x512", _lm("BertForMaskedLM", "BertConfig", 16, 512, vocab_size=30522),
              data=functools.partial(phases.mlm_batch, 16, 512)),
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
            num_mel_bins=80, max_source_positions=1500), data=functools.partial(phases.log_mel_batch, 16)),
        _spec("m2m100-418m", "encoder-decoder", "16x256->256", _seq2seq(
            "M2M100ForConditionalGeneration", "M2M100Config", 16, 256, 256, d_model=1024, encoder_layers=12,
            decoder_layers=12, encoder_attention_heads=16, decoder_attention_heads=16, encoder_ffn_dim=4096,
            decoder_ffn_dim=4096, vocab_size=128112)),
    ]


def _image_text() -> list[ModelSpec]:
    """Contrastive image-text (batch 128 pairs, 64 text tokens) and audio-text pre-training."""
    return [
        _spec("clip-vit-b-16", "multimodal", "128 pairs", _pairs(
            "CLIPModel", "CLIPConfig", 128, 64,
            text_config={"vocab_size": 49408, "max_position_embeddings": 77},
            vision_config={"patch_size": 16, "image_size": 224})),
        _spec("siglip-base-16", "multimodal", "128 pairs", _pairs(
            "SiglipModel", "SiglipConfig", 128, 64,
            text_config={"vocab_size": 32000, "max_position_embeddings": 64},
            vision_config={"patch_size": 16, "image_size": 224})),
        # Perception Encoder audio-text (its configuration class's sizes): DAC audio encoder, rotary
        # transformer, ModernBERT text tower, sigmoid contrastive loss; 10 s clips at 16 kHz.
        ModelSpec("pe-audio", "multimodal", _built("PeAudioModel", "PeAudioConfig"), _audio_text(64, 160000, 32),
                  "64 pairs x 10 s"),
    ]


def _l1_to(shape: tuple[int, ...], field: str) -> Callable[[Any, dict[str, Any]], torch.Tensor]:
    """L1 between the model's output `field` and a target of `shape` (a restoration model's pixel loss)."""

    def loss(model: Any, inputs: dict[str, Any]) -> torch.Tensor:
        target = torch.empty(shape, device="meta", dtype=DTYPE)
        return torch.nn.functional.l1_loss(getattr(model(**inputs), field), target)

    return loss


def _reconstruction(model: Any, inputs: dict[str, Any]) -> torch.Tensor:
    """EnCodec's time-domain reconstruction term: L1 between the input waveform and the decoded one."""
    return torch.nn.functional.l1_loss(model(**inputs).audio_values, inputs["input_values"])


def _pixels(batch: int, size: int, **extra: Callable[[], torch.Tensor]) -> Callable[[], dict[str, Any]]:
    def inputs() -> dict[str, Any]:
        pixels = torch.empty(batch, 3, size, size, device="meta", dtype=DTYPE)
        return {"pixel_values": pixels, **{k: make() for k, make in extra.items()}}

    return inputs


def _built(cls_name: str, cfg_name: str, **cfg: Any) -> Callable[[], Any]:
    """() -> the transformers model `cls_name` on its `cfg_name` configuration (imported when called)."""

    def build() -> Any:
        import transformers

        return getattr(transformers, cls_name)(getattr(transformers, cfg_name)(**cfg))

    return build


def _meta(*shape: int, dtype: torch.dtype = DTYPE) -> Callable[[], torch.Tensor]:
    return lambda: torch.empty(*shape, device="meta", dtype=dtype)


def _generative_vision() -> list[ModelSpec]:
    """Self-supervised, generative and restoration training of image and audio models, with their own losses."""
    return [
        # SimMIM pre-training of Swin V2 (its paper's recipe): 192 x 192, 60% of the 48 x 48 patches masked.
        ModelSpec("swinv2-base-simmim", "vision", _built(
            "Swinv2ForMaskedImageModeling", "Swinv2Config", image_size=192, embed_dim=128, depths=[2, 2, 18, 2],
            num_heads=[4, 8, 16, 32], window_size=12), _pixels(
            64, 192, bool_masked_pos=_meta(64, 48 * 48, dtype=torch.bool)), "64x192x192"),
        # iGPT-S: next-pixel prediction over 512 colour clusters at 32 x 32.
        _spec("imagegpt-small", "vision", "32x1024", _lm(
            "ImageGPTForCausalImageModeling", "ImageGPTConfig", 32, 1024, vocab_size=513, n_positions=1024,
            n_embd=512, n_layer=24, n_head=8)),
        # SegGPT (ViT-L): in-context segmentation, a 448 x 448 prompt pair stacked over the image.
        ModelSpec("seggpt-vit-large", "vision", _built("SegGptForImageSegmentation", "SegGptConfig"), _pixels(
            8, 448, prompt_pixel_values=_meta(8, 3, 448, 448), prompt_masks=_meta(8, 3, 448, 448),
            labels=_meta(8, 3, 448, 448)), "8x448x448"),
        # Swin2SR real-world x4 super-resolution ("nearest+conv" upsampler), trained with an L1 pixel loss.
        ModelSpec("swin2sr-realworld-x4", "vision", _built(
            "Swin2SRForImageSuperResolution", "Swin2SRConfig", embed_dim=180, depths=[6] * 6, num_heads=[6] * 6,
            window_size=8, image_size=64, upscale=4, upsampler="nearest+conv", mlp_ratio=2.0),
            _pixels(16, 64), "16x64x64->256x256", loss=_l1_to((16, 3, 256, 256), "reconstruction")),
        # EnCodec 24 kHz, 1 s crops: convolutions with reflect padding and a two-layer LSTM.
        ModelSpec("encodec-24khz", "audio", _built("EncodecModel", "EncodecConfig"),
                  lambda: {"input_values": torch.empty(32, 1, 24000, device="meta", dtype=DTYPE)},
                  "32x24000 samples", loss=_reconstruction, on_cpu=True),
    ]


def _vision() -> list[ModelSpec]:
    """Vision: image classification at 224 x 224 (MobileViT V2: 256 x 256), batch 64."""
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
        # MobileViT V2 1.0: convolutions and separable linear self-attention.
        _spec("mobilevitv2-1.0", "vision", "64x256x256", _image(
            "MobileViTV2ForImageClassification", "MobileViTV2Config", 64, 256, width_multiplier=1.0,
            num_labels=1000)),
    ]
