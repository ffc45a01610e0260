"""Where the vLLM sources come from: a folder, a source distribution, or a git revision (cached).

`--rev` is resolved with `git ls-remote` against the repository URL and fetched shallowly into the cache;
only the paths the extractor reads are checked out. When git cannot reach the repository and the
revision is a release tag (vX.Y.Z), that release's source distribution is fetched with `pip download`
instead and the commit id is read from its vllm/_version.py. Everything downloaded is cached: a second
run fetches nothing.
"""

from __future__ import annotations

import ast
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from kernelgenbench.errors import KgbError, NetworkUnavailable, SourceNotFound

DEFAULT_REPO_URL = "https://github.com/vllm-project/vllm.git"
# What the extractor reads; a checkout or an unpacked sdist is limited to these.
# tests/lora: a curated entry (moe_lora_align_block_size) takes its grid from there.
NEEDED_PATHS = ("csrc", "vllm/_custom_ops.py", "vllm/_version.py", "tests/kernels", "tests/lora", "CMakeLists.txt")
# Cached trees are keyed by what they hold too, so that a longer NEEDED_PATHS unpacks afresh.
_PATHS_KEY = hashlib.sha1("\0".join(NEEDED_PATHS).encode()).hexdigest()[:6]
_RELEASE_TAG = re.compile(r"v(\d+\.\d+\.\d+(?:rc\d+|\.post\d+)?)")
_FULL_SHA = re.compile(r"[0-9a-f]{40}")
_HEX = re.compile(r"[0-9a-f]{7,40}")
_GIT_TIMEOUT_S = 120


class GitUnavailable(KgbError, ConnectionError):
    """git could not reach the repository (no network, unknown host, refused)."""


@dataclass(frozen=True)
class ResolvedSource:
    """A source tree ready to read, and what it is."""

    root: Path
    version: str
    commit: str | None
    origin: str  # 'folder' | 'sdist' | 'git' | 'sdist-fallback'
    fetched: bool  # something was downloaded or fetched by this call
    note: str = ""


def default_cache_dir() -> Path:
    """$KGB_CACHE_DIR, else ~/.cache/kernelgenbench."""
    env = os.environ.get("KGB_CACHE_DIR")
    return Path(env) if env else Path.home() / ".cache" / "kernelgenbench"


def read_version_file(root: Path) -> tuple[str | None, str | None]:
    """(version, commit id) from vllm/_version.py; the commit without the 'g' of `git describe`."""
    path = root / "vllm" / "_version.py"
    if not path.is_file():
        return None, None
    values: dict[str, str] = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    values[t.id] = node.value.value
    commit = values.get("commit_id") or values.get("__commit_id__")
    if commit and re.fullmatch(r"g[0-9a-f]{7,40}", commit):
        commit = commit[1:]
    return values.get("version") or values.get("__version__"), commit


def _pkg_info_version(root: Path) -> str | None:
    pkg = root / "PKG-INFO"
    if pkg.is_file():
        m = re.search(r"^Version:\s*(\S+)", pkg.read_text(encoding="utf-8", errors="replace"), re.M)
        return m.group(1) if m else None
    return None


def _git(args: list[str], *, cwd: Path | None = None, stdout_bytes: bool = False) -> subprocess.CompletedProcess:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "true"}
    try:
        return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=not stdout_bytes,
                              timeout=_GIT_TIMEOUT_S, check=False)
    except FileNotFoundError:
        raise GitUnavailable("git is not installed") from None
    except subprocess.TimeoutExpired:
        raise GitUnavailable(f"git {args[0]} timed out after {_GIT_TIMEOUT_S} s") from None


def _first_line(text: str | bytes) -> str:
    s = text.decode(errors="replace") if isinstance(text, bytes) else text
    lines = [ln.strip() for ln in s.strip().splitlines() if ln.strip()]
    # git's own verdict is the 'fatal:'/'ERROR:' line; pip's is the last one
    fatal = [ln for ln in lines if ln.startswith(("fatal:", "ERROR:", "error:"))]
    return (fatal or lines or ["no message"])[0 if fatal else -1]


# --- a folder or a source distribution --------------------------------------------------------------------------


def _unpack_sdist(tarball: Path, cache: Path) -> Path:
    """Unpack the needed paths of an sdist into the cache (once; keyed by the tarball's content hash)."""
    digest = hashlib.sha256(tarball.read_bytes()).hexdigest()[:16]
    stem = tarball.name.removesuffix(".tar.gz").removesuffix(".tgz")
    dest = cache / "vllm-unpacked" / f"{stem}-{digest}-{_PATHS_KEY}"
    if (dest / ".complete").is_file():
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=dest.parent, prefix=".unpack-"))
    try:
        with tarfile.open(tarball) as tf:
            members = []
            for m in tf.getmembers():
                parts = m.name.split("/", 1)
                if len(parts) == 2 and any(parts[1] == p or parts[1].startswith(p + "/") for p in NEEDED_PATHS + ("PKG-INFO",)):
                    members.append(m)
            if not members:
                raise SourceNotFound(f"{tarball}: no csrc/ or vllm/_custom_ops.py inside; is it a vLLM sdist?")
            tf.extractall(tmp, members=members, filter="data")
        tops = [p for p in tmp.iterdir() if p.is_dir()]
        if len(tops) != 1:
            raise SourceNotFound(f"{tarball}: expected one top-level folder in the sdist")
        if dest.exists():
            shutil.rmtree(dest)
        tops[0].rename(dest)
        (dest / ".complete").write_text(tarball.name)
    except tarfile.TarError as exc:
        raise SourceNotFound(f"{tarball}: not a readable tar archive ({exc})") from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return dest


def resolve_source(path: Path, cache: Path | None = None) -> ResolvedSource:
    """A vLLM checkout / unpacked sdist folder, or an sdist tarball (unpacked into the cache)."""
    cache = cache or default_cache_dir()
    if not path.exists():
        raise SourceNotFound(f"--source {path}: no such file or folder")
    origin = "folder"
    if path.is_file():
        if not path.name.endswith((".tar.gz", ".tgz")):
            raise SourceNotFound(f"--source {path}: expected a folder or a .tar.gz source distribution")
        path, origin = _unpack_sdist(path, cache), "sdist"
    if not (path / "csrc").is_dir():
        raise SourceNotFound(f"--source {path}: no csrc/ folder; pass a vLLM checkout or source distribution")
    version, commit = read_version_file(path)
    if (path / ".git").exists():
        head = _git(["rev-parse", "HEAD"], cwd=path)
        if head.returncode == 0:
            commit = head.stdout.strip()
    return ResolvedSource(path, version or _pkg_info_version(path) or "unknown", commit, origin, False)


# --- a git revision ---------------------------------------------------------------------------------------------


def _ls_remote(url: str) -> dict[str, str]:
    """ref name -> commit id of every advertised ref (tags peeled)."""
    res = _git(["ls-remote", url])
    if res.returncode != 0:
        raise GitUnavailable(f"git ls-remote {url}: {_first_line(res.stderr)}")
    refs: dict[str, str] = {}
    for line in res.stdout.splitlines():
        sha, _, ref = line.partition("\t")
        if ref.endswith("^{}"):
            refs[ref[:-3]] = sha  # the peeled commit of an annotated tag wins
        else:
            refs.setdefault(ref, sha)
    return refs


def _match_rev(rev: str, refs: dict[str, str], url: str) -> str:
    for ref in (rev, f"refs/heads/{rev}", f"refs/tags/{rev}"):
        if ref in refs:
            return refs[ref]
    if _HEX.fullmatch(rev):
        hits = {sha for sha in refs.values() if sha.startswith(rev)}
        if len(hits) == 1:
            return hits.pop()
        if _FULL_SHA.fullmatch(rev):
            return rev
        raise SourceNotFound(f"--rev {rev}: an abbreviated commit id that no branch or tag of {url} points at; "
                             "pass the full 40-character commit id")
    raise SourceNotFound(f"--rev {rev}: no branch, tag or commit of that name in {url}")


def _has_commit(repo: Path, sha: str) -> bool:
    return (repo / "HEAD").is_file() and _git(["cat-file", "-e", f"{sha}^{{commit}}"], cwd=repo).returncode == 0


def _checkout(repo: Path, sha: str, dest: Path) -> None:
    """The NEEDED_PATHS of commit `sha` written under dest (through git archive; no working tree)."""
    listed = _git(["ls-tree", "--name-only", sha, "--", *NEEDED_PATHS], cwd=repo)
    paths = listed.stdout.split() if listed.returncode == 0 else []
    if "csrc" not in paths:
        raise SourceNotFound(f"commit {sha} has no csrc/ folder; is the repository vLLM?")
    arch = _git(["archive", "--format=tar", sha, "--", *paths], cwd=repo, stdout_bytes=True)
    if arch.returncode != 0:
        raise SourceNotFound(f"git archive {sha}: {_first_line(arch.stderr)}")
    tmp = Path(tempfile.mkdtemp(dir=dest.parent, prefix=".checkout-"))
    try:
        with tarfile.open(fileobj=io.BytesIO(arch.stdout)) as tf:
            tf.extractall(tmp, filter="data")
        if dest.exists():
            shutil.rmtree(dest)
        tmp.rename(dest)
        (dest / ".complete").write_text(sha)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _url_of(repo_url: str) -> str:
    """A local path as a file:// URL (so that a shallow fetch works the same as from a host)."""
    p = Path(repo_url)
    return p.resolve().as_uri() if "://" not in repo_url and p.exists() else repo_url


def resolve_git(rev: str, repo_url: str, cache: Path) -> ResolvedSource:
    """Resolve REV against the repository and check its sources out into the cache (fetching at most once)."""
    url = _url_of(repo_url)
    key = hashlib.sha1(url.encode()).hexdigest()[:16]
    base = cache / "vllm-git" / key
    repo, trees = base / "repo.git", base / "trees"
    if _FULL_SHA.fullmatch(rev) and _has_commit(repo, rev):
        sha = rev  # a known commit id needs no lookup at all
    else:
        sha = _match_rev(rev, _ls_remote(url), url)
    fetched = False
    if not _has_commit(repo, sha):
        repo.mkdir(parents=True, exist_ok=True)
        if not (repo / "HEAD").is_file():
            init = _git(["init", "--bare", "-q", str(repo)])
            if init.returncode != 0:
                raise SourceNotFound(f"cannot create a git cache at {repo}: {_first_line(init.stderr)}")
        res = _git(["fetch", "--depth", "1", "-q", url, sha], cwd=repo)
        if res.returncode != 0:
            raise GitUnavailable(f"git fetch {url} {sha}: {_first_line(res.stderr)}")
        fetched = True
    dest = trees / f"{sha}-{_PATHS_KEY}"
    if not (dest / ".complete").is_file():
        trees.mkdir(parents=True, exist_ok=True)
        _checkout(repo, sha, dest)
    version, _ = read_version_file(dest)
    m = _RELEASE_TAG.fullmatch(rev)
    return ResolvedSource(dest, version or (m.group(1) if m else rev), sha, "git", fetched)


# --- the release fallback ---------------------------------------------------------------------------------------


def sdist_path(version: str, cache: Path) -> Path:
    """Where the sdist of a release is cached."""
    return cache / "vllm-sdist" / f"vllm-{version}.tar.gz"


def download_sdist(version: str, cache: Path) -> tuple[Path, bool]:
    """The cached sdist of a vLLM release, downloaded with `pip download` when missing; (path, downloaded)."""
    dest = sdist_path(version, cache)
    if dest.is_file():
        return dest, False
    dest.parent.mkdir(parents=True, exist_ok=True)
    # Metadata of vLLM's sdist is built by its setup.py: no GPU build (empty target), the version fixed,
    # build isolation off so the installed torch/setuptools-scm are used.
    env = {**os.environ, "VLLM_TARGET_DEVICE": "empty", "VLLM_VERSION_OVERRIDE": version}
    with tempfile.TemporaryDirectory(dir=dest.parent) as tmp:
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
               "--no-build-isolation", f"vllm=={version}", "-d", tmp]
        try:
            res = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900, check=False)
        except subprocess.TimeoutExpired:
            raise NetworkUnavailable(f"pip download vllm=={version} timed out") from None
        got = sorted(Path(tmp).glob("vllm-*.tar.gz"))
        if res.returncode != 0 or not got:
            raise _download_error(version, res.stderr or res.stdout)
        shutil.move(str(got[0]), dest)
    return dest, True


def _download_error(version: str, output: str) -> KgbError:
    """Why `pip download` failed: a missing build tool is a setup problem, not an unreachable index."""
    missing = re.search(r"No module named '([\w.]+)'", output)
    if missing:
        pkg = missing.group(1).split(".")[0].replace("_", "-")
        return KgbError(f"pip download vllm=={version} could not prepare vLLM's metadata: {pkg} is not installed "
                        f"in this environment; `pip install {pkg}` (kernelgenbench depends on it: reinstall it)")
    return NetworkUnavailable(f"pip download vllm=={version} failed: {_first_line(output)}")


def newest_release() -> str:
    """The newest vLLM release on the package index (`pip index versions`), e.g. '0.34.0'."""
    cmd = [sys.executable, "-m", "pip", "index", "versions", "vllm"]
    try:
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    except subprocess.TimeoutExpired:
        raise NetworkUnavailable("pip index versions vllm timed out") from None
    m = re.search(r"^vllm \((\d+\.\d+\.\d+(?:\.post\d+)?)\)", res.stdout, re.MULTILINE)
    if res.returncode != 0 or not m:
        raise NetworkUnavailable(f"pip index versions vllm failed: {_first_line(res.stderr or res.stdout)}")
    return m.group(1)


def _is_commit(rev: str) -> bool:
    return re.fullmatch(r"[0-9a-fA-F]{7,40}", rev) is not None


def resolve_rev(rev: str, repo_url: str = DEFAULT_REPO_URL, cache: Path | None = None,
                newest: Callable[[], str] = newest_release) -> ResolvedSource:
    """A git revision; when git cannot reach the repository, a release tag falls back to its sdist and a
    branch (main, ...) to the newest release's sdist on the package index, saying so in the note."""
    cache = cache or default_cache_dir()
    try:
        return resolve_git(rev, repo_url, cache)
    except GitUnavailable as exc:
        m = _RELEASE_TAG.fullmatch(rev)
        if m:
            version, why = m.group(1), f"used the {m.group(1)} source distribution"
        elif _is_commit(rev):
            raise NetworkUnavailable(
                f"cannot resolve --rev {rev}: {exc}; a commit id needs git: pass --source PATH (a vLLM checkout "
                f"or source distribution) or a release tag such as --rev v0.13.0"
            ) from None
        else:
            version = newest()
            why = f"used the newest release on the package index, {version}, in place of branch {rev}"
        tarball, downloaded = download_sdist(version, cache)
        src = resolve_source(tarball, cache)
        return ResolvedSource(src.root, src.version, src.commit, "sdist-fallback", downloaded,
                              note=f"git unavailable ({exc}); {why}")
