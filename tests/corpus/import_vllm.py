# kgb-corpus: task=vllm/rms_norm expect=forbidden_api
# Imports the library under test.
import vllm._custom_ops as ops


def rms_norm(result, input, weight, epsilon):
    ops.rms_norm(result, input, weight, epsilon)
