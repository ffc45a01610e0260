"""hadacore_transform against an explicit Sylvester Hadamard matrix product, on CPU."""

from __future__ import annotations

import math

import pytest
import torch

from kernelgenbench.reference_impls import vllm_hadamard as vh


def _sylvester(n: int) -> torch.Tensor:
    h = torch.ones(1, 1, dtype=torch.float64)
    while h.shape[0] < n:
        h = torch.cat([torch.cat([h, h], 1), torch.cat([h, -h], 1)], 0)
    return h


@pytest.mark.parametrize("n", [1, 2, 16, 128, 1024])
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_hadacore_matches_matrix_product(n, dtype):
    a = vh.make_hadacore_transform_inputs(dict(batch_size=32, hidden_dim=n, dtype=dtype), seed=0, device="cpu")
    x0 = a["x"].clone()
    y = vh.hadacore_transform(**a)
    want = x0.double() @ _sylvester(n).T / math.sqrt(n)
    torch.testing.assert_close(y.double(), want, atol=2e-2, rtol=2e-2)
    assert y.dtype == x0.dtype
    if x0.numel() % 256 == 0:
        assert y is a["x"]  # overwritten and returned, as the kernel does
    else:
        assert torch.equal(a["x"], x0) and y is not a["x"]
    torch.testing.assert_close(vh.hadacore_transform(y.clone(), True).double(), x0.double(), atol=4e-2, rtol=4e-2)


def test_hadacore_identity_rows_give_the_normalized_matrix():
    x = torch.eye(64, dtype=torch.bfloat16)
    y = vh.hadacore_transform(x.clone(), True)
    assert torch.equal(y.double(), (_sylvester(64) / 8).to(torch.bfloat16).double())
    with pytest.raises(ValueError, match="power of two"):
        vh.hadacore_transform(torch.zeros(2, 48, dtype=torch.bfloat16), True)
