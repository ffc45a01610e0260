"""Input generators of the curated cuBLAS routines: `<family>_inputs(params, *, seed, device) -> kwargs`.

Each returns the routine's arguments without the handle, keyed by the header's parameter names, in the
candidate's convention: 1-D device tensors holding column-major storage (leading dimensions and
increments as the params say, negative increments included), lists of tensors for Batched pointer
arrays, Python numbers for alpha/beta (complex for complex dtypes), enum names as strings.

Draws are made on the target device with a generator seeded by `seed`: the same seed gives the same
inputs on the same kind of device. Values are scaled so that outputs are O(1) whatever the reduction length (the tolerance then grows only
with the rounding of the reduction). Triangular systems are well conditioned (diagonal in [1, 2],
off-diagonal entries of size 1/n). Entries a routine must not read (the other triangle of a symmetric or
triangular matrix, the diagonal under diag "U", the unused corner of band storage) hold large finite
garbage, so a kernel that reads them fails. `c_fill: nan` fills the output with NaN for beta = 0 cases.
Self-contained: imports only torch and math.
"""

import math

import torch

_CUDA_TYPES = {"CUDA_R_16F": "float16", "CUDA_R_16BF": "bfloat16", "CUDA_R_32F": "float32",
               "CUDA_R_64F": "float64", "CUDA_C_32F": "complex64", "CUDA_C_64F": "complex128"}
_GARBAGE = 1.0e3


class _Draw:
    """Seeded draws made on the target device itself (gigabytes of inputs would take minutes on a CPU)."""

    def __init__(self, seed, device):
        self.device = torch.device(device)
        self.gen = torch.Generator(device=self.device).manual_seed(seed)

    def normal(self, n, dtype, scale=1.0):
        # Draw in the storage's own precision class: float64 draws only for float64/complex128 data.
        wide = dtype in (torch.float64, torch.complex128)
        real = torch.float64 if wide else torch.float32
        if dtype.is_complex:
            re = torch.randn(n, generator=self.gen, dtype=real, device=self.device)
            im = torch.randn(n, generator=self.gen, dtype=real, device=self.device)
            v = torch.complex(re, im) * (scale / math.sqrt(2))
        else:
            v = torch.randn(n, generator=self.gen, dtype=real, device=self.device) * scale
        return v.to(dtype)

    def uniform(self, n, lo, hi):
        return torch.rand(n, generator=self.gen, dtype=torch.float64, device=self.device) * (hi - lo) + lo

    def arange(self, n):
        return torch.arange(n, device=self.device)


def _dtype(name):
    return getattr(torch, _CUDA_TYPES.get(name, name))


def _scalar(value, dtype):
    """alpha/beta as the candidate gets them; [re, im] in params is complex (its real part for real dtypes)."""
    if isinstance(value, (list, tuple)):
        return complex(value[0], value[1]) if dtype.is_complex else float(value[0])
    return complex(value) if dtype.is_complex else float(value)


def _vlen(n, inc):
    return 1 + (n - 1) * abs(inc) if n > 0 else 1


def _mlen(rows, cols, ld):
    return ld * (cols - 1) + rows if cols > 0 and rows > 0 else 1


def _matrix(d, rows, cols, ld, dtype, scale, fill=None):
    """Column-major rows x cols storage with leading dimension ld (>= rows); padding rows are garbage."""
    ld = max(ld, rows, 1)
    buf = d.normal(ld * max(cols, 1), dtype, scale)
    if fill == "nan":
        buf = torch.full_like(buf, float("nan"))
    return buf[: _mlen(rows, cols, ld)].clone()


def _vector(d, n, inc, dtype, scale=1.0, fill=None):
    buf = d.normal(_vlen(n, inc), dtype, scale)
    return torch.full_like(buf, float("nan")) if fill == "nan" else buf


def _stored(trans, rows, cols):
    return (rows, cols) if trans == "N" else (cols, rows)


def _batch(d, p, make, stride_len):
    """One operand per batch mode: 'none' -> tensor, 'list' -> list of tensors, 'strided' -> one tensor."""
    mode, count = p.get("batch", "none"), int(p.get("batch_count", 1))
    if mode == "none":
        return make(), None
    if mode == "list":
        return [make() for _ in range(count)], None
    stride = stride_len + int(p.get("stride_pad", 0))
    parts = []
    for b in range(count):
        one = make()
        parts.append(one)
        if b + 1 < count:
            parts.append(torch.zeros(stride - one.numel(), dtype=one.dtype, device=one.device))
    return torch.cat(parts), stride


def _names(p, plain, listed):
    return listed if p.get("batch", "none") == "list" else plain


def gemm_inputs(params, *, seed, device):
    """Arguments of cublas<t>gemm / gemmBatched / gemmStridedBatched / SgemmEx."""
    p = dict(params)
    d = _Draw(seed, device)
    ta, tb, m, n, k = p.get("transa", "N"), p.get("transb", "N"), int(p["m"]), int(p["n"]), int(p["k"])
    atype = _dtype(p.get("atype", p["dtype"]))
    ctype = _dtype(p.get("ctype", p["dtype"]))
    ar, ac = _stored(ta, m, k)
    br, bc = _stored(tb, k, n)
    lda, ldb, ldc = int(p.get("lda", ar)), int(p.get("ldb", br)), int(p.get("ldc", m))
    out = {"transa": ta, "transb": tb, "m": m, "n": n, "k": k}
    scale_b = 1.0 / math.sqrt(max(k, 1))
    A, sa = _batch(d, p, lambda: _matrix(d, ar, ac, lda, atype, 1.0), lda * ac)
    if p.get("stride_a_zero"):  # every batch reads the same A
        A, sa = _matrix(d, ar, ac, lda, atype, 1.0), 0
    B, sb = _batch(d, p, lambda: _matrix(d, br, bc, ldb, atype, scale_b), ldb * bc)
    C, sc = _batch(d, p, lambda: _matrix(d, m, n, ldc, ctype, 1.0, p.get("c_fill")), ldc * n)
    an, bn, cn = _names(p, ("A", "B", "C"), ("Aarray", "Barray", "Carray"))
    scal_t = ctype if "atype" not in p else torch.float32
    out["alpha"] = _scalar(p.get("alpha", 1.0), scal_t)
    out[an], out["lda"] = A, lda
    if sa is not None:
        out["strideA"] = sa
    out[bn], out["ldb"] = B, ldb
    if sb is not None:
        out["strideB"] = sb
    out["beta"] = _scalar(p.get("beta", 0.0), scal_t)
    out[cn], out["ldc"] = C, ldc
    if sc is not None:
        out["strideC"] = sc
    if p.get("batch", "none") != "none":
        out["batchCount"] = int(p["batch_count"])
    if "atype" in p:
        out["Atype"], out["Btype"], out["Ctype"] = p["atype"], p["atype"], p["ctype"]
    return _to_device(d, out)


def gemv_inputs(params, *, seed, device):
    """Arguments of cublas<t>gemv / gemvBatched / gemvStridedBatched."""
    p = dict(params)
    d = _Draw(seed, device)
    dt = _dtype(p["dtype"])
    trans, m, n = p.get("trans", "N"), int(p["m"]), int(p["n"])
    lda, incx, incy = int(p.get("lda", m)), int(p.get("incx", 1)), int(p.get("incy", 1))
    lx, ly = (n, m) if trans == "N" else (m, n)
    A, sa = _batch(d, p, lambda: _matrix(d, m, n, lda, dt, 1.0), lda * n)
    x, sx = _batch(d, p, lambda: _vector(d, lx, incx, dt, 1.0 / math.sqrt(max(lx, 1))), _vlen(lx, incx))
    y, sy = _batch(d, p, lambda: _vector(d, ly, incy, dt, 1.0, p.get("y_fill")), _vlen(ly, incy))
    an, xn, yn = _names(p, ("A", "x", "y"), ("Aarray", "xarray", "yarray"))
    out = {"trans": trans, "m": m, "n": n, "alpha": _scalar(p.get("alpha", 1.0), dt), an: A, "lda": lda}
    if sa is not None:
        out["strideA"] = sa
    out[xn], out["incx"] = x, incx
    if sx is not None:
        out["stridex"] = sx
    out["beta"] = _scalar(p.get("beta", 0.0), dt)
    out[yn], out["incy"] = y, incy
    if sy is not None:
        out["stridey"] = sy
    if p.get("batch", "none") != "none":
        out["batchCount"] = int(p["batch_count"])
    return _to_device(d, out)


def ger_inputs(params, *, seed, device):
    """Arguments of cublas<t>ger / geru / gerc."""
    p = dict(params)
    d = _Draw(seed, device)
    dt = _dtype(p["dtype"])
    m, n = int(p["m"]), int(p["n"])
    lda, incx, incy = int(p.get("lda", m)), int(p.get("incx", 1)), int(p.get("incy", 1))
    return _to_device(d, {
        "m": m, "n": n, "alpha": _scalar(p.get("alpha", 1.0), dt), "x": _vector(d, m, incx, dt), "incx": incx,
        "y": _vector(d, n, incy, dt), "incy": incy, "A": _matrix(d, m, n, lda, dt, 1.0), "lda": lda})


def _with_garbage(a, keep):
    return torch.where(keep, a, torch.full_like(a, _GARBAGE))


def _square(d, n, lda, dt, uplo, scale, diag_range=None, unit=False):
    """n x n storage whose `uplo` triangle holds data and the rest garbage; returned as 1-D storage."""
    lda = max(lda, n, 1)
    full = d.normal(lda * n, dt, scale).reshape(n, lda).transpose(0, 1)  # column-major view, lda x n
    core = full[:n, :]
    rows = d.arange(n)[:, None]
    cols = d.arange(n)[None, :]
    keep = (rows <= cols) if uplo == "U" else (rows >= cols)
    if diag_range is not None:
        lo, hi = diag_range
        core = core.clone()
        idx = d.arange(n)
        core[idx, idx] = d.uniform(n, lo, hi).to(dt)
    if unit:
        keep = keep & (rows != cols)
    full = full.clone()
    full[:n, :] = _with_garbage(core, keep)
    return full.transpose(0, 1).reshape(-1)[: _mlen(n, n, lda)].clone()


def symv_inputs(params, *, seed, device):
    """Arguments of cublas<t>symv."""
    p = dict(params)
    d = _Draw(seed, device)
    dt = _dtype(p["dtype"])
    uplo, n = p.get("uplo", "U"), int(p["n"])
    lda, incx, incy = int(p.get("lda", n)), int(p.get("incx", 1)), int(p.get("incy", 1))
    return _to_device(d, {
        "uplo": uplo, "n": n, "alpha": _scalar(p.get("alpha", 1.0), dt), "A": _square(d, n, lda, dt, uplo, 1.0),
        "lda": lda, "x": _vector(d, n, incx, dt, 1.0 / math.sqrt(max(n, 1))), "incx": incx,
        "beta": _scalar(p.get("beta", 0.0), dt), "y": _vector(d, n, incy, dt, 1.0, p.get("y_fill")),
        "incy": incy})


def syr2_inputs(params, *, seed, device):
    """Arguments of cublas<t>syr2."""
    p = dict(params)
    d = _Draw(seed, device)
    dt = _dtype(p["dtype"])
    uplo, n = p.get("uplo", "U"), int(p["n"])
    lda, incx, incy = int(p.get("lda", n)), int(p.get("incx", 1)), int(p.get("incy", 1))
    return _to_device(d, {
        "uplo": uplo, "n": n, "alpha": _scalar(p.get("alpha", 1.0), dt), "x": _vector(d, n, incx, dt),
        "incx": incx, "y": _vector(d, n, incy, dt), "incy": incy, "A": _square(d, n, lda, dt, uplo, 1.0),
        "lda": lda})


def _band(d, n, k, lda, dt, uplo, scale):
    """(k+1) x n band storage (leading dimension lda); the unused corner and padding rows are garbage."""
    lda = max(lda, k + 1)
    buf = d.normal(lda * n, dt, scale).reshape(n, lda).transpose(0, 1).clone()  # lda x n, column-major
    r = d.arange(lda)[:, None]
    j = d.arange(n)[None, :]
    used = (r <= k) & ((r >= k - j) if uplo == "U" else (r < n - j))
    buf = _with_garbage(buf, used)
    return buf.transpose(0, 1).reshape(-1)[: _mlen(k + 1, n, lda)].clone()


def sbmv_inputs(params, *, seed, device):
    """Arguments of cublas<t>sbmv (symmetric band matrix-vector product)."""
    p = dict(params)
    d = _Draw(seed, device)
    dt = _dtype(p["dtype"])
    uplo, n, k = p.get("uplo", "U"), int(p["n"]), int(p["k"])
    lda, incx, incy = int(p.get("lda", k + 1)), int(p.get("incx", 1)), int(p.get("incy", 1))
    return _to_device(d, {
        "uplo": uplo, "n": n, "k": k, "alpha": _scalar(p.get("alpha", 1.0), dt),
        "A": _band(d, n, k, lda, dt, uplo, 1.0), "lda": lda,
        "x": _vector(d, n, incx, dt, 1.0 / math.sqrt(2 * k + 1)), "incx": incx,
        "beta": _scalar(p.get("beta", 0.0), dt), "y": _vector(d, n, incy, dt, 1.0, p.get("y_fill")),
        "incy": incy})


def tbmv_inputs(params, *, seed, device):
    """Arguments of cublas<t>tbmv (triangular band matrix-vector product)."""
    p = dict(params)
    d = _Draw(seed, device)
    dt = _dtype(p["dtype"])
    uplo, n, k = p.get("uplo", "U"), int(p["n"]), int(p["k"])
    lda, incx = int(p.get("lda", k + 1)), int(p.get("incx", 1))
    A = _band(d, n, k, lda, dt, uplo, 1.0 / math.sqrt(k + 1))
    if p.get("diag", "N") == "U":  # the diagonal is not read: make it garbage
        lda_ = max(lda, k + 1)
        row = k if uplo == "U" else 0
        A[row + lda_ * d.arange(n)] = _GARBAGE
    return _to_device(d, {
        "uplo": uplo, "trans": p.get("trans", "N"), "diag": p.get("diag", "N"), "n": n, "k": k, "A": A,
        "lda": lda, "x": _vector(d, n, incx, dt), "incx": incx})


def trsv_inputs(params, *, seed, device):
    """Arguments of cublas<t>trsv (well-conditioned triangular system)."""
    p = dict(params)
    d = _Draw(seed, device)
    dt = _dtype(p["dtype"])
    uplo, n, diag = p.get("uplo", "U"), int(p["n"]), p.get("diag", "N")
    lda, incx = int(p.get("lda", n)), int(p.get("incx", 1))
    A = _square(d, n, lda, dt, uplo, 1.0 / max(n, 1), (1.0, 2.0), unit=diag == "U")
    return _to_device(d, {
        "uplo": uplo, "trans": p.get("trans", "N"), "diag": diag, "n": n, "A": A, "lda": lda,
        "x": _vector(d, n, incx, dt), "incx": incx})


def symm_inputs(params, *, seed, device):
    """Arguments of cublas<t>symm."""
    p = dict(params)
    d = _Draw(seed, device)
    dt = _dtype(p["dtype"])
    side, uplo, m, n = p.get("side", "L"), p.get("uplo", "U"), int(p["m"]), int(p["n"])
    ka = m if side == "L" else n
    lda, ldb, ldc = int(p.get("lda", ka)), int(p.get("ldb", m)), int(p.get("ldc", m))
    return _to_device(d, {
        "side": side, "uplo": uplo, "m": m, "n": n, "alpha": _scalar(p.get("alpha", 1.0), dt),
        "A": _square(d, ka, lda, dt, uplo, 1.0), "lda": lda,
        "B": _matrix(d, m, n, ldb, dt, 1.0 / math.sqrt(max(ka, 1))), "ldb": ldb,
        "beta": _scalar(p.get("beta", 0.0), dt), "C": _matrix(d, m, n, ldc, dt, 1.0, p.get("c_fill")),
        "ldc": ldc})


def syrk_inputs(params, *, seed, device):
    """Arguments of cublas<t>syrk and cublasCsyrkEx (with `atype`/`ctype`)."""
    p = dict(params)
    d = _Draw(seed, device)
    at, ct = _dtype(p.get("atype", p["dtype"])), _dtype(p.get("ctype", p["dtype"]))
    uplo, trans, n, k = p.get("uplo", "U"), p.get("trans", "N"), int(p["n"]), int(p["k"])
    ar, ac = _stored(trans, n, k)
    lda, ldc = int(p.get("lda", ar)), int(p.get("ldc", n))
    out = {"uplo": uplo, "trans": trans, "n": n, "k": k, "alpha": _scalar(p.get("alpha", 1.0), ct),
           "A": _matrix(d, ar, ac, lda, at, 1.0 / math.sqrt(math.sqrt(max(k, 1)))), "lda": lda,
           "beta": _scalar(p.get("beta", 0.0), ct), "C": _matrix(d, n, n, ldc, ct, 1.0), "ldc": ldc}
    if "atype" in p:
        out = {key: out[key] for key in ("uplo", "trans", "n", "k", "alpha", "A")} | {
            "Atype": p["atype"], "lda": lda, "beta": out["beta"], "C": out["C"], "Ctype": p["ctype"], "ldc": ldc}
    return _to_device(d, out)


def trsm_inputs(params, *, seed, device):
    """Arguments of cublas<t>trsm / trsmBatched (well-conditioned triangular systems)."""
    p = dict(params)
    d = _Draw(seed, device)
    dt = _dtype(p["dtype"])
    side, uplo, diag, m, n = p.get("side", "L"), p.get("uplo", "U"), p.get("diag", "N"), int(p["m"]), int(p["n"])
    ka = m if side == "L" else n
    lda, ldb = int(p.get("lda", ka)), int(p.get("ldb", m))

    def tri():
        return _square(d, ka, lda, dt, uplo, 1.0 / max(ka, 1), (1.0, 2.0), unit=diag == "U")

    batched = p.get("batch", "none") == "list"
    count = int(p.get("batch_count", 1))
    A = [tri() for _ in range(count)] if batched else tri()
    B = [_matrix(d, m, n, ldb, dt, 1.0) for _ in range(count)] if batched else _matrix(d, m, n, ldb, dt, 1.0)
    out = {"side": side, "uplo": uplo, "trans": p.get("trans", "N"), "diag": diag, "m": m, "n": n,
           "alpha": _scalar(p.get("alpha", 1.0), dt), "A": A, "lda": lda, "B": B, "ldb": ldb}
    if batched:
        out["batchCount"] = count
    return _to_device(d, out)


def geam_inputs(params, *, seed, device):
    """Arguments of cublas<t>geam."""
    p = dict(params)
    d = _Draw(seed, device)
    dt = _dtype(p["dtype"])
    ta, tb, m, n = p.get("transa", "N"), p.get("transb", "N"), int(p["m"]), int(p["n"])
    ar, ac = _stored(ta, m, n)
    br, bc = _stored(tb, m, n)
    lda, ldb, ldc = int(p.get("lda", ar)), int(p.get("ldb", br)), int(p.get("ldc", m))
    return _to_device(d, {
        "transa": ta, "transb": tb, "m": m, "n": n, "alpha": _scalar(p.get("alpha", 1.0), dt),
        "A": _matrix(d, ar, ac, lda, dt, 1.0), "lda": lda, "beta": _scalar(p.get("beta", 1.0), dt),
        "B": _matrix(d, br, bc, ldb, dt, 1.0), "ldb": ldb,
        "C": _matrix(d, m, n, ldc, dt, 1.0, p.get("c_fill")), "ldc": ldc})


def dgmm_inputs(params, *, seed, device):
    """Arguments of cublas<t>dgmm."""
    p = dict(params)
    d = _Draw(seed, device)
    dt = _dtype(p["dtype"])
    mode, m, n = p.get("mode", "R"), int(p["m"]), int(p["n"])
    lda, ldc, incx = int(p.get("lda", m)), int(p.get("ldc", m)), int(p.get("incx", 1))
    return _to_device(d, {
        "mode": mode, "m": m, "n": n, "A": _matrix(d, m, n, lda, dt, 1.0), "lda": lda,
        "x": _vector(d, m if mode == "L" else n, incx, dt), "incx": incx,
        "C": _matrix(d, m, n, ldc, dt, 1.0, p.get("c_fill")), "ldc": ldc})


def blas1_inputs(params, *, seed, device):
    """Arguments of the level-1 routines; params['op'] is axpy, scal, copy, swap, dot or asum."""
    p = dict(params)
    d = _Draw(seed, device)
    dt = _dtype(p["dtype"])
    op, n = p["op"], int(p["n"])
    incx, incy = int(p.get("incx", 1)), int(p.get("incy", 1))
    x = _vector(d, n, incx, dt)
    y = _vector(d, n, incy, dt)
    if op == "axpy":
        out = {"n": n, "alpha": _scalar(p.get("alpha", 1.0), dt), "x": x, "incx": incx, "y": y, "incy": incy}
    elif op == "scal":
        out = {"n": n, "alpha": _scalar(p.get("alpha", 1.0), dt), "x": x, "incx": incx}
    elif op in ("copy", "swap"):
        out = {"n": n, "x": x, "incx": incx, "y": y, "incy": incy}
    elif op == "dot":
        scale = 1.0 / math.sqrt(max(n, 1))
        out = {"n": n, "x": x * scale, "incx": incx, "y": y, "incy": incy, "result": torch.zeros(1, dtype=dt, device=d.device)}
    elif op == "asum":
        real = torch.float64 if dt in (torch.float64, torch.complex128) else torch.float32
        out = {"n": n, "x": x / max(n, 1), "incx": incx, "result": torch.zeros(1, dtype=real, device=d.device)}
    else:
        raise ValueError(f"unknown level-1 op {op!r}")
    return _to_device(d, out)


def _to_device(d, out):
    """Everything is drawn on d.device already; this only checks that nothing was left behind."""
    for key, value in out.items():
        for t in value if isinstance(value, list) else [value]:
            # By type: "cuda" asked for, "cuda:0" reported.
            if isinstance(t, torch.Tensor) and t.device.type != d.device.type:
                raise AssertionError(f"{key} was built on {t.device}, not {d.device}")
    return out
