"""vLLM's Marlin ops in pieces: weight formats, layouts and packers, quantizers, 2:4 sparsity, references, inputs.

Records name the facade `kernelgenbench.reference_impls.vllm_quant_marlin`, which re-exports them.
"""
