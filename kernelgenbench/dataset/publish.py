"""Publish a built dataset folder to a Hugging Face dataset repository in one commit, or plan it (dry run).

The plan compares each local file with the remote listing (git blob sha1 for small files, LFS sha256
for large ones) so that a dry run says exactly what would be added, changed, kept and deleted.
"""

from __future__ import annotations

import enum
import hashlib
import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kernelgenbench.dataset.manifest import MANIFEST_NAME
from kernelgenbench.errors import DatasetError, NetworkUnavailable, NotAuthenticated

# Files the Hub manages itself; a publish never deletes them.
_KEEP_REMOTE = frozenset({".gitattributes"})


class Change(enum.Enum):
    """What a publish does to one file."""

    ADD = "add"
    MODIFY = "modify"
    UNCHANGED = "unchanged"
    DELETE = "delete"


class RemoteState(enum.Enum):
    """What the plan could learn about the remote repository."""

    EXISTS = "exists"
    NO_REPO = "no_repo"
    NO_REVISION = "no_revision"
    UNREACHABLE = "unreachable"


@dataclass(frozen=True)
class LocalFile:
    """A file of the dataset folder and the two digests the Hub may list for it."""

    path: str
    size: int
    sha256: str
    git_sha1: str


@dataclass(frozen=True)
class FileChange:
    """One file's fate in the publish."""

    path: str
    change: Change
    size: int


@dataclass(frozen=True)
class PublishPlan:
    """Everything a publish would do, and what was known about the remote when it was computed."""

    folder: Path
    repo_id: str
    revision: str | None
    remote: RemoteState
    remote_note: str
    changes: tuple[FileChange, ...]

    @property
    def uploads(self) -> tuple[FileChange, ...]:
        """Files to add or replace."""
        return tuple(c for c in self.changes if c.change in (Change.ADD, Change.MODIFY))

    @property
    def deletes(self) -> tuple[FileChange, ...]:
        """Remote files the folder no longer has."""
        return tuple(c for c in self.changes if c.change is Change.DELETE)

    @property
    def unchanged(self) -> tuple[FileChange, ...]:
        """Files already identical on the remote."""
        return tuple(c for c in self.changes if c.change is Change.UNCHANGED)


@dataclass(frozen=True)
class PublishResult:
    """What a publish did: its plan, the commit made (None when the remote was already up to date), the tag."""

    plan: PublishPlan
    commit_url: str | None
    commit_oid: str | None
    tag: str | None


def _digests(path: Path) -> tuple[str, str]:
    data = path.read_bytes()
    # The git blob id is what the Hub lists for files stored in git (not LFS).
    return hashlib.sha256(data).hexdigest(), hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def local_files(folder: str | Path) -> tuple[LocalFile, ...]:
    """The files of a dataset folder `kgb build` wrote, sorted by path (hidden files skipped)."""
    folder = Path(folder)
    if not (folder / "README.md").is_file() or not (folder / MANIFEST_NAME).is_file():
        raise DatasetError(f"{folder}: not a dataset folder (needs README.md and {MANIFEST_NAME}); run `kgb build` first")
    files = []
    for p in sorted(folder.rglob("*")):
        rel = p.relative_to(folder)
        if p.is_file() and not any(part.startswith(".") for part in rel.parts):
            sha256, sha1 = _digests(p)
            files.append(LocalFile(rel.as_posix(), p.stat().st_size, sha256, sha1))
    return tuple(files)


def _transport_errors() -> tuple[type[BaseException], ...]:
    # huggingface_hub's HTTP client differs between versions (httpx, its fork, requests); take what exists.
    errors: list[type[BaseException]] = [ConnectionError, TimeoutError]
    for module, name in (("httpx2", "TransportError"), ("httpx", "TransportError"), ("requests", "ConnectionError")):
        try:
            errors.append(getattr(importlib.import_module(module), name))
        except (ImportError, AttributeError):
            continue
    return tuple(errors)


def _api(endpoint: str | None = None) -> Any:
    import os

    from huggingface_hub import HfApi

    # HF_ENDPOINT is read here, at call time, not only when huggingface_hub was imported.
    return HfApi(endpoint=endpoint or os.environ.get("HF_ENDPOINT") or None)


def _offline() -> bool:
    import os

    from huggingface_hub import constants

    return constants.is_offline_mode() or os.environ.get("HF_HUB_OFFLINE", "").upper() in ("1", "ON", "YES", "TRUE")


def _remote_files(api: Any, repo_id: str, revision: str | None) -> tuple[RemoteState, str, dict[str, Any]]:
    from huggingface_hub.errors import HfHubHTTPError, RepositoryNotFoundError, RevisionNotFoundError

    if _offline():
        return RemoteState.UNREACHABLE, "offline mode (HF_HUB_OFFLINE) is on", {}
    try:
        info = api.dataset_info(repo_id, revision=revision, files_metadata=True, timeout=10)
    except RevisionNotFoundError:
        return RemoteState.NO_REVISION, f"revision {revision!r} does not exist; it will be created from main", {}
    except RepositoryNotFoundError:
        return RemoteState.NO_REPO, "repository does not exist (or is not visible to you); it will be created", {}
    except HfHubHTTPError as exc:
        status = exc.response.status_code if exc.response is not None else "an error"
        return RemoteState.UNREACHABLE, f"the Hub answered {status}", {}
    except _transport_errors() as exc:
        return RemoteState.UNREACHABLE, f"{api.endpoint} cannot be reached ({type(exc).__name__}: {exc})", {}
    return RemoteState.EXISTS, f"repository exists at {info.sha}", {s.rfilename: s for s in info.siblings or []}


def _same(local: LocalFile, remote: Any) -> bool:
    if remote.lfs is not None:
        return remote.lfs.sha256 == local.sha256
    return remote.blob_id == local.git_sha1


def plan_publish(folder: str | Path, repo_id: str, *, revision: str | None = None, api: Any = None) -> PublishPlan:
    """What publishing `folder` to `repo_id` would change; an unreachable remote makes every file an upload."""
    folder = Path(folder)
    files = local_files(folder)
    api = api or _api()
    state, note, remote = _remote_files(api, repo_id, revision)
    changes = [
        FileChange(f.path, Change.ADD if f.path not in remote else
                   (Change.UNCHANGED if _same(f, remote[f.path]) else Change.MODIFY), f.size)
        for f in files
    ]
    local_paths = {f.path for f in files}
    changes += [
        FileChange(path, Change.DELETE, sib.size or 0)
        for path, sib in sorted(remote.items())
        if path not in local_paths and path not in _KEEP_REMOTE
    ]
    return PublishPlan(folder, repo_id, revision, state, note, tuple(changes))


def _require_token(api: Any) -> str:
    from huggingface_hub import get_token

    token = api.token or get_token()
    if not token:
        raise NotAuthenticated("no Hugging Face token: run `hf auth login` or set HF_TOKEN, then publish again")
    return token


def publish(
    folder: str | Path,
    repo_id: str,
    *,
    revision: str | None = None,
    tag: str | None = None,
    private: bool = False,
    api: Any = None,
) -> PublishResult:
    """Create the dataset repo if missing and upload the folder in one commit (deleting stale files); tag it."""
    from huggingface_hub import CommitOperationAdd, CommitOperationDelete
    from huggingface_hub.errors import HfHubHTTPError

    api = api or _api()
    token = _require_token(api)
    plan = plan_publish(folder, repo_id, revision=revision, api=api)
    if plan.remote is RemoteState.UNREACHABLE:
        raise NetworkUnavailable(f"cannot publish to {repo_id}: {plan.remote_note}")
    try:
        api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True, token=token)
        if revision and revision != "main":
            api.create_branch(repo_id, repo_type="dataset", branch=revision, exist_ok=True, token=token)
        operations = [CommitOperationAdd(path_in_repo=c.path, path_or_fileobj=str(plan.folder / c.path))
                      for c in plan.uploads]
        operations += [CommitOperationDelete(path_in_repo=c.path) for c in plan.deletes]
        commit_url = commit_oid = None
        if operations:
            info = api.create_commit(
                repo_id, operations, repo_type="dataset", revision=revision, token=token,
                commit_message=f"kgb publish: {len(plan.uploads)} file(s) uploaded, {len(plan.deletes)} deleted",
            )
            commit_url, commit_oid = info.commit_url, info.oid
        if tag:
            api.create_tag(repo_id, tag=tag, revision=commit_oid or revision, repo_type="dataset", token=token)
    except HfHubHTTPError as exc:
        status = exc.response.status_code if exc.response is not None else None
        if status in (401, 403):
            raise NotAuthenticated(f"the Hub refused the token for {repo_id} ({status}); check its write access") from exc
        raise DatasetError(f"publishing {repo_id} failed: {str(exc).splitlines()[0]}") from exc
    except _transport_errors() as exc:
        raise NetworkUnavailable(f"lost the connection to the Hub while publishing {repo_id}: {exc}") from exc
    return PublishResult(plan, commit_url, commit_oid, tag)
