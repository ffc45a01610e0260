"""Which accelerator the evaluation runs on, and the software around it, recorded in every result."""

from __future__ import annotations

import platform as _platform
from dataclasses import asdict, dataclass
from typing import Any

import torch

from kernelgenbench.errors import KgbError


@dataclass(frozen=True)
class PlatformInfo:
    """Vendor, device and versions of one evaluation device."""

    vendor: str  # nvidia, amd, intel, ascend, apple, cpu, or the torch device type
    device_type: str  # torch device type: cuda, xpu, npu, mps, cpu
    device: str  # 'cuda:0'
    device_name: str
    driver: str
    runtime: str  # CUDA / HIP / SYCL version torch was built with
    torch: str
    triton: str
    python: str
    interpreter: bool  # Triton's interpreter: correctness only, no timings

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return asdict(self)


def _triton_version() -> str:
    try:
        import triton
    except ImportError:
        return ""
    return str(triton.__version__)


def accelerator_type() -> str | None:
    """The torch device type of the first available accelerator, or None."""
    if torch.cuda.is_available():
        return "cuda"  # NVIDIA, and AMD through ROCm (torch.version.hip says which)
    for name in ("xpu", "npu", "mlu", "musa"):
        mod = getattr(torch, name, None)
        if mod is not None and getattr(mod, "is_available", lambda: False)():
            return name
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return "mps"
    return None


def resolve_device(device: str) -> str:
    """`device` ('cuda:1', 'xpu:0', 'cpu', ...), checked to exist here ('auto' is `resolve_devices`' job)."""
    try:
        dev = torch.device(device)
    except RuntimeError:
        raise KgbError(f"device {device!r} is not a device name; use auto, cpu, cuda, cuda:1, xpu:0, ...") from None
    if dev.type != "cpu":
        mod = getattr(torch, dev.type, None)
        if mod is None or not getattr(mod, "is_available", lambda: False)():
            raise KgbError(f"device {device!r} is not available here; use --device auto or --device cpu")
        if dev.index is not None and dev.index >= device_count(dev.type):
            raise KgbError(f"device {device!r} is not available here: {device_count(dev.type)} {dev.type} "
                           f"device(s) visible; use --device {dev.type} for all of them")
    return device


def device_count(kind: str) -> int:
    """How many devices of a torch device type are visible (1 for cpu)."""
    if kind == "cpu":
        return 1
    mod = getattr(torch, kind, None)
    count = getattr(mod, "device_count", None)
    return int(count()) if count is not None else 1


def resolve_devices(spec: str) -> list[str]:
    """The devices of a run: 'auto' or a bare type ('cuda') is every visible device of that type, one
    worker pool over all of them; 'cuda:1' or 'cuda:0,cuda:2' names them; 'cpu' is the interpreter."""
    names = [s.strip() for s in spec.split(",") if s.strip()] or ["auto"]
    if names == ["auto"]:
        names = [accelerator_type() or "cpu"]
    out: list[str] = []
    for name in names:
        if ":" in name or name in ("cpu", "mps"):
            out.append(resolve_device(name))
            continue
        resolve_device(f"{name}:0")  # checks the type is available
        out.extend(f"{name}:{i}" for i in range(device_count(name)))
    return list(dict.fromkeys(out))


def _driver(kind: str) -> str:
    if kind == "cuda" and torch.version.hip is None:
        try:
            v = torch._C._cuda_getDriverVersion()
        except (AttributeError, RuntimeError):
            return ""
        return f"{v // 1000}.{(v % 1000) // 10}"
    if kind == "cuda":
        return f"hip {torch.version.hip}"
    mod = getattr(torch, kind, None)
    props = getattr(mod, "get_device_properties", None)
    if props is not None:
        try:
            return str(getattr(props(0), "driver_version", ""))
        except (RuntimeError, AssertionError):
            return ""
    return ""


def detect(device: str) -> PlatformInfo:
    """Describe `device` ('cuda:0', 'xpu:0', 'npu:0', 'cpu'): vendor, name, driver, versions."""
    dev = torch.device(device)
    kind = dev.type
    base = {"torch": torch.__version__, "triton": _triton_version(), "python": _platform.python_version(),
            "device_type": kind, "device": str(dev)}
    if kind == "cpu":
        return PlatformInfo(vendor="cpu", device_name=_platform.processor() or _platform.machine(), driver="",
                            runtime="", interpreter=True, **base)
    mod = getattr(torch, kind)
    try:
        name = str(mod.get_device_name(dev))
    except (AttributeError, RuntimeError):
        name = kind
    if kind == "cuda":
        vendor, runtime = ("amd", f"hip {torch.version.hip}") if torch.version.hip else ("nvidia", f"cuda {torch.version.cuda}")
    else:
        vendor = {"xpu": "intel", "npu": "ascend", "mps": "apple"}.get(kind, kind)
        runtime = ""
    return PlatformInfo(vendor=vendor, device_name=name, driver=_driver(kind), runtime=runtime, interpreter=False, **base)
