"""Find the cuBLAS headers: a directory the user points at, or the matching nvidia wheel fetched once.

A fetched version is cached as `<cache>/cublas/<version>/include/` holding only the headers (the wheels
are 400-600 MB and are deleted after extraction). library_types.h, where cudaDataType_t is defined,
ships in the CUDA runtime wheel, which is fetched the same way (a few MB).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from kernelgenbench.errors import NetworkUnavailable, SourceNotFound

API_HEADER = "cublas_api.h"
_VERSION = re.compile(r"^\d+\.\d+(\.\d+){0,2}$")
# pip's own words when it cannot reach the index (as opposed to finding no matching release).
_OFFLINE = ("Failed to establish a new connection", "Temporary failure in name resolution",
            "Network is unreachable", "ConnectionError", "Max retries exceeded", "ProxyError")


@dataclass(frozen=True)
class HeaderSet:
    """The header to parse, where library_types.h lies (or None), and how the files were obtained."""

    api_header: Path
    library_types: Path | None
    origin: str

    @property
    def root(self) -> Path:
        """The include directory holding cublas_api.h."""
        return self.api_header.parent


def cache_root() -> Path:
    """$KGB_CACHE_DIR, else ~/.cache/kernelgenbench."""
    return Path(os.environ.get("KGB_CACHE_DIR") or Path.home() / ".cache" / "kernelgenbench")


def locate(source: Path) -> HeaderSet:
    """Headers in a directory: a CUDA toolkit include dir, an unpacked wheel's include dir, or a cache dir."""
    source = Path(source)
    candidates = [source, source / "include"]
    api = next((d / API_HEADER for d in candidates if (d / API_HEADER).is_file()), None)
    if api is None:
        raise SourceNotFound(f"{source}: no {API_HEADER} here; pass the include directory of a CUDA toolkit "
                             "or of an unpacked nvidia-cublas wheel")
    return HeaderSet(api, _library_types_near(api.parent), f"source:{source}")


def _library_types_near(include: Path) -> Path | None:
    # Toolkit: same directory. Wheels: nvidia/cublas/include beside nvidia/cuda_runtime/include (12.x),
    # or everything in nvidia/cu13/include (13.x).
    for d in (include, include.parent.parent / "cuda_runtime" / "include", include.parent / "cuda_runtime"):
        if (d / "library_types.h").is_file():
            return d / "library_types.h"
    return None


def _packages(version: str) -> tuple[str, str]:
    major = version.split(".", 1)[0]
    if major == "12":
        return "nvidia-cublas-cu12", "nvidia-cuda-runtime-cu12"
    if major == "13":
        return "nvidia-cublas", "nvidia-cuda-runtime"
    raise SourceNotFound(f"cuBLAS version {version!r}: only 12.x and 13.x ship as wheels; "
                         "pass --source with a toolkit's include directory for others")


def fetch(version: str, *, cache: Path | None = None) -> HeaderSet:
    """Headers of cuBLAS `version` ('12.4', '13.1', or an exact '12.4.5.8'), downloaded once into the cache."""
    if not _VERSION.match(version):
        raise SourceNotFound(f"cuBLAS version {version!r} is not a version like 12.4 or 12.4.5.8")
    dest = (cache or cache_root()) / "cublas" / version
    include = dest / "include"
    if not (include / API_HEADER).is_file():
        cublas_pkg, runtime_pkg = _packages(version)
        spec = version if version.count(".") == 3 else f"{version}.*"
        wheels = dest.parent / "_wheels"
        wheels.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f"{version}-", dir=dest.parent))
        try:
            got = {"cublas": _extract(_download(f"{cublas_pkg}=={spec}", wheels), staging, None)}
            runtime_spec = f"{runtime_pkg}=={'.'.join(version.split('.')[:2])}.*"
            got["runtime"] = _extract(_download(runtime_spec, wheels), staging, {"library_types.h"})
            (staging / "wheels.json").write_text(json.dumps(got, indent=1))
            if dest.exists():
                shutil.rmtree(dest)
            staging.rename(dest)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    origin = json.loads((dest / "wheels.json").read_text())["cublas"] if (dest / "wheels.json").is_file() else ""
    lt = include / "library_types.h"
    return HeaderSet(include / API_HEADER, lt if lt.is_file() else None, f"wheel:{origin}")


def _download(requirement: str, wheels: Path) -> Path:
    name = requirement.split("==", 1)[0].replace("-", "_")
    before = set(wheels.glob(f"{name}-*.whl"))
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--quiet",
         "--disable-pip-version-check", "-d", str(wheels), requirement],
        capture_output=True, text=True, check=False,
    )
    if proc.returncode != 0:
        tail = proc.stderr.strip().splitlines()[-1:] or ["(no output)"]
        if any(s in proc.stderr for s in _OFFLINE):
            raise NetworkUnavailable(f"pip download {requirement}: the package index is unreachable ({tail[0]})")
        raise SourceNotFound(f"pip download {requirement} failed: {tail[0]}")
    # pip names the wheel it used in its log only at higher verbosity; pick the newest matching file.
    after = sorted(wheels.glob(f"{name}-*.whl"), key=lambda p: p.stat().st_mtime)
    fresh = [p for p in after if p not in before] or after
    want = requirement.split("==", 1)[1].rstrip("*").rstrip(".")
    matching = [p for p in fresh if p.name.split("-")[1].startswith(want)]
    if not matching:
        raise SourceNotFound(f"pip download {requirement} left no matching wheel in {wheels}")
    return matching[-1]


def _extract(wheel: Path, staging: Path, only: set[str] | None) -> str:
    """Copy the wheel's include/*.h (or only the named ones) into staging/include; delete the wheel."""
    out = staging / "include"
    out.mkdir(exist_ok=True)
    with zipfile.ZipFile(wheel) as zf:
        for member in zf.namelist():
            parts = member.split("/")
            if len(parts) >= 2 and parts[-2] == "include" and parts[-1].endswith(".h"):
                if only is None or parts[-1] in only:
                    (out / parts[-1]).write_bytes(zf.read(member))
    wheel.unlink()
    return wheel.name
