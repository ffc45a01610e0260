"""The ATen extractor: native_functions.yaml (installed torch or a PyTorch tree) -> task records."""

from kernelgenbench.extractors.aten.pipeline import ExtractResult, extract

__all__ = ["ExtractResult", "extract"]
