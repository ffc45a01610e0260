# kgb-corpus: task=aten/add.Tensor expect=runtime_error evidence=builtins.RuntimeError
# Makes its stdout (the log the evaluator opened for it) a sparse file of 1 GiB (no disk used, within
# RLIMIT_FSIZE) and raises: the evaluator used to read the whole log to keep its last 2,000 characters, so a
# 60 GiB one ran it out of memory and ended the run. It reads the log's tail only now
# (supervisor.py:read_tail; tests/test_eval_worker_life.py measures the read).
import os


def add_Tensor(self, other, *, alpha=1):
    os.ftruncate(1, 1 << 30)
    raise RuntimeError("see the log")
