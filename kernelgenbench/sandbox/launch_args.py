"""Pointer arguments that a launch would read through the candidate's own code, read before it instead.

Triton takes as a pointer any argument with a `data_ptr` (a library's strided buffer, a tensor subclass) and reads
it through the object's own methods: the GPU launcher calls `data_ptr()` and reads `dtype`, the interpreter calls
`untyped_storage()`, `storage_offset()`, `size()`, `stride()` and `new_empty()`. That code would run inside the
launch, where every write counts as the launch's and the dispatch recorder is paused. So each such argument is
read once before the launch, as the launch's host code (`LaunchCounter.host_code`: recorded as the call's own),
and the launch gets a stand-in it reads without running any code of the candidate's: a plain tensor on the same
storage (interpreted; made inside the launch, as the interpreter makes its own copies) or a fixed pointer with
its dtype (compiled; what Triton's own MockTensor offers).
"""

from __future__ import annotations

import dataclasses
import functools
import operator
from collections.abc import Callable
from types import FunctionType, ModuleType
from typing import Any

import torch

_TENSOR, _STORAGE = torch.Tensor, torch.UntypedStorage
_FN_ANNOTATIONS = FunctionType.__dict__["__annotations__"].__get__
_FN_GLOBALS = FunctionType.__dict__["__globals__"].__get__
_CLASS_DICT = type.__dict__["__dict__"].__get__
_T_DTYPE = torch._C.TensorBase.__dict__["dtype"].__get__
_PLAIN_VIEW = torch._C.TensorBase.as_subclass  # the same TensorImpl as a plain torch.Tensor (no torch function)
_type = type


class Pointer:
    """A compiled launch's stand-in for a pointer argument: its address and dtype, read once."""

    __slots__ = ("_ptr", "dtype")

    def __init__(self, ptr: int, dtype: Any) -> None:
        self._ptr, self.dtype = ptr, dtype

    def data_ptr(self) -> int:
        """The address read before the launch."""
        return self._ptr


class _Place:
    """An interpreted launch's pending stand-in: a storage and the view on it, made into a tensor in the launch."""

    __slots__ = ("dtype", "offset", "size", "storage", "stride")

    def __init__(self, v: Any) -> None:
        storage = v.untyped_storage()
        empty = v.new_empty(0, device=storage.device) if _type(storage) is _STORAGE else None  # as the interpreter
        if _type(empty) is not _TENSOR:
            raise TypeError(f"a launch argument of type {_type(v).__name__} gives no plain storage and tensor "
                            f"({_type(storage).__name__}, {_type(empty).__name__}): pass a torch.Tensor")
        self.storage, self.dtype = storage, _T_DTYPE(empty)
        self.offset = operator.index(v.storage_offset())
        self.size = tuple(operator.index(n) for n in v.size())
        self.stride = tuple(operator.index(n) for n in v.stride())

    def tensor(self) -> torch.Tensor:
        """A plain tensor on the storage (made with the recorder paused, as the interpreter's own copies are)."""
        t = torch.empty(0, dtype=self.dtype, device=self.storage.device)
        return t.set_(self.storage, self.offset, self.size, self.stride)


def _wrapper_class() -> type | None:
    try:
        from triton.runtime.jit import TensorWrapper
    except ImportError:
        return None
    return TensorWrapper


def descriptor_class() -> type | None:
    """triton's TensorDescriptor class (None: this triton has none)."""
    try:
        from triton.tools.tensor_descriptor import TensorDescriptor
    except ImportError:
        return None
    return TensorDescriptor


_EXACT = (bool, int, float, complex, str, bytes)


def _trusted(v: Any) -> bool:
    """An argument Triton reads without the candidate's code: a value of an exact plain type, no data pointer of
    its own and no scalar subclass, a plain tensor, or triton's reinterpreting wrapper or tensor descriptor around
    one."""
    cls = _type(v)
    if cls is _TENSOR or cls in _EXACT:
        return True
    if isinstance(v, tuple):  # a namedtuple too, by its members
        return all(_trusted(x) for x in tuple.__iter__(v))
    if cls in (_wrapper_class(), descriptor_class()):
        fields = object.__getattribute__(v, "__dict__")
        return _type(fields.get("base")) is _TENSOR and all(_plain(x) for k, x in fields.items() if k != "base")
    if cls is _constexpr_class():
        return _trusted(object.__getattribute__(v, "__dict__").get("value"))
    if triton_block(v):
        return False
    return not hasattr(cls, "data_ptr") and not hasattr(cls, "__getattr__") and not isinstance(v, _EXACT)


def _plain(v: Any, depth: int = 0) -> bool:
    """A descriptor's or wrapper's field that Triton reads (compares, hashes, tests) with no code of the
    candidate's: an exact scalar, None, a torch dtype or device, a plain tensor, an exact tuple, list or
    torch.Size of such, a member of triton's own enums, or one of triton's own dtypes with such fields (red team
    45 put an int subclass in a descriptor's shape, a str subclass as its padding and a dtype subclass in a
    wrapper: their comparisons ran inside the launch)."""
    cls = _type(v)
    if v is None or cls in _EXACT or cls in (torch.dtype, torch.device) or cls in _triton_enums():
        return True
    if cls in (tuple, list, torch.Size) and depth < 4:
        return all(_plain(x, depth + 1) for x in (list.__iter__(v) if cls is list else tuple.__iter__(v)))
    if cls is _TENSOR:  # a TensorWrapper's `data`: its base, as plain as the base is
        return True
    return cls in _triton_dtypes() and depth < 4 and all(
        _plain(x, depth + 1) for x in object.__getattribute__(v, "__dict__").values())


@functools.cache
def _triton_dtypes() -> tuple[type, ...]:
    """triton.language's dtype classes (dtype, pointer_type, block_type, ...): their code is triton's. Read once,
    before the candidate's import (`bind`): a class it adds to triton.language.core later is not among them."""
    try:
        from triton.language import core
    except ImportError:
        return ()
    return tuple(c for c in vars(core).values() if isinstance(c, type) and issubclass(c, core.dtype))


@functools.cache
def _triton_enums() -> tuple[type, ...]:
    """The enums triton's dtype classes hold (a dtype's signedness, its kind): members of triton's own classes."""
    import enum

    return tuple(c for d in _triton_dtypes() for c in vars(d).values() if isinstance(c, type) and issubclass(c, enum.Enum))


def _plain_copy(v: Any, depth: int = 0) -> Any:
    """A field as exact values (a scalar subclass's number, a sequence's members), read with the base types'
    own code; TypeError for anything else that is not `_plain`."""
    if _plain(v):
        return v
    cls = _type(v)
    if isinstance(v, _EXACT):
        return _exact(v)
    if isinstance(v, (tuple, list)) and depth < 4:
        members = [_plain_copy(x, depth + 1) for x in (tuple.__iter__(v) if isinstance(v, tuple) else list.__iter__(v))]
        return tuple(members) if isinstance(v, tuple) else members
    raise TypeError(f"a tensor descriptor's or wrapper's field of type {cls.__name__}: pass numbers, strings and "
                    f"triton's own dtypes")


def bind() -> None:
    """Read triton's own dtype classes and enums now (call before the candidate is imported)."""
    _triton_dtypes()
    _triton_enums()


def refused(kernel: Any, kwargs: dict[str, Any]) -> str | None:
    """What in a launch, other than its arguments' values, Triton would run the candidate's code through inside
    it (red team 46): a keyword's name that is no exact str (the interpreter compares names), a parameter
    annotation that is no string, class or triton dtype (Triton takes str() of each when it makes the kernel's
    JITFunction, lazily in the launch), a module-like global with a comparison of its own (the interpreter
    compares every module among the kernel's globals with triton.language). Call as host code."""
    keys = [k for k in kwargs if _type(k) is not str]
    if keys:
        return f"a keyword argument's name is a {_type(keys[0]).__name__}, not a str"
    fn = object.__getattribute__(kernel, "__dict__").get("fn") if hasattr(kernel, "__dict__") else None
    if _type(fn) is not FunctionType:
        return None
    odd = [a for a in dict.values(_FN_ANNOTATIONS(fn)) if not (_type(a) is str or _type(a) is type or _plain(a))]
    if odd:
        return f"a kernel parameter's annotation is a {_type(odd[0]).__name__}: annotate with strings or triton types"
    modules = [v for v in dict.values(_FN_GLOBALS(fn)) if _type(v) is not ModuleType and isinstance(v, ModuleType)]
    for v in modules:
        if any("__eq__" in _CLASS_DICT(c) or "__ne__" in _CLASS_DICT(c) for c in _type(v).__mro__
               if c not in (ModuleType, object)):
            return f"the kernel's global {_type(v).__name__} object passes for a module and compares by code of its own"
    return None


def _constexpr_class() -> type | None:
    try:
        from triton.language import constexpr
    except ImportError:
        return None
    return constexpr


def triton_block(v: Any) -> bool:
    """A triton in-kernel value (a block, an in-kernel descriptor), not a constexpr."""
    try:
        from triton.language import core
    except ImportError:
        return False
    return isinstance(v, core.base_value) and not isinstance(v, core.constexpr)


def pending(values: list[Any]) -> bool:
    """Whether any launch argument must be read before the launch (`read`)."""
    return not all(_trusted(v) for v in values)


class _Unreadable:
    """A keyword argument whose reading failed: the launch drops it if the kernel takes no such parameter, and
    fails on it if it does (its own code never runs inside the launch)."""

    __slots__ = ("why",)

    def __init__(self, why: BaseException) -> None:
        self.why = repr(why)[:200]


def read(args: tuple, kwargs: dict[str, Any], *, interpreted: bool) -> Callable[[], tuple[tuple, dict[str, Any]]]:
    """Read every argument that needs it now (run it as the launch's host code); the returned function gives the
    arguments with their stand-ins (call it inside the launch), or raises what reading a positional one raised
    (the launch would have: after the write checks that precede every launch)."""
    read_kwargs = {}
    for k, v in kwargs.items():
        try:
            read_kwargs[k] = _read(v, interpreted)
        except Exception as exc:  # noqa: BLE001 - maybe a keyword the launch drops unread (not a parameter)
            read_kwargs[k] = _Unreadable(exc)
    try:
        read_args = tuple(_read(v, interpreted) for v in args)
    except Exception as exc:  # noqa: BLE001 - the candidate's own error, raised where the launch raises it
        failed = exc

        def raises() -> tuple[tuple, dict[str, Any]]:
            raise failed

        return raises
    return lambda: (tuple(_made(v) for v in read_args), {k: _made(v) for k, v in read_kwargs.items()})


def _read(v: Any, interpreted: bool) -> Any:
    """`v` as the launch will get it: its stand-in where reading it would run the candidate's code."""
    if _trusted(v):
        return v
    cls = _type(v)
    if isinstance(v, tuple):
        members = tuple(_read(x, interpreted) for x in tuple.__iter__(v))
        return members if cls is tuple else tuple.__new__(cls, members)  # a namedtuple's own __new__ not run
    if isinstance(v, _EXACT):  # an int subclass (an enum member): the number a GPU launch specializes on
        return _exact(v)
    if cls is _constexpr_class():
        return cls(_read(object.__getattribute__(v, "__dict__").get("value"), interpreted))
    if triton_block(v):
        raise TypeError(f"a {cls.__name__} built on the host is no launch argument (a GPU launch takes tensors and "
                        f"scalars; a block exists only inside a kernel)")
    if isinstance(v, torch._C.TensorBase):  # a subclass (a Parameter): the same tensor as a plain one, no code run
        return _PLAIN_VIEW(v, _TENSOR)
    if cls in (_wrapper_class(), descriptor_class()):  # rebuilt from exact values: no field's code runs in it
        fields = object.__getattribute__(v, "__dict__")
        base = _read(fields.get("base"), interpreted)
        if cls is descriptor_class():
            return cls(**{f.name: base if f.name == "base" else _plain_copy(fields.get(f.name))
                          for f in dataclasses.fields(cls)})
        dtype = _plain_copy(fields.get("dtype"))
        return cls(base, dtype) if _type(base) is _TENSOR else Pointer(base.data_ptr(), dtype)
    if not callable(getattr(v, "data_ptr", None)):
        return v  # no pointer: the kernel rules judge what it is (sandbox/kernel_rules.py)
    if interpreted:
        return _Place(v)
    dtype = v.dtype
    return Pointer(operator.index(v.data_ptr()), dtype)


def _exact(v: Any) -> Any:
    """A scalar subclass's value as its exact base type, read with the base type's own code."""
    if isinstance(v, bool):
        return int.__int__(v) == 1
    if isinstance(v, int):
        return int.__int__(v)
    if isinstance(v, float):
        return float.__float__(v)
    if isinstance(v, complex):
        return complex(complex.real.__get__(v), complex.imag.__get__(v))
    if isinstance(v, str):
        return str.__str__(v)
    return bytes.__getitem__(v, slice(None))


def _made(v: Any) -> Any:
    if _type(v) is _Place:
        return v.tensor()
    if isinstance(v, tuple):
        members = tuple(_made(x) for x in tuple.__iter__(v))
        return members if _type(v) is tuple else tuple.__new__(_type(v), members)
    return v
