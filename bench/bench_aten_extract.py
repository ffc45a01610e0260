"""CPU: how far is the ATen extraction from its floor? Prints one table; writes JSON beside it.

The floor is what no ATen extractor can skip: loading native_functions.yaml (torchgen's LineLoader) and
parsing every entry with torchgen (`NativeFunction.from_yaml`), nothing else. Side by side, best of
`--repeat` runs each, in one process with torch and torchgen already imported (their import is reported
on its own line, as it is paid once by both):
1. the floor;
2. the extraction without OpInfo workloads (`extract(opinfo=False)`: every record built and validated),
   and its ratio to the floor (target: at most 3x);
3. of that, the time spent in record validation (jsonschema) alone;
4. with --opinfo, the full extraction (OpInfo samples traced once on CPU) — the README's main job.
Usage: python bench/bench_aten_extract.py [--repeat N] [--opinfo] [OUT_DIR]
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path


def _best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir", nargs="?", default="bench/results")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--opinfo", action="store_true", help="also time the full extraction with OpInfo")
    opts = ap.parse_args()

    t0 = time.perf_counter()
    import torch
    import torchgen  # noqa: F401
    import yaml
    from torchgen.gen import LineLoader
    from torchgen.model import Location, NativeFunction

    from kernelgenbench.dataset.schema import record_errors
    from kernelgenbench.extractors.aten import extract
    from kernelgenbench.extractors.aten.parse import load_tags
    from kernelgenbench.extractors.aten.yaml_source import installed_source

    import_s = time.perf_counter() - t0
    src = installed_source()

    def floor() -> int:
        tags = set(load_tags(src.tags))
        with open(src.native_functions) as f:
            es = yaml.load(f, Loader=LineLoader)
        for e in es:
            NativeFunction.from_yaml(e, Location(str(src.native_functions), e["__line__"]), tags)
        return len(es)

    extract(opinfo=False)  # warm caches that both would pay once (data files, registry, docstrings)
    floor_s = _best(floor, opts.repeat)
    result = None

    def run() -> None:
        nonlocal result
        result = extract(opinfo=False)

    extract_s = _best(run, opts.repeat)
    records = result.records
    validate_s = _best(lambda: [record_errors(r) for r in records], 1)
    rows = [
        ("import torch + torchgen + kernelgenbench", import_s, None),
        ("floor: load yaml + torchgen parse (2 steps)", floor_s, 1.0),
        (f"extract(opinfo=False): {len(records)} records", extract_s, extract_s / floor_s),
        ("  of which: jsonschema validation", validate_s, validate_s / floor_s),
        ("  the rest (records without validation)", extract_s - validate_s, (extract_s - validate_s) / floor_s),
    ]
    full_s = None
    if opts.opinfo:
        t = time.perf_counter()
        full = extract()
        full_s = time.perf_counter() - t
        rows.append((f"extract(): {full.summary().split(';')[-1].strip()}", full_s, full_s / floor_s))
    print(f"torch {torch.__version__}, {platform.processor() or platform.machine()}, best of {opts.repeat}")
    print(f"{'step':<58}{'seconds':>9}{'x floor':>9}")
    for label, secs, ratio in rows:
        print(f"{label:<58}{secs:>9.3f}{'' if ratio is None else f'{ratio:>8.2f}x':>9}")
    print(f"target: extract(opinfo=False) <= 3x floor -> {'met' if extract_s <= 3 * floor_s else 'NOT met'}")
    out = Path(opts.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "bench_aten_extract.json").write_text(json.dumps({
        "torch": torch.__version__, "machine": platform.machine(), "repeat": opts.repeat,
        "import_s": import_s, "floor_s": floor_s, "extract_no_opinfo_s": extract_s, "validation_s": validate_s,
        "ratio": extract_s / floor_s, "extract_full_s": full_s, "records": len(records),
    }, indent=2) + "\n")


if __name__ == "__main__":
    main()
