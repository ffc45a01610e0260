"""Each parameter's data direction (in / out / inout) from BLAS semantics, and what the candidate receives."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from kernelgenbench.dataset.record import Direction
from kernelgenbench.extractors.cublas.classify import Classification, families, families_data
from kernelgenbench.extractors.cublas.parse import CParam, Header

_ARRAY_SUFFIX = re.compile(r"(?<=.)(array|Array)$")
# C element types of device data, as torch dtype names.
DTYPES = {
    "float": "float32", "double": "float64", "cuComplex": "complex64", "cuFloatComplex": "complex64",
    "cuDoubleComplex": "complex128", "__half": "float16", "__nv_bfloat16": "bfloat16", "int": "int32",
    "int64_t": "int64", "long long int": "int64", "unsigned char": "uint8", "signed char": "int8",
    "int8_t": "int8", "int32_t": "int32", "uint8_t": "uint8",
}
_INTS = {"int", "int64_t", "long long int", "size_t", "int32_t", "unsigned int", "long long", "long"}
_COMPLEX = {"cuComplex", "cuFloatComplex", "cuDoubleComplex"}


class DirectionSource(StrEnum):
    """Why a parameter has its direction."""

    VALUE = "value"      # passed by value
    CONST = "const"      # pointer to const data
    BLAS = "blas"        # written per the family's BLAS semantics (data/cublas_families.yaml)
    HELPER = "helper"    # a helper's non-const pointer: where it stores what it returns
    DEFAULT = "default"  # a non-const pointer no data file speaks of: assumed read and written


class Passing(StrEnum):
    """What the candidate receives for a parameter (the handle is not passed at all)."""

    HANDLE = "handle"
    INT = "int"
    ENUM = "enum"
    HOST_SCALAR = "host_scalar"
    DEVICE_TENSOR = "device_tensor"
    DEVICE_TENSOR_LIST = "device_tensor_list"
    OTHER = "other"


@dataclass(frozen=True)
class ParamFacts:
    """Everything the record says about one C parameter beyond its text."""

    param: CParam
    direction: Direction
    direction_source: DirectionSource
    passing: Passing
    enum: str | None
    dtype: str | None

    @property
    def kind(self) -> str:
        """The task schema's param kind."""
        if self.passing is Passing.HOST_SCALAR:
            base = self.param.type.base
            return "complex" if base in _COMPLEX else ("float" if base in DTYPES else "scalar")
        return {
            Passing.INT: "int", Passing.ENUM: "enum", Passing.DEVICE_TENSOR: "tensor",
            Passing.DEVICE_TENSOR_LIST: "tensor_list",
        }.get(self.passing, "other")


def data_name(param_name: str) -> str:
    """The BLAS name of a parameter: Batched pointer arrays drop their suffix (Carray -> C)."""
    return _ARRAY_SUFFIX.sub("", param_name)


def param_facts(cls: Classification, header: Header, param: CParam) -> ParamFacts:
    """Direction, passing and dtype of one parameter of a routine."""
    t = param.type
    enum = t.base if header.enum(t.base) is not None else None
    depth = param.pointer_depth
    if t.base == "cublasHandle_t" and depth == 0:
        return ParamFacts(param, Direction.IN, DirectionSource.VALUE, Passing.HANDLE, None, None)
    if depth == 0:
        passing = Passing.ENUM if enum else (Passing.INT if t.base in _INTS else Passing.OTHER)
        return ParamFacts(param, Direction.IN, DirectionSource.VALUE, passing, enum, None)
    if cls.is_helper:
        if t.const:
            return ParamFacts(param, Direction.IN, DirectionSource.CONST, Passing.OTHER, enum, None)
        return ParamFacts(param, Direction.OUT, DirectionSource.HELPER, Passing.OTHER, enum, None)
    dtype = DTYPES.get(t.base)
    name = data_name(param.name)
    if depth == 1 and name in families_data()["host_scalars"]:
        return ParamFacts(param, Direction.IN, DirectionSource.CONST, Passing.HOST_SCALAR, None, dtype)
    # `T* const Carray[]` / `T** Carray`: a host array of device pointers.
    passing = Passing.DEVICE_TENSOR_LIST if depth == 2 else Passing.DEVICE_TENSOR
    if depth > 2 or enum or (t.base in _INTS and param.array):
        # Host arrays of sizes/options (cublasSgemmGroupedBatched's m_array[]...) are not device data.
        passing = Passing.OTHER
    if t.const:
        return ParamFacts(param, Direction.IN, DirectionSource.CONST, passing, enum, dtype)
    fam = families().get(cls.family)
    writes = dict(fam.writes) if fam else {}
    if name in writes:
        return ParamFacts(param, Direction(writes[name]), DirectionSource.BLAS, passing, enum, dtype)
    return ParamFacts(param, Direction.INOUT, DirectionSource.DEFAULT, passing, enum, dtype)
