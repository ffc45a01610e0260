"""Move argument and output tensors between the evaluator and its worker, storage layout intact.

Storages travel as raw bytes in shared memory and the structure as JSON, so a worker cannot make the
evaluator run code: nothing it sends is unpickled. Strides and storage offsets survive the move
(strided inputs, views that alias their input).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import torch


def move(t: torch.Tensor, device: str | torch.device, memo: dict[tuple[int, int, str], Any] | None = None) -> torch.Tensor:
    """A copy of `t` on `device` with the same sizes, strides and storage offset (a fresh buffer).

    Tensors moved with one `memo` that share a storage share the moved storage too (a joint K/V cache
    stays joint).
    """
    memo = {} if memo is None else memo
    st = t.untyped_storage()
    key = (st.data_ptr(), st.nbytes(), str(t.device))
    if key not in memo:
        raw = torch.empty(0, dtype=torch.uint8, device=t.device).set_(st)
        memo[key] = raw.to(device, copy=True).untyped_storage()
    moved = memo[key]
    return torch.empty(0, dtype=t.dtype, device=device).set_(moved, t.storage_offset(), t.shape, t.stride())


def move_tree(value: Any, device: str | torch.device, memo: dict[tuple[int, int, str], Any] | None = None) -> Any:
    """`move` applied to every tensor inside lists, tuples and dicts, keeping shared storages shared."""
    memo = {} if memo is None else memo
    if isinstance(value, torch.Tensor):
        return move(value, device, memo)
    if isinstance(value, (list, tuple)):
        return type(value)(move_tree(v, device, memo) for v in value)
    if isinstance(value, dict):
        return {k: move_tree(v, device, memo) for k, v in value.items()}
    return value


def clone_tree(value: Any) -> Any:
    """A deep copy where every tensor is cloned with its layout into fresh storage on its own device."""
    return move_tree(value, _device_of(value))


def _device_of(value: Any) -> torch.device:
    if isinstance(value, torch.Tensor):
        return value.device
    if isinstance(value, (list, tuple)):
        return next((_device_of(v) for v in value if _device_of(v).type != "cpu"), torch.device("cpu"))
    if isinstance(value, dict):
        return _device_of(list(value.values()))
    return torch.device("cpu")


# --- raw shared-memory transfer --------------------------------------------------------------------------
# Tens of MB a round through a pipe as torch.save bytes cost about a second each way (zip, CRC, pipe
# copies). Instead each tensor storage is written once as raw bytes to a file in a shared-memory folder,
# and the structure travels as JSON: the receiver rebuilds tensors from bytes and metadata alone, with no
# pickle anywhere, so a worker still cannot make the evaluator run code.

_PREFIX = re.compile(r"^[A-Za-z0-9_-]{1,100}$")
_SCALARS = (bool, int, float, str)


def transfer_dir(fallback: Path) -> Path:
    """Where transfers go: /dev/shm (memory) when this machine has it writable, else `fallback`."""
    shm = Path("/dev/shm")
    return shm if shm.is_dir() and os.access(shm, os.W_OK) else fallback


def pack(obj: Any, folder: Path, prefix: str) -> dict[str, Any]:
    """Write every tensor storage in `obj` to `folder` as `<prefix>-<i>.bin`; the JSON-ready rest.

    Storages shared by several tensors are written once, so aliasing survives the trip. Supported: tensors
    (any device; subclasses travel as plain tensors), lists, tuples, dicts with string keys, None, bool,
    int, float, str, complex, torch dtypes, devices, layouts and memory formats.
    """
    if not _PREFIX.match(prefix):
        raise ValueError(f"bad transfer prefix {prefix!r}")
    sizes: list[int] = []
    index: dict[tuple[int, int, str], int] = {}

    def enc(v: Any) -> Any:
        if v is None or type(v) in _SCALARS:
            return v
        if isinstance(v, torch.Tensor):
            t = v.detach()
            t = t if type(t) is torch.Tensor else t.as_subclass(torch.Tensor)
            st = t.untyped_storage()
            key = (st.data_ptr(), st.nbytes(), str(t.device))
            if key not in index:
                index[key] = len(sizes)
                raw = torch.empty(0, dtype=torch.uint8, device=t.device).set_(st).cpu()
                with open(folder / f"{prefix}-{index[key]}.bin", "wb") as f:
                    f.write(memoryview(raw.numpy()))
                sizes.append(st.nbytes())
            return {"tensor": [index[key], str(t.dtype).removeprefix("torch."), list(t.shape), list(t.stride()),
                               t.storage_offset()]}
        if isinstance(v, list):
            return {"list": [enc(x) for x in v]}
        if isinstance(v, tuple):
            return {"tuple": [enc(x) for x in v]}
        if isinstance(v, dict):
            if not all(isinstance(k, str) for k in v):
                raise TypeError("only dicts with string keys can be transferred")
            return {"dict": [[k, enc(x)] for k, x in v.items()]}
        if isinstance(v, complex):
            return {"complex": [v.real, v.imag]}
        if isinstance(v, torch.dtype):
            return {"dtype": str(v).removeprefix("torch.")}
        if isinstance(v, torch.device):
            return {"device": str(v)}
        if isinstance(v, (torch.layout, torch.memory_format)):
            return {"torch": str(v).removeprefix("torch.")}
        raise TypeError(f"a {type(v).__name__} cannot be transferred (only tensors, containers and plain values)")

    value = enc(obj)
    return {"prefix": prefix, "storages": sizes, "value": value}


def _torch_attr(name: Any, kind: type | tuple[type, ...]) -> Any:
    attr = getattr(torch, str(name), None)
    if not isinstance(attr, kind):
        raise ValueError(f"{name!r} is not a torch {kind}")
    return attr


def unpack(desc: Any, folder: Path) -> Any:
    """Rebuild what `pack` wrote (CPU tensors); the files are removed. Malformed input raises ValueError."""
    try:
        prefix, sizes, value = desc["prefix"], list(desc["storages"]), desc["value"]
    except (TypeError, KeyError) as exc:
        raise ValueError(f"malformed transfer: {exc!r}") from None
    if not isinstance(prefix, str) or not _PREFIX.match(prefix):
        raise ValueError(f"bad transfer prefix {prefix!r}")
    raws: list[torch.Tensor] = []
    try:
        for i, nbytes in enumerate(sizes):
            path = folder / f"{prefix}-{i}.bin"
            if not isinstance(nbytes, int) or path.stat().st_size != nbytes:
                raise ValueError(f"transfer file {path.name} does not hold {nbytes!r} bytes")
            raws.append(torch.from_file(str(path), shared=False, size=nbytes, dtype=torch.uint8) if nbytes
                        else torch.empty(0, dtype=torch.uint8))
    finally:
        for i in range(len(sizes)):
            (folder / f"{prefix}-{i}.bin").unlink(missing_ok=True)

    def dec(v: Any) -> Any:
        if v is None or type(v) in _SCALARS:
            return v
        if not isinstance(v, dict) or len(v) != 1:
            raise ValueError("malformed transfer value")
        (tag, body), = v.items()
        if tag == "tensor":
            i, dt, shape, stride, offset = body
            dtype = _torch_attr(dt, torch.dtype)
            try:
                return torch.empty(0, dtype=dtype).set_(raws[i].untyped_storage(), offset, shape, stride)
            except (RuntimeError, IndexError, TypeError) as exc:
                raise ValueError(f"tensor outside its storage: {exc}") from None
        if tag == "list":
            return [dec(x) for x in body]
        if tag == "tuple":
            return tuple(dec(x) for x in body)
        if tag == "dict":
            return {str(k): dec(x) for k, x in body}
        if tag == "complex":
            return complex(float(body[0]), float(body[1]))
        if tag == "dtype":
            return _torch_attr(body, torch.dtype)
        if tag == "device":
            return torch.device(str(body))
        if tag == "torch":
            return _torch_attr(body, (torch.layout, torch.memory_format))
        raise ValueError(f"unknown transfer tag {tag!r}")

    return dec(value)


def remove_transfers(folder: Path, tag: str) -> None:
    """Delete every transfer file whose prefix starts with `tag` (what a dead worker or a timeout left)."""
    for path in folder.glob(f"{tag}-*.bin"):
        path.unlink(missing_ok=True)


class Channel:
    """One side of one candidate's transfers: files in `folder` named `<tag>-<direction>-<n>-<i>.bin`.

    Both the evaluator (direction 'in') and its worker ('out') number what they send, so no two transfers
    of a run share a file, and `clear` finds everything one candidate left behind.
    """

    def __init__(self, folder: Path, tag: str, direction: str) -> None:
        self.folder, self.tag, self.direction = folder, tag, direction
        self._sent = 0

    def send(self, obj: Any) -> dict[str, Any]:
        """Write `obj`'s storages; its JSON-ready description."""
        self._sent += 1
        return pack(obj, self.folder, f"{self.tag}-{self.direction}-{self._sent}")

    def send_bytes(self, obj: Any) -> bytes:
        """`send`, the description as JSON bytes (what crosses the pipe from a worker)."""
        return json.dumps(self.send(obj)).encode()

    def receive(self, desc: Any) -> Any:
        """What the other side sent (CPU tensors); ValueError if malformed."""
        return unpack(desc, self.folder)

    def receive_bytes(self, data: bytes) -> Any:
        """`receive` of a JSON description; ValueError if it is not JSON or malformed."""
        try:
            desc = json.loads(data)
        except ValueError:
            raise ValueError("the transfer description is not JSON") from None
        return self.receive(desc)

    def clear(self) -> None:
        """Remove every file of this candidate's transfers, in both directions."""
        remove_transfers(self.folder, self.tag)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's live process
    return True


@contextlib.contextmanager
def run_folder(parent: Path) -> Iterator[Path]:
    """A private transfer folder for one evaluation run, removed at the end.

    Its name carries the evaluator's pid: a run that was killed cannot clean up after itself, so each new
    run removes the folders of evaluators that no longer exist (in /dev/shm they would hold memory).
    """
    for old in parent.glob("kgb-xfer-*-*"):
        pid = old.name.split("-")[2]
        if pid.isdigit() and not _pid_alive(int(pid)):
            shutil.rmtree(old, ignore_errors=True)
    folder = Path(tempfile.mkdtemp(prefix=f"kgb-xfer-{os.getpid()}-", dir=parent))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
