"""The evaluator's side of one worker process: start it, send requests, read replies under a deadline.

A reply that does not come in time kills the worker (timeout); a worker that dies without replying is
a crash, reported with its exit code or signal and the tail of its log. Replies are the JSON messages of
sandbox/protocol.py, parsed strictly on receipt: one that does not parse, or is not the one due, is
`malformed` (the candidate shares the worker's process and its pipe; the runner judges it tampering) and the
worker is killed. Tensors travel as raw bytes through two shared-memory arenas made here for each worker
(`transfer.Arenas`), so the evaluator never unpickles what a worker sends.
"""

from __future__ import annotations

import multiprocessing
import os
import secrets
import select
import signal
import sys
import threading
import time
import types
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from multiprocessing import forkserver
from pathlib import Path
from typing import Any

from kernelgenbench.evaluator.config import on_cpu
from kernelgenbench.evaluator.transfer import Arenas, pack, send_arenas, unpack_json
from kernelgenbench.sandbox.protocol import (
    CallReport,
    DrawError,
    IsolationReport,
    Message,
    ProtocolError,
    Raised,
    Ready,
    TimeReport,
    parse_message,
)

LOG_TAIL_CHARS = 2000
COMPILE_POLL_S = 2.0  # how often a waiting call looks for Triton compiles in the worker's cache


# The events each request may be answered with (anything else on the pipe is malformed).
AT_START = Ready.EVENTS + Raised.EVENTS
TO_CALL = CallReport.EVENTS + DrawError.EVENTS  # a call on inputs the worker draws; sent ones: CallReport
TO_TIME = TimeReport.EVENTS
NO_REPLY = ("timeout", "crashed", "malformed")  # kinds the evaluator gives a reply that did not come or parse


@dataclass(frozen=True)
class Reply:
    """What came back from the worker: its message and, for results, the payload bytes; or why nothing did."""

    kind: str  # the worker's event, or one of NO_REPLY
    message: Message | None = None  # None for the NO_REPLY kinds
    payload: bytes | None = None
    log_tail: str = ""
    sent_s: float = 0.0  # the evaluator's time writing the call's arguments into shared memory
    evidence: str = ""  # for the NO_REPLY kinds: what the evaluator saw

    @property
    def report(self) -> CallReport:
        """The call's report (kinds 'result' and 'error')."""
        if not isinstance(self.message, CallReport):
            raise TypeError(f"a {self.kind!r} reply carries no call report")
        return self.message


# The forkserver is one per process, and Triton reads TRITON_INTERPRET when it is imported (its own
# library of jit functions is built then), so the server is started in one mode and remembered.
_SERVER_LOCK = threading.Lock()
_SERVER_MODE: dict[str, bool] = {}


_PRELOAD = ["torch", "torch._dynamo", "triton", "triton.language", "triton.runtime.interpreter",
            "triton.experimental.gluon", "kernelgenbench.sandbox.worker", "kernelgenbench.sandbox.dispatch",
            "kernelgenbench.sandbox.launches", "kernelgenbench.sandbox.activity", "kernelgenbench.sandbox.threads",
            "kernelgenbench.dataset.record"]


def _context(start_method: str, interpret: bool) -> multiprocessing.context.BaseContext:
    if start_method != "forkserver":
        return multiprocessing.get_context(start_method)
    ctx = multiprocessing.get_context("forkserver")
    with _SERVER_LOCK:
        if "interpret" not in _SERVER_MODE:
            # The server imports torch and triton once; each worker is forked from it before any candidate
            # code has run anywhere, so it starts clean and fast.
            # torch._dynamo is what a dispatch mode imports on first use (seconds); triton's interpreter and
            # gluon are what the first interpreted launch imports.
            ctx.set_forkserver_preload(_PRELOAD)
        elif _SERVER_MODE["interpret"] != interpret:
            return multiprocessing.get_context("spawn")  # the server runs in the other Triton mode
        if not _server_running():  # the first start, or a server that has ended: started again in its mode
            _start_server(interpret)
        _SERVER_MODE["interpret"] = interpret
    return ctx


def _server_running() -> bool:
    """Whether the forkserver started here still runs (looked at without reaping it: multiprocessing does)."""
    pid = getattr(forkserver._forkserver, "_forkserver_pid", None)  # multiprocessing's own record of it
    if pid is None:
        return False
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None
    except ChildProcessError:
        return False


def _start_server(interpret: bool) -> None:
    # The server is `python -c ...`, which puts the working directory first on its path, and it imports
    # the preloads before it takes the evaluator's path (Python 3.11): run from a checkout, it would load
    # that folder's kernelgenbench (or a `torch/` there) instead of the evaluator's. PYTHONSAFEPATH
    # keeps the working directory off its path.
    env = {"TRITON_INTERPRET": "1" if interpret else "0", "PYTHONSAFEPATH": "1"}
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        forkserver.ensure_running()
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


_MAIN_LOCK = threading.Lock()


@contextmanager
def _caller_main_hidden() -> Iterator[None]:
    """While a worker starts, `__main__` is an empty module, so the worker never re-imports the caller's script.

    forkserver and spawn children run the parent's main script again (as `__mp_main__`) unless it has no
    file: a script calling evaluate() without an `if __name__ == "__main__":` guard would evaluate again in
    every worker, and its failure would be blamed on the candidate. The worker's code is all in
    kernelgenbench, so it needs nothing from the caller's script.
    """
    with _MAIN_LOCK:
        main = sys.modules.get("__main__")
        sys.modules["__main__"] = types.ModuleType("__main__")
        try:
            yield
        finally:
            if main is not None:
                sys.modules["__main__"] = main


def _describe_exit(code: int | None) -> str:
    if code is None:
        return "worker still running"
    if code < 0:
        try:
            return f"worker killed by signal {signal.Signals(-code).name}"
        except ValueError:
            return f"worker killed by signal {-code}"
    return f"worker exited with code {code} before replying"


def _open_pidfd(proc: multiprocessing.process.BaseProcess) -> int | None:
    """A pidfd on the worker's process, through which it is watched and signalled; None where the kernel has
    none (multiprocessing's view then). A forkserver worker is the server's child: were it reaped and its pid
    taken before the pidfd opened, the server would have sent its status; none sent after the open means the
    pidfd is the worker's."""
    if not hasattr(os, "pidfd_open") or proc.pid is None:
        return None
    try:
        fd = os.pidfd_open(proc.pid)
    except ProcessLookupError:
        return None  # ended and reaped already: multiprocessing has (or will have) its status
    except OSError:
        return None  # no pidfd on this kernel
    if proc.exitcode is not None:
        os.close(fd)  # ended already: multiprocessing's status stands, and the pid may be another's
        return None
    return fd


def read_tail(path: Path, chars: int) -> str:
    """The last `chars` characters of a text file, read from its end: its size is the candidate's to choose
    (a sparse file of gigabytes costs it nothing), so only the tail's bytes are read."""
    try:
        with open(path, "rb") as f:
            size = f.seek(0, os.SEEK_END)
            f.seek(max(0, size - 4 * chars))  # UTF-8: at most 4 bytes a character
            data = f.read(4 * chars)
    except OSError:
        return ""
    return data.decode(errors="replace")[-chars:]


class _CompileWatch:
    """Time a call spends compiling Triton kernels (an autotuner trying hundreds of configurations on its first
    call of a shape) does not count against the call's limit, up to an allowance per worker: a slice of waiting
    in which a new entry appeared in the worker's own Triton cache is credited back. The worker can fake that
    only to get the allowance, never more, and the timing of its kernels is measured on the device anyway."""

    def __init__(self, cache: Path | None, allowance_s: float) -> None:
        self._cache, self._left, self.credited_s = cache, allowance_s, 0.0
        self._seen = self._entries()

    @property
    def active(self) -> bool:
        """Whether waiting should be sliced to look for compiles."""
        return self._cache is not None and self._left > 0

    def _entries(self) -> int:
        try:
            with os.scandir(self._cache) as it:  # type: ignore[arg-type]
                return sum(1 for _ in it)
        except (OSError, TypeError):
            return 0

    def credit(self, slice_s: float) -> float:
        """Seconds to add to the deadline after a slice of waiting: the slice, if something compiled in it."""
        if not self.active:
            return 0.0
        now = self._entries()
        grew, self._seen = now > self._seen, now
        if not grew:
            return 0.0
        got = min(slice_s, self._left)
        self._left -= got
        self.credited_s += got
        return got


class Worker:
    """One worker process serving one candidate."""

    def __init__(self, setup: dict[str, Any], *, start_method: str = "forkserver") -> None:
        from kernelgenbench.sandbox import worker as worker_mod

        self.setup = setup
        self.log_path = Path(setup["log_path"])
        workdir = (setup.get("isolation") or {}).get("workdir")
        self._compiles = _CompileWatch(Path(workdir) / "triton" if workdir else None,
                                       float(setup.get("compile_allowance_s") or 0.0))
        self.isolation: IsolationReport | None = None  # what the worker entered, reported before the import
        self._arenas = Arenas()  # fresh for each candidate: nothing a previous worker left can reach this one
        ctx = _context(start_method, interpret=on_cpu(setup["device"]))
        self._conn, child = ctx.Pipe(duplex=True)
        self._proc = ctx.Process(target=worker_mod.main, args=(child, setup), daemon=True)
        with _caller_main_hidden():
            self._proc.start()
        self._pidfd = _open_pidfd(self._proc)
        child.close()
        try:
            send_arenas(self._conn, self._arenas)  # the first thing on the pipe; the worker takes it at start
        except OSError:
            pass  # the worker died at once: its first reply says so

    def log_tail(self) -> str:
        """The last part of what the candidate printed (and any fault traceback)."""
        return read_tail(self.log_path, LOG_TAIL_CHARS)

    def _died(self) -> Reply:
        self._reap(5)
        return Reply("crashed", evidence=_describe_exit(self._proc.exitcode), log_tail=self.log_tail())

    def _recv(self, timeout: float) -> Reply | bytes:
        try:
            before = self._compiles.credited_s
            if not self._wait(timeout):
                self.kill()
                credit = self._compiles.credited_s - before
                more = f" (and {credit:g} s more while it compiled Triton kernels)" if credit else ""
                return Reply("timeout", evidence=f"no reply within {timeout:g} s{more}; worker killed",
                             log_tail=self.log_tail())
            return self._conn.recv_bytes()
        except (EOFError, OSError, ConnectionError):
            return self._died()

    def _wait(self, timeout: float) -> bool:
        """Whether a reply came within `timeout`, extended by the slices in which the worker compiled."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return self._conn.poll(0)
            if self._conn.poll(min(left, COMPILE_POLL_S) if self._compiles.active else left):
                return True
            deadline += self._compiles.credit(min(left, COMPILE_POLL_S))

    def receive(self, timeout: float, expect: tuple[str, ...] = AT_START, reply_to: int | None = None) -> Reply:
        """The next reply (message, plus payload for results), one of the `expect`ed events and, after a
        request, carrying its nonce `reply_to`; the first message, the isolation report sent before the
        candidate is imported, is kept apart."""
        raw = self._recv(timeout)
        if isinstance(raw, Reply):
            return raw
        # Before the isolation report only a failed set-up may come instead.
        first = IsolationReport.EVENTS + ("setup_error",)
        try:
            message = parse_message(raw, first if self.isolation is None else expect,
                                    None if self.isolation is None else reply_to)
        except ProtocolError as exc:
            self.kill()  # what else it sends cannot be trusted either
            return Reply("malformed", evidence=f"malformed worker report: {exc}"[:2000], log_tail=self.log_tail())
        if isinstance(message, IsolationReport):
            self.isolation = message
            return self.receive(timeout, expect, reply_to)
        kind = message.event  # type: ignore[attr-defined]
        payload = None
        if kind == "result":
            more = self._recv(timeout)
            if isinstance(more, Reply):
                return more
            payload = more
        return Reply(kind, message, payload, log_tail=self.log_tail() if kind != "result" else "")

    def request(self, msg: dict[str, Any], timeout: float, expect: tuple[str, ...]) -> Reply:
        """Send one request and wait for its reply, one of the `expect`ed events, answering this request."""
        nonce = secrets.randbits(62)  # fresh per request: only the worker's own reply echoes it
        try:
            self._conn.send({**msg, "nonce": nonce})
        except (OSError, BrokenPipeError, EOFError):
            return self._died()
        return self.receive(timeout, expect, nonce)

    def time(self, msg: dict[str, Any], timeout: float) -> Reply:
        """Send one timing request (op 'time') and wait for its report."""
        return self.request({**msg, "op": "time"}, timeout, TO_TIME)

    def call(self, args: dict[str, Any], timeout: float, reuse: bool = False, seed: int | None = None) -> Reply:
        """Send one call's arguments (raw bytes in shared memory, structure as JSON) and wait for the reply;
        with `reuse`, the worker writes them into the previous call's buffers where the layouts match; `seed`:
        the round's, which the worker seeds the device's random generators from."""
        t0 = time.perf_counter()
        desc = pack(args, self._arenas.inbox)
        sent_s = time.perf_counter() - t0
        msg = {"op": "call", "args": desc, "reuse": reuse, "seed": seed}
        return replace(self.request(msg, timeout, CallReport.EVENTS), sent_s=sent_s)

    def call_drawn(self, workload_id: str, seed: int, key: int, timeout: float, reuse: bool = False) -> Reply:
        """Have the worker draw one round's inputs itself (nothing sent) and call; its reply carries their
        fingerprints under `key`, before and after the call. `reuse` as for `call`."""
        return self.request({"op": "call", "draw": {"workload_id": workload_id, "seed": seed, "key": key},
                             "reuse": reuse}, timeout, TO_CALL)

    def outputs(self, reply: Reply) -> Any:
        """The outputs and arguments a call's reply carries, as CPU tensors viewing shared memory (copy them
        out before the next call); ValueError if malformed."""
        if reply.payload is None:
            raise ValueError("the reply carries no outputs")
        return unpack_json(reply.payload, self._arenas.outbox)

    @property
    def alive(self) -> bool:
        """The worker process is running: asked of its own pid (a pidfd), not of the forkserver that started
        it, whose pipes say "dead" for every worker once the server is gone."""
        if self._pidfd is None:
            return self._proc.is_alive()
        return not select.select([self._pidfd], [], [], 0)[0]  # readable once the process has ended

    def _gone(self, timeout: float) -> bool:
        """Wait up to `timeout` for the worker process to end; whether it has."""
        if self._pidfd is None:
            self._proc.join(timeout)
            return not self._proc.is_alive()
        return bool(select.select([self._pidfd], [], [], timeout)[0])

    def _reap(self, timeout: float) -> None:
        """Wait for the worker to end and collect its exit status (a live worker is left running)."""
        if self._gone(timeout):
            self._proc.join(timeout=5)  # quick now: its status is there (spawn's join blocks on a live one)

    def _signal(self, sig: signal.Signals) -> None:
        """Send `sig` to the worker process itself (multiprocessing sends none once it thinks it is dead)."""
        if self._pidfd is None:
            if sig == signal.SIGKILL:
                self._proc.kill()
            else:
                self._proc.terminate()
            return
        try:
            signal.pidfd_send_signal(self._pidfd, sig)
        except ProcessLookupError:
            pass  # ended in the meantime

    @property
    def exit_description(self) -> str:
        """How the worker process ended, as far as is known yet."""
        self._reap(0)
        code = self._proc.exitcode
        return f"exit code {code}" if code is not None and code >= 0 else _describe_exit(code)

    @property
    def isolation_level(self) -> str | None:
        """The isolation level the worker entered (None if it died before saying)."""
        return None if self.isolation is None else self.isolation.level

    def kill(self) -> None:
        """Stop the worker and everything it started, now."""
        if self.alive and self.isolation_level not in (None, "session"):
            # In a namespace level the worker's process is the intermediate: SIGTERM makes it kill the
            # namespace's PID 1 (hence every process in it) before it goes, which the candidate cannot undo.
            self._signal(signal.SIGTERM)
            self._gone(5)
        if self.alive:
            self._signal(signal.SIGKILL)
        self._reap(5)
        if self.isolation_level == "session" and self._proc.pid:
            try:
                os.killpg(self._proc.pid, signal.SIGKILL)  # what is left of the worker's session
            except OSError:
                pass

    def close(self, timeout: float = 5.0) -> None:
        """Ask the worker to exit, then make sure it has."""
        if self.alive:
            try:
                self._conn.send({"op": "exit"})
            except (OSError, BrokenPipeError):
                pass
            self._gone(timeout)
        self.kill()
        self._conn.close()
        self._arenas.close()
        if self._pidfd is not None:
            os.close(self._pidfd)
            self._pidfd = None
