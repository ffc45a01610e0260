"""GPU: are the speed-of-light floors true lower bounds? Prints one table; writes JSON beside it.

Measures the device's copy, read-only and write-only ceilings (refreshing the cache), then times, with the
evaluator's own timer, the native ops whose floors used to sit above their measured times (issue 17:
`.out` variants, `copy_`, `fill_`, `zero_`, `ones_like`, `zeros_like`, `index_put_`) plus Triton
read-only and write-only kernels at 16M float32 elements, and prints each time over its floor (the
speed-of-light fraction's inverse: it must be >= 1.0 for every row).
Usage: python bench/bench_floors.py [OUT_DIR]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch
import triton
import triton.language as tl
from torchgen.model import FunctionSchema

from kernelgenbench.evaluator.ceilings import device_ceilings
from kernelgenbench.evaluator.cost import workload_cost, written_outputs
from kernelgenbench.evaluator.sol import floor_us
from kernelgenbench.evaluator.timing import TimingConfig, time_callable
from kernelgenbench.extractors.aten import policies, signature

N = 16 << 20


@triton.jit
def read_kernel(src, partial, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    tl.store(partial + tl.program_id(0), tl.sum(tl.load(src + offs, mask=offs < n, other=0.0)))


@triton.jit
def write_kernel(dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    tl.store(dst + offs, tl.full([BLOCK], 1.5, tl.float32), mask=offs < n)


def _cases(dev: torch.device) -> list[tuple[str, str, str, object, object]]:
    """(label, schema, category, args factory, call)."""
    x = lambda: torch.randn(N, device=dev)  # noqa: E731
    e = lambda: torch.empty(N, device=dev)  # noqa: E731
    rows, k = 4096, 1024
    blk = 4096
    return [
        ("add.out", "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
         "pointwise", lambda: {"self": x(), "other": x(), "out": e()},
         lambda a: torch.add(a["self"], a["other"], out=a["out"])),
        ("copy_", "copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)", "copy",
         lambda: {"self": e(), "src": x()}, lambda a: a["self"].copy_(a["src"])),
        ("fill_", "fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)", "creation",
         lambda: {"self": e()}, lambda a: a["self"].fill_(1.5)),
        ("zero_", "zero_(Tensor(a!) self) -> Tensor(a!)", "creation", lambda: {"self": e()},
         lambda a: a["self"].zero_()),
        ("ones_like", "ones_like(Tensor self, *, ScalarType? dtype=None) -> Tensor", "creation",
         lambda: {"self": x()}, lambda a: torch.ones_like(a["self"])),
        ("zeros_like", "zeros_like(Tensor self, *, ScalarType? dtype=None) -> Tensor", "creation",
         lambda: {"self": x()}, lambda a: torch.zeros_like(a["self"])),
        ("index_put_", "index_put_(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate=False) -> "
         "Tensor(a!)", "indexing",
         lambda: {"self": torch.randn(rows, N // rows, device=dev),
                  "indices": [torch.randperm(rows, device=dev)[:k]],
                  "values": torch.randn(k, N // rows, device=dev)},
         lambda a: a["self"].index_put_(a["indices"], a["values"])),
        ("triton read", "sum(Tensor self, *, ScalarType? dtype=None) -> Tensor", "reduction",
         lambda: {"self": x()},
         lambda a: read_kernel[(N // blk,)](a["self"], torch.empty(N // blk, device=dev), N, BLOCK=blk)),
        ("triton write", "zero_(Tensor(a!) self) -> Tensor(a!)", "creation", lambda: {"self": e()},
         lambda a: write_kernel[(N // blk,)](a["self"], N, BLOCK=blk)),
    ]


def main(out_dir: Path) -> None:
    """Measure, print, write bench_floors_<device>.json."""
    dev = torch.device("cuda")
    ceil = device_ceilings(dev, refresh=True)
    print(f"{ceil.device_name}: copy {ceil.copy_bytes_per_s / 1e12:.3f} TB/s, read {ceil.read_bytes_per_s / 1e12:.3f}"
          f" TB/s, write {ceil.write_bytes_per_s / 1e12:.3f} TB/s")
    results = {"ceilings": ceil.to_dict(), "ops": {}}
    print(f"{'op':<14} {'reads MB':>9} {'writes MB':>9} {'floor us':>9} {'time us':>9} {'time/floor':>10}")
    for label, schema, category, make, call in _cases(dev):
        fs = FunctionSchema.parse(schema)
        params = signature.params(fs)
        cost = policies.cost(str(fs.name.name), category, params, fs.name.overload_name)
        args = make()
        returned = call(args)
        if label.startswith("triton"):  # the kernel's real traffic: read or write the whole tensor only
            returned = args["self"] if "write" in label else torch.empty(0, device=dev)
        mutable = {p["name"] for p in params if p["mutable"]}
        c = workload_cost(cost, args, written_outputs(returned, args, mutable))
        floor, _ = floor_us(c, ceil, "float32")
        t = time_callable(lambda call=call, **a: call(a), lambda i, make=make: ((), make()), device=dev,
                          config=TimingConfig(reps=50))
        ratio = t.time_us / floor
        results["ops"][label] = {"cost": c, "floor_us": floor, "timing": t.to_dict(), "time_over_floor": ratio}
        print(f"{label:<14} {c['reads'] / 1e6:>9.1f} {c['writes'] / 1e6:>9.1f} {floor:>9.2f} {t.time_us:>9.2f} "
              f"{ratio:>10.3f}{'  BELOW FLOOR' if ratio < 1 else ''}")
    name = ceil.device_name.split()[-1].lower()
    path = out_dir / f"bench_floors_{name}.json"
    path.write_text(json.dumps(results, indent=1, default=str))
    print(f"wrote {path}")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "bench/results"))
