"""`kgb eval`: score candidate Triton kernels on a dataset split; results as JSON Lines plus a summary table."""

from __future__ import annotations

import functools
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from kernelgenbench.errors import KgbError

# Options whose value may be left out (typer has no optional-value options): a bare one gets this value.
OPTIONAL_VALUES = {"--ray": "local"}


def fill_optional_values(args: list[str]) -> list[str]:
    """Command-line arguments with the value of a bare `--ray` (last, or before another option) filled in."""
    out: list[str] = []
    for i, a in enumerate(args):
        out.append(a)
        if a in OPTIONAL_VALUES and (i + 1 == len(args) or args[i + 1].startswith("-")):
            out.append(OPTIONAL_VALUES[a])
    return out


def _progress_line(row: dict[str, Any], show_platform: bool = False, shown: set[tuple[str, ...]] | None = None,
                   note: str = "") -> None:
    """One line on stderr per candidate, as soon as its verdict is written (with its vendor when asked); the
    candidate's key goes into `shown`."""
    if row.get("kind") != "task":
        return
    if shown is not None:
        shown.add(_row_key(row))
    status = str(row.get("status", ""))
    mark = "PASS" if status == "passed" else ("----" if status == "not_in_dataset" else "FAIL")
    evidence = str(row.get("evidence") or "")
    first = evidence.splitlines()[0][:160] if evidence else ""
    took = f"{float(row.get('elapsed_s') or 0.0):.1f}s"
    where = f" @{(row.get('platform') or {}).get('vendor', '')}" if show_platform else ""
    took += f" {note}" if note else ""
    print(f"{mark} {status:<20} {row.get('task_id')} [{row.get('candidate_id')}]{where} {took} {first}".rstrip(),
          file=sys.stderr, flush=True)


def _row_key(row: dict[str, Any]) -> tuple[str, ...]:
    return (str(row.get("task_id")), str(row.get("candidate_id")), str((row.get("platform") or {}).get("vendor")))


# The command's options, one alias each (they keep the command's signature short).
_DatasetOpt = Annotated[str, typer.Option(
    "--dataset", help="Hub id, dataset folder (`kgb build --out`) or JSONL of task records.")]
_SolutionsOpt = Annotated[Path, typer.Option(
    "--solutions", help="Directory of <source>__<name>.py files (aten__add.Tensor.py) or a JSONL of "
                        "{task_id, code[, candidate_id, model, method, tokens]} rows.")]
_ConfigOpt = Annotated[str | None, typer.Option(
    "--config", help="Dataset config (ms, mc, aten, vllm, cublas, aten-all); default: ms for a dataset "
                     "folder or Hub id, every record of a JSONL.")]
_SplitOpt = Annotated[str, typer.Option("--split", help="Split of the config.")]
_RevisionOpt = Annotated[str | None, typer.Option("--revision", help="Hub revision.")]
_TasksOpt = Annotated[list[str] | None, typer.Option(
    "--tasks", help="Only these task ids (repeat the option or separate with commas).")]
_DeviceOpt = Annotated[str, typer.Option(
    "--device", help="auto (every visible accelerator, else CPU through Triton's interpreter), cuda "
                     "(every CUDA/ROCm GPU), cuda:1, cuda:0,cuda:2, xpu, npu, cpu, ...")]
_OutOpt = Annotated[Path, typer.Option(
    "--out", help="Results JSONL, appended as results arrive; an existing file needs --resume or "
                  "--overwrite.")]
_ResumeOpt = Annotated[bool, typer.Option(
    "--resume", help="Continue --out: skip candidates whose result is already there.")]
_OverwriteOpt = Annotated[bool, typer.Option(
    "--overwrite", help="Replace an existing --out instead of refusing to.")]
_WorkersOpt = Annotated[int, typer.Option(
    "--workers", min=0, help="Candidates evaluated in parallel; 0: two per accelerator (one is checked and "
                             "compiled while another is timed alone), one on CPU.")]
_RepsOpt = Annotated[int | None, typer.Option(
    "--reps", min=1,
    help="Timed repetitions per performance workload (default 200; fewer past 1 s of device time).")]
_GraphOpt = Annotated[bool, typer.Option(
    "--graph", help="Time through CUDA-graph replay (for launch-bound kernels); baselines likewise.")]
_CompileBaselineOpt = Annotated[bool, typer.Option(
    "--compile-baseline", help="Also time torch.compile of the reference as a baseline.")]
_RoundsOpt = Annotated[int, typer.Option("--rounds", min=1, help="Fresh-input rounds per workload.")]
_SeedOpt = Annotated[int | None, typer.Option(
    "--seed", help="Base seed of every round's inputs. Default: a fresh random seed per run, recorded in "
                   "every result row (pass it back to reproduce a run); --resume reuses the file's "
                   "seed.")]
_TimeoutOpt = Annotated[float | None, typer.Option(
    "--timeout", help="Wall-clock limit per call of a candidate, in seconds (default 120).")]
_MemoryGibOpt = Annotated[float | None, typer.Option(
    "--memory-gib", help="Memory cap per worker in GiB (host address space on CPU, device memory on "
                         "an accelerator; default 8).")]
_RayOpt = Annotated[str | None, typer.Option(
    "--ray", metavar="[ADDRESS]",
    help="Evaluate on a Ray cluster, one evaluator pool per node: --ray alone starts a local Ray "
         "instance; --ray auto or --ray HOST:PORT joins a running cluster (needs the 'ray' extra of "
         "kernelgenbench).")]
_PlatformsOpt = Annotated[str, typer.Option(
    "--platforms", help="With --ray: 'one' (each candidate once, on any node), 'all' (once on each "
                        "platform kind in the cluster: nvidia, amd, intel, cpu), or a list such as "
                        "nvidia,amd.")]
_QuietOpt = Annotated[bool, typer.Option(
    "--quiet", help="No line per candidate as it is judged, only the summary.")]


def register(app: typer.Typer, extract_app: typer.Typer) -> None:
    """Add the `eval` command to `kgb`."""

    @app.command("eval")
    def eval_(
        dataset: _DatasetOpt,
        solutions: _SolutionsOpt,
        config: _ConfigOpt = None,
        split: _SplitOpt = "test",
        revision: _RevisionOpt = None,
        tasks: _TasksOpt = None,
        device: _DeviceOpt = "auto",
        out: _OutOpt = Path("results.jsonl"),
        resume: _ResumeOpt = False,
        overwrite: _OverwriteOpt = False,
        workers: _WorkersOpt = 0,
        reps: _RepsOpt = None,
        graph: _GraphOpt = False,
        compile_baseline: _CompileBaselineOpt = False,
        rounds: _RoundsOpt = 3,
        seed: _SeedOpt = None,
        timeout: _TimeoutOpt = None,
        memory_gib: _MemoryGibOpt = None,
        ray: _RayOpt = None,
        platforms: _PlatformsOpt = "one",
        quiet: _QuietOpt = False,
    ) -> None:
        """Evaluate every candidate in its own worker over fresh-input rounds; write one JSON line per workload
        and per candidate to --out as soon as each is known, then print a summary table."""
        from kernelgenbench.evaluator.api import evaluate

        if resume and overwrite:
            raise KgbError("--resume and --overwrite contradict each other; pass one")
        ids = [i for t in tasks or [] for i in t.split(",") if i]
        shown: set[tuple[str, ...]] = set()
        results = evaluate(
            solutions, dataset=dataset, config=config, split=split, revision=revision, task_ids=ids or None,
            device=device, rounds=rounds, seed=seed, workers=workers, out=out, resume=resume, overwrite=overwrite,
            on_row=None if quiet else functools.partial(_progress_line, show_platform=platforms != "one", shown=shown),
            call_timeout_s=timeout, memory_cap_bytes=int(memory_gib * (1 << 30)) if memory_gib else None,
            timing={**({"reps": reps} if reps else {}), **({"graph": True} if graph else {})},
            compile_baseline=compile_baseline, ray=ray, platforms=platforms,
        )
        _print_results(results, out, platforms=platforms, quiet=quiet, shown=shown)


def _print_results(results: list[Any], out: Path, *, platforms: str, quiet: bool, shown: set[tuple[str, ...]]) -> None:
    """The lines of resumed candidates (not shown live), the summary table and, across platforms, the comparison."""
    if not quiet:  # candidates resumed from --out: their verdicts, read back at the start
        for r in results:
            if _row_key(r.to_row()) not in shown:
                _progress_line(r.to_row(), show_platform=platforms != "one", note="(resumed)")
    from kernelgenbench.evaluator.summary import format_table, summarize

    # From what the evaluator decided (resumed rows were read back at the start), never from the file now.
    print(format_table(summarize([r.to_row() for r in results])))
    if platforms != "one":  # each candidate once per platform: the comparison
        from kernelgenbench.evaluator.report import platform_table

        table = platform_table([row for r in results for row in (*(w.to_row(r.platform) for w in r.workloads),
                                                                 r.to_row())])
        if table:
            print(table)
    print(f"results: {out}")
