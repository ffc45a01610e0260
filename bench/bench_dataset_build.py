"""CPU: what do `kgb build` and `load_tasks` cost, and how much of it is record validation?

Side by side, best of `--repeat` runs each (process CPU time: the machine is shared), over the JSON Lines
files given (e.g. the output of `kgb-extract aten|vllm|cublas`):
1. validation alone (`record_errors` on every record) — the floor of a build, which must validate all;
2. the whole build (read, validate, write six parquet configs, manifest and card), and its ratio to 1;
3. a second build, checked byte-identical to the first;
4. `load_tasks` of the `ms` config (load_dataset, row -> record, validation, content hash), per row;
5. the folder's size per file.
Usage: python bench/bench_dataset_build.py [--repeat N] JSONL... (nothing is written outside a temp folder)
"""

from __future__ import annotations

import argparse
import hashlib
import tempfile
import time
from pathlib import Path


def _best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.process_time()
        fn()
        times.append(time.process_time() - t)
    return min(times)


def _hashes(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("jsonl", nargs="+", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    import kernelgenbench
    from kernelgenbench.dataset.build import build_dataset, collect_records
    from kernelgenbench.dataset.schema import record_errors

    records = collect_records(args.jsonl)
    with tempfile.TemporaryDirectory(prefix="kgb-bench-") as tmp:
        out = Path(tmp)
        validate = _best(lambda: [record_errors(r) for r in records], args.repeat)
        build = _best(lambda: build_dataset(args.jsonl, out / "a"), args.repeat)
        build_dataset(args.jsonl, out / "b")
        identical = _hashes(out / "a") == _hashes(out / "b")
        tasks: list = []
        load = _best(lambda: tasks.__setitem__(slice(None), kernelgenbench.load_tasks(out / "a", config="ms")),
                     args.repeat)
        sizes = {p.relative_to(out / "a").as_posix(): p.stat().st_size for p in sorted((out / "a").rglob("*"))
                 if p.is_file()}

    n = len(records)
    print(f"{n} records from {len(args.jsonl)} file(s); CPU seconds, best of {args.repeat}")
    print(f"{'validation only (floor)':<34}{validate:8.2f} s  {validate / n * 1e3:7.2f} ms/record")
    print(f"{'kgb build':<34}{build:8.2f} s  {build / n * 1e3:7.2f} ms/record  {build / validate:5.2f}x floor")
    print(f"{'second build byte-identical':<34}{'yes' if identical else 'NO':>8}")
    print(f"{'load_tasks ms':<34}{load:8.2f} s  {load / max(len(tasks), 1) * 1e3:7.2f} ms/row  ({len(tasks)} rows)")
    for path, size in sizes.items():
        print(f"  {path:<40}{size / 1e3:10.1f} kB")


if __name__ == "__main__":
    main()
