"""`ast.parse` that is safe while the evaluator judges candidates in several threads.

CPython 3.11's AST construction keeps its recursion depth in interpreter-wide state, and parses in two
threads at once can fail with "SystemError: AST constructor recursion depth mismatch" (CPython gh-106905,
fixed in later releases): the evaluator's own parses hold one lock, and a parse that still meets the error
(another thread compiled code outside the lock) is tried once more.
"""

from __future__ import annotations

import ast
import threading

_LOCK = threading.Lock()  # the one piece of shared state: it guards an interpreter-wide one


def parse(source: str, filename: str = "<unknown>", mode: str = "exec") -> ast.AST:
    """ast.parse under the evaluator's parse lock, retried once on CPython's spurious recursion-depth error."""
    with _LOCK:
        try:
            return ast.parse(source, filename=filename, mode=mode)
        except SystemError:
            return ast.parse(source, filename=filename, mode=mode)
