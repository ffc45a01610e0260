"""OS isolation of a worker, entered before the candidate is imported, with the strongest means the host allows.

Levels, strongest first (the one in force is reported to the evaluator before the candidate runs, and goes
into every result row):

- ``pidns+uid`` (the evaluator runs as root): the worker forks into a new PID namespace, where everything
  the candidate starts dies with the namespace; a new mount namespace with a fresh /proc
  (the evaluator's processes are not visible, so neither are their descriptors) and empty /tmp, /var/tmp and
  /dev/shm of its own; a network namespace of its own (no sockets to the host or to other workers, abstract
  Unix sockets included; recorded as shared where the host refuses one); the results file, the dataset and
  the solutions covered; a dedicated unprivileged uid/gid per worker slot, no supplementary groups, no new
  privileges, resource limits. Code folders behind a folder closed to other uids (a Python installed in
  /root) are reopened in the worker's mount namespace alone (`_reveal`).
- ``pidns+nocaps`` (root, but Python's own files are closed to other uids and cannot be reopened): the
  same namespaces, uid 0 kept with every capability dropped, so files of root outside the covered paths
  stay reachable.
- ``userns+pidns`` (no root, unprivileged user namespaces allowed): the same namespaces inside a user
  namespace, every capability dropped afterwards; the candidate keeps the evaluator's uid, so files of the
  evaluator outside the covered paths stay reachable.
- ``session`` (neither): setsid, a parent-death signal and resource limits; the evaluator kills the session
  afterwards, but an orphan that leaves the session (setsid again) is not contained.

In the namespace levels the process that called `enter` stays outside as an intermediate; inside, PID 1 is
a minimal init (it reaps orphans, and dies with the intermediate through a parent-death signal the
candidate cannot clear) and the worker is PID 2. The intermediate leaves with the worker's exit status (or
signal) as its own, and on SIGTERM kills the init, hence the whole namespace, so the evaluator's view of
"the worker" is unchanged. CUDA must not be initialised before `enter` (it does not survive the fork).
"""

from __future__ import annotations

import ctypes
import errno
import os
import resource
import select
import signal
import stat
import sys
import tempfile
from typing import Any

CLONE_NEWNS = 0x00020000
CLONE_NEWNET = 0x40000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_RDONLY = 2, 4, 8, 1
MS_REMOUNT, MS_BIND, MS_MOVE, MS_REC, MS_PRIVATE = 32, 4096, 8192, 16384, 1 << 18
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS = 1, 4, 24, 38
_LINUX_CAPABILITY_VERSION_3 = 0x20080522

FILE_SIZE_LIMIT = 64 << 30  # the worker grows its output arena with ftruncate, which this limit also caps
OPEN_FILES_LIMIT = 16384
# Counted per real uid (a dedicated one per slot, so only this worker's tasks count): torch and Triton
# start a thread pool per core, so this is far above their need and far below a fork bomb's.
PROCESS_LIMIT = 4096

LEVEL_ROOT = "pidns+uid"
LEVEL_ROOT_CAPS = "pidns+nocaps"
LEVEL_USERNS = "userns+pidns"
LEVEL_SESSION = "session"
LEVELS = (LEVEL_ROOT, LEVEL_USERNS, LEVEL_SESSION)
_NOTES = {
    LEVEL_ROOT: ("own PID, mount and network namespaces, fresh /proc, private /tmp and /dev/shm, dedicated uid, "
                 "no new privileges, rlimits"),
    LEVEL_ROOT_CAPS: ("own PID, mount and network namespaces, fresh /proc, private /tmp and /dev/shm, every "
                      "capability dropped, rlimits; keeps uid 0: "
                      "root's files outside the covered paths are reachable"),
    LEVEL_USERNS: ("own user, PID, mount and network namespaces, fresh /proc, private /tmp and /dev/shm, "
                   "capabilities dropped, rlimits; runs as the "
                   "evaluator's uid: its files outside the covered paths are reachable"),
    LEVEL_SESSION: ("own session, parent-death signal, rlimits; runs as the evaluator's uid, and orphans that "
                    "leave the session are not contained"),
}

_libc = ctypes.CDLL(None, use_errno=True)


class IsolationError(OSError):
    """A step of entering isolation failed (the caller falls back to a weaker level)."""


def _check(ret: int, what: str) -> None:
    if ret != 0:
        err = ctypes.get_errno()
        raise IsolationError(err, f"{what}: {os.strerror(err)}")


def _unshare(flags: int) -> None:
    if hasattr(os, "unshare"):  # Python 3.12+
        os.unshare(flags)
    else:
        _check(_libc.unshare(ctypes.c_int(flags)), "unshare")


def _prctl(option: int, arg: int) -> None:
    _check(_libc.prctl(ctypes.c_int(option), ctypes.c_ulong(arg), ctypes.c_ulong(0), ctypes.c_ulong(0),
                       ctypes.c_ulong(0)), f"prctl({option})")


def _mount(source: str, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    _check(_libc.mount(source.encode(), target.encode(), fstype.encode() if fstype else None,
                       ctypes.c_ulong(flags), data.encode() if data else None), f"mount {target}")


def detect_level(euid: int | None = None, userns_allowed: bool | None = None) -> str:
    """The level `enter` tries first on this host: root, else user namespaces if the kernel allows them."""
    euid = os.geteuid() if euid is None else euid
    if sys.platform != "linux":
        return LEVEL_SESSION
    if euid == 0:
        return LEVEL_ROOT
    return LEVEL_USERNS if (userns_allowed if userns_allowed is not None else _userns_allowed()) else LEVEL_SESSION


def _userns_allowed() -> bool:
    """Whether the kernel lets an unprivileged process create a user namespace (the sysctls that say no)."""
    for path, refuse in (("/proc/sys/kernel/unprivileged_userns_clone", "0"), ("/proc/sys/user/max_user_namespaces", "0"),
                         ("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", "1")):
        try:
            with open(path) as f:
                if f.read().strip() == refuse:
                    return False
        except OSError:
            continue
    return True


def prepare_dir(path: str, uid: int | None, gid: int | None) -> None:
    """The evaluator's side: a per-candidate directory only the worker's uid can enter (0700)."""
    os.makedirs(path, mode=0o700, exist_ok=True)
    if uid is not None and os.geteuid() == 0:
        os.chown(path, uid, gid if gid is not None else uid)
    os.chmod(path, 0o700)


def set_limits(per_uid: bool) -> dict[str, int]:
    """No core dumps, capped file size and open files; the process cap only where the uid is the worker's own."""
    limits = {"RLIMIT_CORE": 0, "RLIMIT_FSIZE": FILE_SIZE_LIMIT, "RLIMIT_NOFILE": OPEN_FILES_LIMIT}
    if per_uid:
        limits["RLIMIT_NPROC"] = PROCESS_LIMIT
    applied = {}
    for name, value in limits.items():
        res = getattr(resource, name)
        _, hard = resource.getrlimit(res)
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        try:
            resource.setrlimit(res, (value, value))
            applied[name] = value
        except (ValueError, OSError):
            continue
    return applied


def _point_home(workdir: str | None) -> None:
    """Everything a worker writes (Triton's cache, temp files) goes into its own directory."""
    if not workdir:
        return
    for sub in ("triton", "tmp", "cache"):
        os.makedirs(os.path.join(workdir, sub), mode=0o700, exist_ok=True)
    os.environ.update({"HOME": workdir, "TMPDIR": os.path.join(workdir, "tmp"),
                       "TRITON_CACHE_DIR": os.path.join(workdir, "triton"),
                       "XDG_CACHE_HOME": os.path.join(workdir, "cache")})
    tempfile.tempdir = None  # re-read TMPDIR on next use
    os.chdir(workdir)
    os.environ["PWD"] = workdir  # the evaluator's folder (where the solutions may lie) is not named to it
    os.environ.pop("OLDPWD", None)


def _cover(paths: list[str]) -> list[str]:
    """Cover each path in this mount namespace: a file by /dev/null, a folder by an empty read-only tmpfs."""
    covered = []
    for p in paths:
        try:
            if os.path.isdir(p):
                _mount("kgb-hidden", p, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=4k,mode=000")
            elif os.path.exists(p):
                _mount("/dev/null", p, None, MS_BIND)
                _mount("none", p, None, MS_BIND | MS_REMOUNT | MS_RDONLY)
            else:
                continue
            covered.append(p)
        except OSError:
            continue  # the remaining means (file modes) still apply
    return covered


# World-writable folders every process of the host shares: candidates running side by side could pass
# answers through them (or leave files behind for later ones), so each worker gets empty ones of its own.
_SCRATCH = ("/tmp", "/var/tmp", "/dev/shm")


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _private_scratch(workdir: str | None, needed: list[str]) -> list[str]:
    """Per shared scratch folder: an empty tmpfs of its own, or, where the worker's own folder or code it needs
    lies inside (a run under /tmp), a read-only view in which only its own folder stays writable. Returns
    what was done, e.g. ['/tmp: read-only', '/dev/shm: private']."""
    own = os.path.realpath(workdir) if workdir else None
    keep = [os.path.realpath(p) for p in [*needed, *([own] if own else [])] if p]
    done = []
    for folder in _SCRATCH:
        try:
            if not os.path.isdir(folder) or os.path.islink(folder):
                continue
            if not any(_under(p, folder) for p in keep):
                _mount("kgb-scratch", folder, "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777")
                done.append(f"{folder}: private")
                continue
            if own and _under(own, folder):
                _mount(own, own, None, MS_BIND)  # its own mount: the read-only remount below leaves it writable
            _mount(folder, folder, None, MS_BIND | MS_REC)
            _mount("none", folder, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
            done.append(f"{folder}: read-only")
        except OSError:
            continue
    return done


def _needed(cfg: dict[str, Any]) -> list[str]:
    """What the worker must still read after its scratch folders are replaced: Python, the code folders it
    imports from (sys.path), the ones the evaluator revealed and the folder of the candidate's code (`keep`)."""
    return [sys.prefix, sys.base_prefix, *[p for p in sys.path if p], *cfg.get("reveal", []), *cfg.get("keep", [])]


def _private_network() -> str:
    """A network namespace of its own (a loopback that is down: no sockets to the host or other workers,
    abstract Unix sockets included); or why the host's is kept."""
    try:
        _unshare(CLONE_NEWNET)
    except OSError as exc:
        return f"shared ({exc.strerror or exc})"
    return "own namespace"


def _fresh_proc(hide: list[str]) -> list[str]:
    """Called inside the new PID namespace: mounts stop propagating out, /proc shows this namespace only."""
    _mount("none", "/", None, MS_REC | MS_PRIVATE)
    _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    return _cover(hide)


def blocked(path: str) -> str | None:
    """The highest folder above `path` that a stranger uid cannot search (None: none), e.g. /root above a
    Python installed in root's home; ValueError if `path` itself is closed to strangers."""
    path = os.path.realpath(path)
    if os.stat(path).st_mode & (stat.S_IROTH | stat.S_IXOTH) != (stat.S_IROTH | stat.S_IXOTH):
        raise ValueError(f"{path} is not readable by other uids")
    top, p = None, path
    while os.path.dirname(p) != p:
        p = os.path.dirname(p)
        if not os.stat(p).st_mode & stat.S_IXOTH:
            top = p
    return top


def _reveal(paths: list[str], stage: str) -> None:
    """Make code folders under a closed folder reachable for the worker's uid in this mount namespace: each
    is bind-mounted aside, the closed folder is covered by an empty tmpfs (its other contents stay hidden),
    and each is moved back to its own path in it."""
    groups: dict[str, list[str]] = {}
    for p in sorted(set(map(os.path.realpath, paths))):
        top = blocked(p)
        if top is not None and not any(p.startswith(q + "/") for q in groups.get(top, [])):
            groups.setdefault(top, []).append(p)
    for n, (top, inner) in enumerate(groups.items()):
        staged = []
        for i, p in enumerate(inner):
            aside = os.path.join(stage, f".reveal-{n}-{i}")
            os.mkdir(aside, 0o700)
            _mount(p, aside, None, MS_BIND | MS_REC)
            staged.append((aside, p))
        _mount("kgb-reveal", top, "tmpfs", MS_NOSUID | MS_NODEV, "mode=755")
        for aside, p in staged:
            os.makedirs(p, mode=0o755, exist_ok=True)
            _mount(aside, p, None, MS_MOVE)
            os.rmdir(aside)


NOBODY = 65534


def _drop_to(uid: int, gid: int) -> tuple[int, int]:
    """Become the slot's uid/gid with no supplementary group; where the host does not map that uid (a
    container with a short uid range), nobody's. Returns the ids in force."""
    os.setgroups([])
    try:
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)
        return uid, gid
    except OSError as exc:
        if exc.errno != errno.EINVAL:
            raise
    os.setresgid(NOBODY, NOBODY, NOBODY)
    os.setresuid(NOBODY, NOBODY, NOBODY)
    return NOBODY, NOBODY


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def _drop_capabilities() -> None:
    """No capability now (capset) nor after an exec (bounding set emptied): root of a user namespace no more."""
    cap = 0
    while True:
        if _libc.prctl(ctypes.c_int(PR_CAPBSET_DROP), ctypes.c_ulong(cap), 0, 0, 0) != 0:
            if ctypes.get_errno() == errno.EINVAL:
                break  # past the last capability this kernel knows
            raise IsolationError(ctypes.get_errno(), f"drop capability {cap}")
        cap += 1
    data = (_CapData * 2)()
    _check(_libc.capset(ctypes.byref(_CapHeader(_LINUX_CAPABILITY_VERSION_3, 0)), data), "capset")


_IN_NAMESPACE = False  # set in the worker once it runs inside its namespaces (past the point of falling back)


def _mirror(init: int, status_r: int) -> None:
    """The intermediate: wait for the namespace's init and leave exactly as the worker did (its wait status
    comes through `status_r`); on SIGTERM it kills the init first, hence every process in the namespace."""

    def stop(signum: int, _frame: Any) -> None:
        try:
            os.kill(init, signal.SIGKILL)
        except ProcessLookupError:
            pass

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the evaluator decides when its workers stop
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # a mirrored SIGSEGV dumps no core of a root process
    try:
        _, status = os.waitpid(init, 0)
    except ChildProcessError:
        os._exit(1)
    data = os.read(status_r, 4)
    if len(data) == 4:  # the worker's own status; else the init was killed, and its status says how
        status = int.from_bytes(data, "little")
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if sig not in (signal.SIGKILL, signal.SIGSTOP):  # those two cannot have a handler to reset
            signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
        os._exit(128 + sig)
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 1)


def _init(worker: int, status_w: int) -> None:
    """PID 1 of the namespace: reap every orphan until the worker ends, hand its wait status out, exit (the
    kernel then kills whatever is left in the namespace)."""
    while True:
        try:
            pid, status = os.waitpid(-1, 0)
        except ChildProcessError:
            os._exit(1)
        if pid == worker:
            break
    os.write(status_w, status.to_bytes(4, "little"))
    os._exit(0)


def _fork_namespace(conn: Any) -> None:
    """After unshare(CLONE_NEWPID): fork the namespace's init, which forks the worker; returns in the worker.

    The candidate is not PID 1: that process ignores every signal it sends itself without a handler (a
    raise(SIGSEGV) or abort() would not end it). The init dies with the intermediate (a parent-death signal
    the candidate, another process, cannot clear) and the namespace with the init."""
    import faulthandler

    global _IN_NAMESPACE
    status_r, status_w = os.pipe()
    alive_r, alive_w = os.pipe()
    init = os.fork()
    if init != 0:
        try:
            faulthandler.disable()  # a mirrored SIGSEGV must not print a second traceback
            os.close(status_w)
            os.close(alive_r)
            conn.close()  # only the worker talks to the evaluator; its death closes the pipe at once
            _mirror(init, status_r)  # alive_w stays open until this process is gone
        except BaseException:  # noqa: BLE001 - said in the worker's log; never back into the worker's code
            import traceback

            traceback.print_exc()
        os._exit(1)
    try:
        os.close(status_r)
        os.close(alive_w)
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if select.select([alive_r], [], [], 0)[0]:  # the intermediate died before the signal was armed
            os._exit(1)
        os.close(alive_r)
        os.setsid()  # its own session and process group: kill(0, ...) and killpg reach nothing outside
        worker = os.fork()
        if worker != 0:
            conn.close()
            _init(worker, status_w)
    except BaseException:  # noqa: BLE001 - the init never runs the worker's code
        os._exit(1)
    if worker != 0:
        os._exit(1)
    _IN_NAMESPACE = True
    os.close(status_w)


def _enter_root(conn: Any, cfg: dict[str, Any]) -> dict[str, Any]:
    _unshare(CLONE_NEWPID | CLONE_NEWNS)
    _fork_namespace(conn)
    covered = _fresh_proc(list(cfg.get("hide", [])))
    if cfg.get("uid") is not None and cfg.get("reveal"):
        try:
            _reveal(list(cfg["reveal"]), cfg["workdir"])
        except (OSError, ValueError):
            cfg = {**cfg, "uid": None}  # a stranger uid could not import Python's own modules
    scratch, network = _private_scratch(cfg.get("workdir"), _needed(cfg)), _private_network()
    if cfg.get("uid") is None:  # the evaluator found its Python unreadable by other uids: keep root's, powerless
        limits = set_limits(per_uid=False)
        _point_home(cfg.get("workdir"))
        _drop_capabilities()
        uid, gid, level = 0, 0, LEVEL_ROOT_CAPS
    else:
        limits = set_limits(per_uid=True)
        uid, gid = _drop_to(int(cfg["uid"]), int(cfg.get("gid", cfg["uid"])))
        _point_home(cfg.get("workdir"))  # after the drop: what it creates belongs to the worker's uid
        level = LEVEL_ROOT
    _prctl(PR_SET_NO_NEW_PRIVS, 1)
    return {"level": level, "uid": uid, "gid": gid, "covered": covered, "limits": limits, "scratch": scratch,
            "network": network}


def _enter_userns(conn: Any, cfg: dict[str, Any]) -> dict[str, Any]:
    uid, gid = os.geteuid(), os.getegid()
    _unshare(CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS)
    for name, text in (("setgroups", "deny"), ("uid_map", f"0 {uid} 1"), ("gid_map", f"0 {gid} 1")):
        with open(f"/proc/self/{name}", "w") as f:
            f.write(text)
    _fork_namespace(conn)
    covered = _fresh_proc(list(cfg.get("hide", [])))
    scratch, network = _private_scratch(cfg.get("workdir"), _needed(cfg)), _private_network()
    _point_home(cfg.get("workdir"))
    limits = set_limits(per_uid=False)
    _drop_capabilities()
    _prctl(PR_SET_NO_NEW_PRIVS, 1)
    return {"uid": uid, "gid": gid, "covered": covered, "limits": limits, "scratch": scratch, "network": network}


def _enter_session(cfg: dict[str, Any]) -> dict[str, Any]:
    try:
        os.setsid()
    except OSError:
        pass  # already a session leader
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    _point_home(cfg.get("workdir"))
    try:
        _prctl(PR_SET_NO_NEW_PRIVS, 1)
    except OSError:
        pass
    return {"uid": os.geteuid(), "gid": os.getegid(), "covered": [], "limits": set_limits(per_uid=False)}


def _channel(fd: int) -> bool:
    """Whether `fd` is a pipe or a socket (what the evaluator's side talks through)."""
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False  # closed since it was listed (the listing's own descriptor)
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def close_inherited_channels(keep: int) -> list[int]:
    """Close every pipe and socket this process inherited but `keep` (the protocol pipe); the fds closed.

    A worker started by multiprocessing holds channels to the evaluator's own helpers: the forkserver's
    "alive" pipe (one byte written to it ends the forkserver, and with it the evaluator's view of every
    worker it started), the resource tracker's pipe (root unlinks whatever /dev/shm name is registered
    there), and the start's data and status pipes. The candidate needs none of them, and what it never
    holds it cannot write to; the multiprocessing state naming them is cleared so nothing writes to a
    number reused later. Files (the log, /dev/null) stay open: they lead nowhere the worker may not go.
    """
    try:
        fds = sorted(int(name) for name in os.listdir("/proc/self/fd"))
    except OSError:  # no /proc: every number up to the open-files limit
        fds = list(range(resource.getrlimit(resource.RLIMIT_NOFILE)[0]))
    closed = []
    for fd in fds:
        if fd > 2 and fd != keep and _channel(fd):
            os.close(fd)
            closed.append(fd)
    server, tracker = sys.modules.get("multiprocessing.forkserver"), sys.modules.get("multiprocessing.resource_tracker")
    if server is not None:
        server._forkserver._forkserver_alive_fd = None
        server._forkserver._inherited_fds = None
    if tracker is not None:
        tracker._resource_tracker._fd = None  # a candidate's own use would start its own tracker, as its uid
    return closed


def enter(cfg: dict[str, Any], conn: Any) -> dict[str, Any]:
    """Isolate this worker before the candidate is imported; the level in force and what it covers.

    `cfg`: workdir (the candidate's own directory), uid/gid (its worker slot's, used as root; None keeps uid 0
    without capabilities), hide (paths to cover: the results file, the dataset), reveal (code folders behind
    a closed folder, see `to_reveal`), level (start from this level instead of the detected one). In the
    namespace levels this forks: the calling process stays outside, mirrors the namespace's exit, and never
    returns. The process that returns holds no pipe or socket but `conn` (`close_inherited_channels`).
    """
    first = cfg.get("level") or detect_level()
    failures = []
    for level in LEVELS[LEVELS.index(first):]:
        try:
            if level == LEVEL_ROOT:
                info = _enter_root(conn, cfg)
            elif level == LEVEL_USERNS:
                info = _enter_userns(conn, cfg)
            else:
                info = _enter_session(cfg)
        except OSError as exc:
            # Before its fork a level falls back to the next; after it, no step may be skipped silently.
            if _IN_NAMESPACE:
                raise  # inside the namespace already: the worker reports a setup error; its exit is mirrored
            failures.append(f"{level}: {exc}")
            continue
        info.setdefault("level", level)
        # In the process that runs the candidate (past the namespace's fork), before it is imported.
        closed = close_inherited_channels(conn.fileno())
        # Not dumpable at every level (a uid switch already makes it so): its /proc files, /proc/self/mem
        # among them, then belong to root, so an unprivileged worker cannot read its own memory through them.
        _prctl(PR_SET_DUMPABLE, 0)
        return {**info, "note": _NOTES[info["level"]], "refused": failures, "closed_fds": closed}
    raise IsolationError(errno.EPERM, "; ".join(failures))


def to_reveal(paths: list[str]) -> list[str] | None:
    """Of the folders a dedicated worker uid must read (Python's own files, torch, Triton, this package), those
    behind a closed folder, which `_reveal` opens in the worker's mount namespace; None if one cannot be."""
    try:
        return [p for p in paths if blocked(p) is not None]
    except (OSError, ValueError):
        return None
