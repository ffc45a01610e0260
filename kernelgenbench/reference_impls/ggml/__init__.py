"""vLLM's GGUF/GGML ops in pieces: block layouts, codebooks, decoders, quantizers, references, inputs.

Records name the facade `kernelgenbench.reference_impls.vllm_quant_ggml`, which re-exports them.
"""
