# kgb-corpus: task=cublas/cublasSaxpy_v2 expect=forbidden_api
# Calls cuBLAS itself through ctypes.
import ctypes

_lib = ctypes.CDLL("libcublas.so.12")


def cublasSaxpy_v2(n, alpha, x, incx, y, incy):
    handle = ctypes.c_void_p()
    _lib.cublasCreate_v2(ctypes.byref(handle))
    a = ctypes.c_float(alpha)
    _lib.cublasSaxpy_v2(handle, n, ctypes.byref(a), ctypes.c_void_p(x.data_ptr()), incx,
                        ctypes.c_void_p(y.data_ptr()), incy)
