"""Check that two extractions of the same records differ only in their reference text, and not in what it does.

    python bench/compare_record_texts.py BEFORE.jsonl AFTER.jsonl [--all-workloads] [--seed N]

For every record: every field but reference.code and inputs.code must be byte-identical (as sorted JSON), and
each reference, run on its generator's inputs for each correctness workload (all workloads with
--all-workloads) with the same seed on CPU, must leave bitwise-identical arguments and return the same value
before and after. Prints the total size of reference.code + inputs.code both times; exits 1 on a difference.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from pathlib import Path
from typing import Any

import torch

from kernelgenbench.dataset.record import Task, Workload
from kernelgenbench.evaluator.inputs import load_code, round_inputs


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _without_code(record: dict[str, Any]) -> str:
    r = copy.deepcopy(record)
    for key in ("reference", "inputs"):
        if r.get(key):
            r[key].pop("code")
    return json.dumps(r, sort_keys=True)


def _code_bytes(record: dict[str, Any]) -> int:
    return sum(len(record[k]["code"].encode()) for k in ("reference", "inputs") if record.get(k))


def _same(a: Any, b: Any) -> bool:
    """Bitwise equality of tensors (NaN payloads included), recursively through lists, tuples and dicts."""
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        if (a.dtype, a.shape, a.device) != (b.dtype, b.shape, b.device):
            return False
        return torch.equal(a.contiguous().view(-1).view(torch.uint8), b.contiguous().view(-1).view(torch.uint8))
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and (a == b or (a != a and b != b))  # NaN floats count as equal to NaN


def _run(task: Task, workload: Workload, seed: int) -> Any:
    """The reference's return value and its arguments after the call, on CPU."""
    assert task.reference is not None
    args = round_inputs(task, workload, seed=seed, device="cpu")
    fn = load_code(task.reference)
    torch.manual_seed(seed)  # a reference that draws (semantics 'random') draws the same both times
    ret = fn(**args)
    return ret, args


def compare(before: list[dict[str, Any]], after: list[dict[str, Any]], *, seed: int,
            all_workloads: bool) -> tuple[list[str], int]:
    """The differences found, and the number of (record, workload) runs compared."""
    problems: list[str] = []
    if [r["id"] for r in before] != [r["id"] for r in after]:
        return ["the two files hold different record ids (or order)"], 0
    runs = 0
    for b, a in zip(before, after, strict=True):
        if _without_code(b) != _without_code(a):
            problems.append(f"{b['id']}: a field other than reference.code/inputs.code differs")
            continue
        if not b.get("reference"):
            continue
        tb, ta = Task.from_dict(b), Task.from_dict(a)
        for w in tb.workloads if all_workloads else tb.correctness_workloads:
            runs += 1
            if not _same(_run(tb, w, seed), _run(ta, w, seed)):
                problems.append(f"{b['id']}/{w.id}: the reference's outputs differ")
    return problems, runs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before", type=Path)
    ap.add_argument("after", type=Path)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--all-workloads", action="store_true")
    args = ap.parse_args()
    before, after = _records(args.before), _records(args.after)
    problems, runs = compare(before, after, seed=args.seed, all_workloads=args.all_workloads)
    size_b, size_a = sum(map(_code_bytes, before)), sum(map(_code_bytes, after))
    print(f"{args.after.name}: {len(after)} records, {runs} reference runs compared, "
          f"code bytes {size_b} -> {size_a} ({100 * (size_a - size_b) / max(size_b, 1):+.1f}%)")
    for p in problems:
        print(f"  {p}")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
