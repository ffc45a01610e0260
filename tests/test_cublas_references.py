"""The curated cuBLAS references against independent NumPy oracles written from the BLAS definitions.

The oracles index the flat column-major storage element by element (no as_strided, no solve_triangular),
so a shared mistake in the references' view arithmetic would show. Every correctness workload of every
curated routine runs here on the CPU; the GPU test compares the same references with the real cuBLAS.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest
import torch

from kernelgenbench.dataset.record import Task
from kernelgenbench.evaluator.inputs import load_code, make_args
from kernelgenbench.extractors.cublas.classify import classify
from kernelgenbench.extractors.cublas.parse import Header
from kernelgenbench.extractors.cublas.records import build_record, curated_names, tasks_data


# ---- records of the curated routines, from the cached 12.4 header (downloaded once if absent) -----------
@functools.cache
def _header() -> Header:
    from kernelgenbench.errors import NetworkUnavailable
    from kernelgenbench.extractors.cublas.headers import fetch
    from kernelgenbench.extractors.cublas.parse import parse_header

    try:
        h = fetch("12.4")
    except NetworkUnavailable as exc:
        pytest.skip(f"cuBLAS 12.4 header not cached and the package index is unreachable: {exc}")
    return parse_header(h.api_header, library_types=h.library_types)


@functools.cache
def curated_tasks() -> dict[str, Task]:
    header = _header()
    protos = {f.name: f for f in header.functions}
    return {n: Task.from_dict(build_record(protos[n], header, origin="test")) for n in curated_names()}


# ---- NumPy oracles --------------------------------------------------------------------------------------
def _np(t: torch.Tensor) -> np.ndarray:
    wide = torch.complex128 if t.is_complex() else torch.float64
    return t.detach().to(wide).numpy().copy()


def getm(buf, rows, cols, ld, off=0):
    out = np.empty((rows, cols), dtype=buf.dtype)
    for j in range(cols):
        for i in range(rows):
            out[i, j] = buf[off + i + j * ld]
    return out


def setm(buf, rows, cols, ld, value, off=0, keep=None):
    for j in range(cols):
        for i in range(rows):
            if keep is None or keep(i, j):
                buf[off + i + j * ld] = value[i, j]


def vpos(n, inc, off=0):
    return [off + (i if inc > 0 else n - 1 - i) * abs(inc) for i in range(n)]


def getv(buf, n, inc, off=0):
    return np.array([buf[p] for p in vpos(n, inc, off)], dtype=buf.dtype)


def setv(buf, n, inc, value, off=0):
    for i, p in enumerate(vpos(n, inc, off)):
        buf[p] = value[i]


def op(m, trans, is_complex):
    if trans == "N":
        return m
    return m.T.conj() if trans == "C" and is_complex else m.T


def in_tri(uplo):
    return (lambda i, j: i <= j) if uplo == "U" else (lambda i, j: i >= j)


def sym_from(a, uplo):
    n = a.shape[0]
    t = in_tri(uplo)
    return np.array([[a[i, j] if t(i, j) else a[j, i] for j in range(n)] for i in range(n)], dtype=a.dtype)


def tri_from(a, uplo, diag):
    n = a.shape[0]
    t = in_tri(uplo)
    out = np.array([[a[i, j] if t(i, j) else 0 for j in range(n)] for i in range(n)], dtype=a.dtype)
    if diag == "U":
        np.fill_diagonal(out, 1)
    return out


def substitute(t, b):
    """Solve t @ x = b by forward or back substitution (t triangular), column by column."""
    n = t.shape[0]
    lower = np.allclose(np.triu(t, 1), 0)
    x = np.zeros_like(b, dtype=np.result_type(t, b))
    order = range(n) if lower else range(n - 1, -1, -1)
    for i in order:
        acc = b[i] - t[i] @ x
        x[i] = acc / t[i, i]
    return x


def band_dense(a, n, k, lda, uplo):
    dense = np.zeros((n, n), dtype=a.dtype)
    for j in range(n):
        rows = range(max(0, j - k), j + 1) if uplo == "U" else range(j, min(n, j + k + 1))
        for i in rows:
            dense[i, j] = a[(k + i - j if uplo == "U" else i - j) + j * lda]
    return dense


def oracle(family: str, a: dict, cplx: bool) -> dict:
    """Expected values (NumPy, wide) of every written argument."""
    g = {k: (_np(v) if isinstance(v, torch.Tensor) else [_np(x) for x in v] if isinstance(v, list) else v)
         for k, v in a.items()}
    if family in ("gemm",):
        names = ("Aarray", "Barray", "Carray") if "Aarray" in g else ("A", "B", "C")
        count = g.get("batchCount", 1)
        m, n, k = g["m"], g["n"], g["k"]
        bufs = [g[names[2]][b] for b in range(count)] if "Aarray" in g else [g["C"]]
        for b in range(count):
            A = g[names[0]][b] if "Aarray" in g else g["A"]
            B = g[names[1]][b] if "Aarray" in g else g["B"]
            C = bufs[b] if "Aarray" in g else g["C"]
            oa, ob, oc = ((0, 0, 0) if "Aarray" in g else
                          (b * g.get("strideA", 0), b * g.get("strideB", 0), b * g.get("strideC", 0)))
            ar, ac = (m, k) if g["transa"] == "N" else (k, m)
            br, bc = (k, n) if g["transb"] == "N" else (n, k)
            prod = g["alpha"] * op(getm(A, ar, ac, g["lda"], oa), g["transa"], cplx) @ \
                op(getm(B, br, bc, g["ldb"], ob), g["transb"], cplx)
            if g["beta"] != 0:
                prod = prod + g["beta"] * getm(C, m, n, g["ldc"], oc)
            setm(C, m, n, g["ldc"], prod, oc)
        return {names[2]: bufs if "Aarray" in g else g["C"]}
    if family == "gemv":
        names = ("Aarray", "xarray", "yarray") if "Aarray" in g else ("A", "x", "y")
        count = g.get("batchCount", 1)
        m, n = g["m"], g["n"]
        lx, ly = (n, m) if g["trans"] == "N" else (m, n)
        ys = g[names[2]] if "Aarray" in g else [g["y"]]
        for b in range(count):
            A = g["Aarray"][b] if "Aarray" in g else g["A"]
            x = g["xarray"][b] if "Aarray" in g else g["x"]
            y = ys[b] if "Aarray" in g else g["y"]
            oa, ox, oy = ((0, 0, 0) if "Aarray" in g else
                          (b * g.get("strideA", 0), b * g.get("stridex", 0), b * g.get("stridey", 0)))
            val = g["alpha"] * op(getm(A, m, n, g["lda"], oa), g["trans"], cplx) @ getv(x, lx, g["incx"], ox)
            if g["beta"] != 0:
                val = val + g["beta"] * getv(y, ly, g["incy"], oy)
            setv(y, ly, g["incy"], val, oy)
        return {names[2]: ys if "Aarray" in g else g["y"]}
    if family in ("ger", "geru", "gerc"):
        x, y = getv(g["x"], g["m"], g["incx"]), getv(g["y"], g["n"], g["incy"])
        A = getm(g["A"], g["m"], g["n"], g["lda"]) + g["alpha"] * np.outer(x, y.conj() if family == "gerc" else y)
        setm(g["A"], g["m"], g["n"], g["lda"], A)
        return {"A": g["A"]}
    if family == "symv":
        a = sym_from(getm(g["A"], g["n"], g["n"], g["lda"]), g["uplo"])
        val = g["alpha"] * a @ getv(g["x"], g["n"], g["incx"])
        if g["beta"] != 0:
            val = val + g["beta"] * getv(g["y"], g["n"], g["incy"])
        setv(g["y"], g["n"], g["incy"], val)
        return {"y": g["y"]}
    if family == "sbmv":
        a = sym_from(band_dense(g["A"], g["n"], g["k"], g["lda"], g["uplo"]), g["uplo"])
        val = g["alpha"] * a @ getv(g["x"], g["n"], g["incx"])
        if g["beta"] != 0:
            val = val + g["beta"] * getv(g["y"], g["n"], g["incy"])
        setv(g["y"], g["n"], g["incy"], val)
        return {"y": g["y"]}
    if family == "tbmv":
        a = band_dense(g["A"], g["n"], g["k"], g["lda"], g["uplo"])
        if g["diag"] == "U":
            np.fill_diagonal(a, 1)
        setv(g["x"], g["n"], g["incx"], op(a, g["trans"], cplx) @ getv(g["x"], g["n"], g["incx"]))
        return {"x": g["x"]}
    if family == "trsv":
        t = op(tri_from(getm(g["A"], g["n"], g["n"], g["lda"]), g["uplo"], g["diag"]), g["trans"], cplx)
        setv(g["x"], g["n"], g["incx"], substitute(t, getv(g["x"], g["n"], g["incx"])))
        return {"x": g["x"]}
    if family == "syr2":
        x, y = getv(g["x"], g["n"], g["incx"]), getv(g["y"], g["n"], g["incy"])
        A = getm(g["A"], g["n"], g["n"], g["lda"]) + g["alpha"] * (np.outer(x, y) + np.outer(y, x))
        setm(g["A"], g["n"], g["n"], g["lda"], A, keep=in_tri(g["uplo"]))
        return {"A": g["A"]}
    if family == "symm":
        m, n = g["m"], g["n"]
        ka = m if g["side"] == "L" else n
        a = sym_from(getm(g["A"], ka, ka, g["lda"]), g["uplo"])
        b = getm(g["B"], m, n, g["ldb"])
        val = g["alpha"] * (a @ b if g["side"] == "L" else b @ a)
        if g["beta"] != 0:
            val = val + g["beta"] * getm(g["C"], m, n, g["ldc"])
        setm(g["C"], m, n, g["ldc"], val)
        return {"C": g["C"]}
    if family == "syrk":
        n, k = g["n"], g["k"]
        tr = "T" if g["trans"] in ("T", "C") else "N"
        a = op(getm(g["A"], *((n, k) if tr == "N" else (k, n)), g["lda"]), tr, cplx)
        val = g["alpha"] * a @ a.T
        if g["beta"] != 0:
            val = val + g["beta"] * getm(g["C"], n, n, g["ldc"])
        setm(g["C"], n, n, g["ldc"], val, keep=in_tri(g["uplo"]))
        return {"C": g["C"]}
    if family == "trsm":
        m, n = g["m"], g["n"]
        ka = m if g["side"] == "L" else n
        count = g.get("batchCount", 1)
        As = g["A"] if isinstance(g["A"], list) else [g["A"]]
        Bs = g["B"] if isinstance(g["B"], list) else [g["B"]]
        for b in range(count):
            t = op(tri_from(getm(As[b], ka, ka, g["lda"]), g["uplo"], g["diag"]), g["trans"], cplx)
            rhs = g["alpha"] * getm(Bs[b], m, n, g["ldb"])
            x = substitute(t, rhs) if g["side"] == "L" else substitute(t.T, rhs.T).T
            setm(Bs[b], m, n, g["ldb"], x)
        return {"B": Bs if isinstance(g["B"], list) else g["B"]}
    if family == "geam":
        m, n = g["m"], g["n"]
        val = np.zeros((m, n), dtype=g["C"].dtype)
        if g["alpha"] != 0:
            val = val + g["alpha"] * op(getm(g["A"], *((m, n) if g["transa"] == "N" else (n, m)), g["lda"]),
                                        g["transa"], cplx)
        if g["beta"] != 0:
            val = val + g["beta"] * op(getm(g["B"], *((m, n) if g["transb"] == "N" else (n, m)), g["ldb"]),
                                       g["transb"], cplx)
        setm(g["C"], m, n, g["ldc"], val)
        return {"C": g["C"]}
    if family == "dgmm":
        m, n = g["m"], g["n"]
        x = getv(g["x"], m if g["mode"] == "L" else n, g["incx"])
        a = getm(g["A"], m, n, g["lda"])
        setm(g["C"], m, n, g["ldc"], np.diag(x) @ a if g["mode"] == "L" else a @ np.diag(x))
        return {"C": g["C"]}
    n = g["n"]
    if family == "axpy":
        setv(g["y"], n, g["incy"], g["alpha"] * getv(g["x"], n, g["incx"]) + getv(g["y"], n, g["incy"]))
        return {"y": g["y"]}
    if family == "scal":
        setv(g["x"], n, g["incx"], g["alpha"] * getv(g["x"], n, g["incx"]))
        return {"x": g["x"]}
    if family == "copy":
        setv(g["y"], n, g["incy"], getv(g["x"], n, g["incx"]))
        return {"y": g["y"]}
    if family == "swap":
        x, y = getv(g["x"], n, g["incx"]), getv(g["y"], n, g["incy"])
        setv(g["x"], n, g["incx"], y)
        setv(g["y"], n, g["incy"], x)
        return {"x": g["x"], "y": g["y"]}
    if family in ("dot", "dotu", "dotc"):
        x = getv(g["x"], n, g["incx"])
        return {"result": np.array([np.sum((x.conj() if family == "dotc" else x) * getv(g["y"], n, g["incy"]))])}
    if family == "asum":
        x = getv(g["x"], n, g["incx"])
        return {"result": np.array([np.sum(np.abs(x.real) + np.abs(x.imag))])}
    raise AssertionError(f"no oracle for {family}")


def _cases():
    data = tasks_data()
    for name in curated_names():
        spec = data["specs"][data["routines"][name]["spec"]]
        for w in spec["workloads"]:
            if w["purpose"] == "correctness":
                yield pytest.param(name, w["id"], id=f"{name}-{w['id']}")


@pytest.mark.parametrize(("name", "workload_id"), list(_cases()))
def test_reference_matches_oracle(name: str, workload_id: str) -> None:
    task = curated_tasks()[name]
    w = next(w for w in task.workloads if w.id == workload_id)
    args = make_args(task, w, seed=7, device="cpu")
    assert set(args) == {p.name for p in task.params}, "the generator returns exactly the routine's arguments"
    before = {k: (v.clone() if isinstance(v, torch.Tensor) else v) for k, v in args.items()}
    family = classify(name).family
    expected = oracle(family, args, cplx=any(p.dtype and "complex" in p.dtype for p in task.params))
    load_code(task.reference)(**args)
    written = {p.name for p in task.params if p.mutable}
    assert set(expected) == written
    for key, want in expected.items():
        got = args[key] if isinstance(args[key], list) else [args[key]]
        wants = want if isinstance(want, list) else [want]
        for g, e in zip(got, wants, strict=True):
            tol = task.tolerance[str(g.dtype).removeprefix("torch.")]
            gn = _np(g)
            np.testing.assert_allclose(gn, e.astype(gn.dtype), rtol=tol.rtol, atol=tol.atol, equal_nan=False,
                                       err_msg=f"{name}/{workload_id}: {key}")
    for key, value in before.items():  # read-only arguments are untouched
        if isinstance(value, torch.Tensor) and key not in written:
            assert torch.equal(args[key].nan_to_num(), value.nan_to_num()), f"{key} was written"


def test_beta_zero_ignores_nan_output() -> None:
    task = curated_tasks()["cublasSgemm_v2"]
    w = next(w for w in task.workloads if w.id == "c_nt_beta0_nan")
    args = make_args(task, w, seed=1, device="cpu")
    assert torch.isnan(args["C"]).all()
    load_code(task.reference)(**args)
    assert torch.isfinite(args["C"]).all()


def test_negative_increment_reads_from_the_end() -> None:
    ref = load_code(curated_tasks()["cublasSaxpy_v2"].reference)
    x = torch.tensor([1.0, 2.0, 3.0])
    y = torch.zeros(5)
    ref(n=3, alpha=1.0, x=x, incx=-1, y=y, incy=2)
    assert y.tolist() == [3.0, 0.0, 2.0, 0.0, 1.0]


def test_padding_rows_untouched() -> None:
    ref = load_code(curated_tasks()["cublasSgemm_v2"].reference)
    C = torch.full((3 * 2,), 7.0)
    ref(transa="N", transb="N", m=2, n=2, k=1, alpha=1.0, A=torch.ones(2), lda=2, B=torch.ones(2), ldb=1,
        beta=0.0, C=C, ldc=3)
    assert C.tolist() == [1.0, 1.0, 7.0, 1.0, 1.0, 7.0]


def test_tolerance_grows_with_reduction_length() -> None:
    sgemm = curated_tasks()["cublasSgemm_v2"]
    saxpy = curated_tasks()["cublasSaxpy_v2"]
    k = sgemm.details["cublas"]["reduction"]["max"]
    assert k == 4096
    assert sgemm.tolerance["float32"].atol == pytest.approx(2e-6 * math.sqrt(4096))
    assert saxpy.tolerance["float32"].atol == pytest.approx(1e-5)  # the floor: no reduction


@pytest.mark.parametrize("name", curated_names())
def test_cost_expressions_evaluate(name: str) -> None:
    from kernelgenbench.evaluator.cost import workload_cost

    task = curated_tasks()[name]
    w = task.correctness_workloads[0]
    args = make_args(task, w, seed=0, device="cpu")
    outs = [args[p.name] for p in task.params if p.mutable]
    cost = workload_cost(task.cost, args, outs)
    assert cost["bytes"] > 0
    assert cost["flops"] > 0 or classify(name).family in ("copy", "swap")
    if classify(name).family in ("symm", "trsm"):  # ka recovered from A's storage is the true one
        p = dict(w.params)
        ka = p["m"] if p.get("side", "L") == "L" else p["n"]
        per = (8 if "complex" in p["dtype"] else 2) * (1 if classify(name).family == "trsm" else 2) // 2
        assert cost["flops"] == per * p["m"] * p["n"] * ka * p.get("batch_count", 1)
