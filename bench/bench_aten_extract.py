"""CPU: how far is the ATen extraction from its floor? Prints one table; writes JSON beside it.

The floor is what no ATen extractor can skip: loading native_functions.yaml (torchgen's LineLoader) and
parsing every entry with torchgen (`NativeFunction.from_yaml`), nothing else. Side by side, best of
`--repeat` runs each, in one process with torch and torchgen already imported (their import is reported
on its own line, as it is paid once by both):
1. the floor;
2. the extraction without OpInfo workloads (`extract(opinfo=False)`: every record built and validated),
   and its ratio to the floor (target: at most 3x);
3. the same with record validation switched off (the bench patches it out), so the validation's share
   (jsonschema, `kernelgenbench.dataset.schema.record_errors`) shows on its own;
4. with --opinfo, the full extraction (OpInfo samples traced once on CPU) — the README's main job.
Usage: python bench/bench_aten_extract.py [--repeat N] [--opinfo] [OUT_DIR]
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import time
from pathlib import Path


def _best(fn, repeat: int) -> float:
    # CPU time of this process, best of `repeat`: the machine is shared, and wall time there measures the
    # neighbours as much as the code.
    times = []
    for _ in range(repeat):
        t = time.process_time()
        fn()
        times.append(time.process_time() - t)
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
    from kernelgenbench.extractors.aten import extract, pipeline
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
    # The extraction switches the garbage collector off while it runs; the floor without GC is the
    # stricter comparison.
    gc.disable()
    try:
        floor_nogc_s = _best(floor, opts.repeat)
    finally:
        gc.enable()
    result = None

    def run() -> None:
        nonlocal result
        result = extract(opinfo=False)

    extract_s = _best(run, opts.repeat)
    records = result.records
    assert all(not record_errors(r) for r in records[:50])
    pipeline.record_errors = lambda record: []  # measurement only: the same run without validation
    try:
        bare_s = _best(run, opts.repeat)
    finally:
        pipeline.record_errors = record_errors
    rows = [
        ("import torch + torchgen + kernelgenbench (wall)", import_s, None),
        ("floor: load yaml + torchgen parse", floor_s, 1.0),
        ("floor with the garbage collector off", floor_nogc_s, floor_nogc_s / floor_s),
        (f"extract(opinfo=False): {len(records)} records, validated", extract_s, extract_s / floor_s),
        ("extract(opinfo=False) without validation", bare_s, bare_s / floor_s),
        ("  => jsonschema validation alone", extract_s - bare_s, (extract_s - bare_s) / floor_s),
    ]
    full_s = None
    if opts.opinfo:
        t = time.process_time()
        full = extract()
        full_s = time.process_time() - t
        rows.append((f"extract(): {full.summary().split(';')[-1].strip()}", full_s, full_s / floor_s))
    print(f"torch {torch.__version__}, {platform.processor() or platform.machine()}, best of {opts.repeat}")
    print(f"{'step (CPU seconds, best of N)':<58}{'seconds':>9}{'x floor':>9}")
    for label, secs, ratio in rows:
        print(f"{label:<58}{secs:>9.3f}{'' if ratio is None else f'{ratio:>8.2f}x':>9}")
    for label, secs in (("validated", extract_s), ("without validation", bare_s)):
        print(f"target extract(opinfo=False) <= 3x floor, {label}: {'met' if secs <= 3 * floor_s else 'NOT met'}"
              f" ({secs / floor_nogc_s:.2f}x the floor without GC)")
    out = Path(opts.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "bench_aten_extract.json").write_text(json.dumps({
        "torch": torch.__version__, "machine": platform.machine(), "repeat": opts.repeat,
        "import_s": import_s, "floor_s": floor_s, "floor_no_gc_s": floor_nogc_s, "extract_no_opinfo_s": extract_s, "extract_no_opinfo_no_validation_s": bare_s,
        "ratio": extract_s / floor_s, "extract_full_s": full_s, "records": len(records),
    }, indent=2) + "\n")


if __name__ == "__main__":
    main()
