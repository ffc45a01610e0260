"""On a CUDA machine: the real cuBLAS through the ctypes binding, and every curated reference against it.

Records come from $KGB_CUBLAS_RECORDS (JSON Lines written by `kgb-extract cublas`) when set, else from the
header of the installed libcublas's version (fetched once). With $KGB_CUBLAS_RESULTS set, the comparison
of every workload (and native/reference timings) is written there as JSON and Markdown.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import torch

from kernelgenbench.dataset.record import Task
from kernelgenbench.evaluator import cublas_native
from kernelgenbench.evaluator.cublas_native import Cublas, as_dict, compare_all, environment, report_markdown

pytestmark = pytest.mark.gpu


def _curated_tasks() -> list[Task]:
    path = os.environ.get("KGB_CUBLAS_RECORDS")
    if path:
        rows = [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]
    else:
        from kernelgenbench.extractors.cublas.headers import fetch
        from kernelgenbench.extractors.cublas.records import extract

        lib = Cublas()
        version = ".".join(lib.version.split(".")[:2])
        lib.close()
        rows = list(extract(fetch(version)).records)
    return [Task.from_dict(r) for r in rows if r["details"]["cublas"]["curated"]]


@pytest.fixture(scope="module")
def tasks() -> dict[str, Task]:
    from kernelgenbench.errors import NetworkUnavailable

    try:
        return {t.name: t for t in _curated_tasks()}
    except NetworkUnavailable as exc:  # an offline GPU machine: set KGB_CUBLAS_RECORDS to records made elsewhere
        pytest.skip(f"{exc}; set KGB_CUBLAS_RECORDS to an extracted cuBLAS records file")


def test_saxpy_negative_increment_and_dot_result(tasks: dict[str, Task]) -> None:
    lib = Cublas()
    try:
        x = torch.tensor([1.0, 2.0, 3.0], device="cuda")
        y = torch.zeros(5, device="cuda")
        lib.call(tasks["cublasSaxpy_v2"], {"n": 3, "alpha": 2.0, "x": x, "incx": -1, "y": y, "incy": 2})
        assert y.tolist() == [6.0, 0.0, 4.0, 0.0, 2.0]
        result = torch.zeros(1, device="cuda")
        lib.call(tasks["cublasSdot_v2"], {"n": 3, "x": x, "incx": 1, "y": x, "incy": 1, "result": result})
        assert result.item() == 14.0
    finally:
        lib.close()


def test_routine_callable_positional(tasks: dict[str, Task]) -> None:
    fn = cublas_native.routine(tasks["cublasSscal_v2"])
    x = torch.ones(4, device="cuda")
    fn(4, 3.0, x, 1)
    torch.cuda.synchronize()
    assert x.tolist() == [3.0] * 4


def test_every_curated_reference_matches_cublas(tasks: dict[str, Task]) -> None:
    out = os.environ.get("KGB_CUBLAS_RESULTS")
    log = None
    if out:
        Path(out).mkdir(parents=True, exist_ok=True)
        stream = (Path(out) / "cublas_vs_reference.partial.jsonl").open("w")

        def log(c):  # written as each finishes, so a crash or a timeout loses nothing already measured
            stream.write(json.dumps(as_dict(c)) + "\n")
            stream.flush()
            print(f"{c.routine} {c.workload} pass={c.passed} max_abs={c.max_abs_error:.3g} atol={c.atol:.3g}"
                  f" native_ms={c.native_ms} ref_ms={c.reference_ms} {c.error or ''}", flush=True)

    results = compare_all(list(tasks.values()), timing=bool(out), log=log)
    if out:
        env = environment()
        (Path(out) / "cublas_vs_reference.json").write_text(json.dumps(
            {"environment": env, "results": [as_dict(c) for c in results]}, indent=1))
        (Path(out) / "cublas_vs_reference.md").write_text(report_markdown(results, env))
    assert len(tasks) == 50
    failed = [f"{c.routine}/{c.workload}: max_abs {c.max_abs_error:.3g} > atol {c.atol:.3g} {c.error or ''}"
              for c in results if not c.passed]
    assert not failed, "\n".join(failed)
