"""Everything that runs inside a candidate's worker process, and nothing that decides a verdict.

The worker loop, the recorders that watch the candidate (aten dispatch, Triton launches, threads) and its
isolation live here. Whatever this package collects is evidence the candidate could tamper with; the
evaluator judges it (`kernelgenbench.evaluator`), and `tests/test_sandbox_boundary.py` keeps this package
from importing judging code.
"""
