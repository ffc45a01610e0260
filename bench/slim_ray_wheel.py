"""Rewrite a Ray wheel in place without ray/jars/ (the Java workers' 30 MB), so it fits the device tool's carry.

    python bench/slim_ray_wheel.py .whl/ray/ray-2.60.0-cp312-cp312-manylinux2014_x86_64.whl

The RECORD loses the removed files' lines, so pip installs the rest with every hash still checked.
"""

from __future__ import annotations

import sys
import zipfile
from pathlib import Path

DROP = ("ray/jars/",)


def slim(path: Path) -> tuple[int, int]:
    """Drop DROP's entries from the wheel at `path`; its size before and after, in bytes."""
    before = path.stat().st_size
    tmp = path.with_suffix(".slim")
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            if info.filename.startswith(DROP):
                continue
            data = src.read(info)
            if info.filename.endswith(".dist-info/RECORD"):
                lines = data.decode().splitlines(keepends=True)
                data = "".join(x for x in lines if not x.startswith(DROP)).encode()
            dst.writestr(info, data, compress_type=zipfile.ZIP_DEFLATED)
    tmp.replace(path)
    return before, path.stat().st_size


def main() -> int:
    for arg in sys.argv[1:]:
        before, after = slim(Path(arg))
        print(f"{arg}: {before / 2**20:.1f} MiB -> {after / 2**20:.1f} MiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
