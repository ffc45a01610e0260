"""The parts of the cuBLAS binding that need no GPU: argument marshalling of scalars and enums, lookup errors."""

from __future__ import annotations

import ctypes

import pytest

from kernelgenbench.errors import KgbError, SourceNotFound
from kernelgenbench.evaluator import cublas_native
from kernelgenbench.evaluator.cublas_native import _enum_value, _host_scalar

_OP = {"values": {"CUBLAS_OP_N": 0, "CUBLAS_OP_T": 1, "CUBLAS_OP_C": 2, "CUBLAS_OP_HERMITAN": 2},
       "candidate_names": {"CUBLAS_OP_N": "N", "CUBLAS_OP_T": "T", "CUBLAS_OP_C": "C", "CUBLAS_OP_HERMITAN": "C"},
       "resolved": True}


def test_enum_names_and_enumerators_map_to_values() -> None:
    assert [_enum_value(_OP, s) for s in ("N", "T", "C", "CUBLAS_OP_T")] == [0, 1, 2, 1]
    with pytest.raises(KgbError, match=r"'X' is not a value of this enum \(expected one of \['C', 'N', 'T'\]\)"):
        _enum_value(_OP, "X")


def test_host_scalars_have_the_c_layout() -> None:
    assert _host_scalar("float", 1.5).value == 1.5
    assert isinstance(_host_scalar("double", 2), ctypes.c_double)
    z = _host_scalar("cuDoubleComplex", complex(1.0, -2.0))
    assert (z.x, z.y, ctypes.sizeof(z)) == (1.0, -2.0, 16)
    c = _host_scalar("cuComplex", 3)
    assert (c.x, c.y, ctypes.sizeof(c)) == (3.0, 0.0, 8)
    assert _host_scalar("__half", 1.5).value == 0x3E00  # IEEE half bits of 1.5
    with pytest.raises(KgbError, match="no host scalar of C type int8_t"):
        _host_scalar("int8_t", 1)


def test_missing_library_is_an_actionable_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cublas_native, "_library_candidates", lambda: ["/nonexistent/libcublas.so.13"])
    with pytest.raises(SourceNotFound, match="no libcublas found: install torch with CUDA"):
        cublas_native.find_libcublas()


def test_the_native_baseline_is_the_routine_of_the_task(monkeypatch: pytest.MonkeyPatch) -> None:
    # The evaluator's cuBLAS baseline must hand the whole Task to the binding (calls are marshalled from its
    # C parameters); without a library the reason says so, not that the call was malformed.
    import json

    from eval_helpers import EXAMPLE_TASKS

    from kernelgenbench.dataset.record import Task
    from kernelgenbench.evaluator.baselines import native_callable

    row = next(json.loads(x) for x in EXAMPLE_TASKS.read_text().splitlines() if '"cublas/cublasSaxpy_v2"' in x)
    task = Task.from_dict(row)
    monkeypatch.setattr(cublas_native, "_library_candidates", lambda: ["/nonexistent/libcublas.so.13"])
    fn, why = native_callable(task)
    assert fn is None and "unavailable" in why and "needs the Task" not in why
    seen = []
    monkeypatch.setattr(cublas_native, "Cublas", lambda: seen.append("lib") or object())
    fn, why = native_callable(task)
    assert why == "" and fn.__name__ == "cublasSaxpy_v2" and seen == ["lib"]
