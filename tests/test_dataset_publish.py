"""kgb publish: the dry-run plan against a listing, an unreachable or offline Hub, and a missing token.

No test needs the network: the listing comes from a small local HTTP server that answers the one Hub
API call the plan makes, and the error paths use an unroutable local endpoint or offline mode.
"""

from __future__ import annotations

import hashlib
import http.server
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from dataset_fixtures import all_records, write_jsonl
from huggingface_hub import HfApi, constants

from kernelgenbench.dataset.build import build_dataset
from kernelgenbench.dataset.publish import Change, RemoteState, plan_publish, publish

UNREACHABLE = "http://127.0.0.1:9"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("publish")
    build_dataset([write_jsonl(tmp / "r.jsonl", all_records())], tmp / "ds", repo_id="org/name")
    return tmp / "ds"


@pytest.fixture
def online(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)


def _git_sha1(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@pytest.fixture
def fake_hub(built: Path) -> Iterator[str]:
    """A local server answering `GET /api/datasets/<repo>[/revision/<rev>]` as the Hub does."""
    readme = (built / "README.md").read_bytes()
    siblings = [
        {"rfilename": ".gitattributes", "size": 10, "blobId": "0" * 40},
        {"rfilename": "README.md", "size": len(readme), "blobId": _git_sha1(readme)},
        {"rfilename": "manifest.json", "size": 5, "blobId": _git_sha1(b"stale")},
        {"rfilename": "ms/test-00000-of-00001.parquet", "size": 1, "blobId": "1" * 40,
         "lfs": {"size": 1, "sha256": hashlib.sha256((built / "ms/test-00000-of-00001.parquet").read_bytes()).hexdigest(),
                 "pointerSize": 130}},
        {"rfilename": "mc/test-00000-of-00001.parquet", "size": 1, "blobId": "2" * 40,
         "lfs": {"size": 1, "sha256": "f" * 64, "pointerSize": 130}},
        {"rfilename": "old/test-00000-of-00001.parquet", "size": 77, "blobId": "3" * 40,
         "lfs": {"size": 77, "sha256": "e" * 64, "pointerSize": 130}},
    ]

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
            path = self.path.split("?")[0]
            if path in ("/api/datasets/org/name", "/api/datasets/org/name/revision/main"):
                self._reply(200, {"id": "org/name", "sha": "abc123", "siblings": siblings}, None)
            elif path.startswith("/api/datasets/org/name/revision/"):
                self._reply(404, {"error": "Invalid rev id"}, "RevisionNotFound")
            else:
                self._reply(404, {"error": "Repository not found"}, "RepoNotFound")

        def _reply(self, status: int, body: dict, code: str | None) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            if code:
                self.send_header("X-Error-Code", code)
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_plan_compares_local_files_with_the_listing(built: Path, fake_hub: str, online: None) -> None:
    plan = plan_publish(built, "org/name", api=HfApi(endpoint=fake_hub, token=False))
    assert plan.remote is RemoteState.EXISTS and plan.remote_note == "repository exists at abc123"
    got = {c.path: c.change for c in plan.changes}
    assert got == {
        "README.md": Change.UNCHANGED,  # git blob id matches
        "ms/test-00000-of-00001.parquet": Change.UNCHANGED,  # LFS sha256 matches
        "manifest.json": Change.MODIFY,
        "mc/test-00000-of-00001.parquet": Change.MODIFY,
        "aten/test-00000-of-00001.parquet": Change.ADD,
        "aten-all/test-00000-of-00001.parquet": Change.ADD,
        "cublas/test-00000-of-00001.parquet": Change.ADD,
        "vllm/test-00000-of-00001.parquet": Change.ADD,
        "old/test-00000-of-00001.parquet": Change.DELETE,  # .gitattributes is never deleted
    }
    assert [c.path for c in plan.deletes] == ["old/test-00000-of-00001.parquet"]


def test_plan_for_a_missing_repo_or_branch_uploads_everything(built: Path, fake_hub: str, online: None) -> None:
    api = HfApi(endpoint=fake_hub, token=False)
    n_files = sum(1 for p in built.rglob("*") if p.is_file())
    missing = plan_publish(built, "org/missing", api=api)
    assert missing.remote is RemoteState.NO_REPO and "it will be created" in missing.remote_note
    assert len(missing.uploads) == n_files and not missing.deletes
    branch = plan_publish(built, "org/name", revision="v2", api=api)
    assert branch.remote is RemoteState.NO_REVISION
    assert branch.remote_note == "revision 'v2' does not exist; it will be created from main"
    assert len(branch.uploads) == n_files


def test_cli_dry_run_against_an_unreachable_hub_lists_the_upload(
    built: Path, online: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from kernelgenbench.cli.main import main

    monkeypatch.setenv("HF_ENDPOINT", UNREACHABLE)
    monkeypatch.setattr(sys, "argv", ["kgb", "publish", str(built), "--repo-id", "org/name", "--dry-run"])
    with pytest.raises(SystemExit) as info:
        main()
    out = capsys.readouterr().out.splitlines()
    assert info.value.code == 0
    assert out[0] == f"would publish {built} to dataset org/name@main"
    assert out[1].startswith(f"remote unreachable: {UNREACHABLE} cannot be reached (ConnectError")
    assert out[1].endswith("cannot compare, so every file is listed as an upload")
    listed = sorted(line.split()[1] for line in out[2:-1])
    assert listed == sorted(p.relative_to(built).as_posix() for p in built.rglob("*") if p.is_file())
    assert all(line.startswith("  add ") for line in out[2:-1])
    assert out[-1].startswith("8 to upload (") and out[-1].endswith("0 unchanged, 0 to delete")


def test_cli_dry_run_offline_says_so(built: Path, monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    from kernelgenbench.cli.main import main

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(sys, "argv", ["kgb", "publish", str(built), "--repo-id", "org/other", "--dry-run"])
    with pytest.raises(SystemExit) as info:
        main()
    out = capsys.readouterr().out.splitlines()
    assert info.value.code == 0
    assert out[1] == ("remote unreachable: offline mode (HF_HUB_OFFLINE) is on; cannot compare, "
                      "so every file is listed as an upload")
    # the card was built for org/name, so its load examples would point elsewhere
    assert out[-1] == "note: the card's examples load another repo id; rebuild with `kgb build --repo-id org/other`"


def _kgb(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("HF_")}
    return subprocess.run(
        [sys.executable, "-c", "from kernelgenbench.cli.main import main; main()", *args],
        env={**base, **env}, capture_output=True, text=True, timeout=120,
    )


def test_publish_without_a_token_is_one_line(built: Path, tmp_path: Path) -> None:
    proc = _kgb(["publish", str(built), "--repo-id", "org/name"],
                {"HF_HOME": str(tmp_path / "hf"), "HF_ENDPOINT": UNREACHABLE})
    assert proc.returncode == 2
    assert proc.stderr == "kgb: error: no Hugging Face token: run `hf auth login` or set HF_TOKEN, then publish again\n"


def test_publish_offline_is_one_line(built: Path, tmp_path: Path) -> None:
    proc = _kgb(["publish", str(built), "--repo-id", "org/name", "--tag", "v1"],
                {"HF_HOME": str(tmp_path / "hf"), "HF_TOKEN": "hf_not_a_real_token", "HF_HUB_OFFLINE": "1"})
    assert proc.returncode == 2
    assert proc.stderr == "kgb: error: cannot publish to org/name: offline mode (HF_HUB_OFFLINE) is on\n"


def test_publish_to_an_unreachable_hub_is_one_line(built: Path, tmp_path: Path) -> None:
    proc = _kgb(["publish", str(built), "--repo-id", "org/name"],
                {"HF_HOME": str(tmp_path / "hf"), "HF_TOKEN": "hf_not_a_real_token", "HF_ENDPOINT": UNREACHABLE})
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith(f"kgb: error: cannot publish to org/name: {UNREACHABLE} cannot be reached (ConnectError")


def test_publish_of_a_folder_that_is_not_a_dataset_is_one_line(tmp_path: Path) -> None:
    proc = _kgb(["publish", str(tmp_path), "--repo-id", "org/name", "--dry-run"], {"HF_HUB_OFFLINE": "1"})
    assert proc.returncode == 2
    assert proc.stderr == (f"kgb: error: {tmp_path}: not a dataset folder (needs README.md and manifest.json); "
                           "run `kgb build` first\n")


class _RecordingHub(http.server.BaseHTTPRequestHandler):
    """Answers the write calls of a publish (create repo, branch, preupload, commit, tag) and records them."""

    calls: list[tuple[str, str, bytes]] = []

    def do_GET(self) -> None:  # noqa: N802
        self.calls.append(("GET", self.path, b""))
        self._json(404, {"error": "Repository not found"}, {"X-Error-Code": "RepoNotFound"})

    def do_POST(self) -> None:  # noqa: N802
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.calls.append(("POST", self.path.split("?")[0], body))
        path = self.path.split("?")[0]
        if path == "/api/repos/create":
            self._json(200, {"url": f"http://{self.headers['Host']}/datasets/org/name"})
        elif path == "/api/validate-yaml":
            self._json(200, {"errors": [], "warnings": []})
        elif "/preupload/" in path:
            files = json.loads(body)["files"]
            self._json(200, {"files": [{"path": f["path"], "uploadMode": "regular", "shouldIgnore": False}
                                       for f in files]})
        elif "/commit/" in path:
            self._json(200, {"commitUrl": f"http://{self.headers['Host']}/datasets/org/name/commit/c0ffee",
                             "commitOid": "c0ffee",
                             "pullRequestUrl": None})
        else:  # branch and tag creation
            self._json(200, {})

    def _json(self, status: int, body: dict, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


def test_publish_makes_one_commit_on_the_branch_then_tags_it(built: Path, online: None) -> None:
    _RecordingHub.calls = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _RecordingHub)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        api = HfApi(endpoint=f"http://127.0.0.1:{server.server_address[1]}", token="hf_test_token")
        result = publish(built, "org/name", revision="v1-branch", tag="v1.0", private=True, api=api)
    finally:
        server.shutdown()
        server.server_close()
    posts = [(path, body) for method, path, body in _RecordingHub.calls if method == "POST"]
    kinds = [p.split("/")[-2] if p.startswith("/api/datasets/") else p for p, _ in posts]
    assert kinds == ["/api/repos/create", "branch", "/api/validate-yaml", "preupload", "commit", "tag"]
    create = json.loads(posts[0][1])
    assert create["name"] == "name" and create["organization"] == "org"
    assert create["type"] == "dataset" and create["visibility"] == "private"
    commit = [json.loads(line) for line in posts[4][1].splitlines()]
    assert commit[0]["key"] == "header" and posts[4][0] == "/api/datasets/org/name/commit/v1-branch"
    uploaded = sorted(item["value"]["path"] for item in commit[1:] if item["key"] == "file")
    assert uploaded == sorted(p.relative_to(built).as_posix() for p in built.rglob("*") if p.is_file())
    assert json.loads(posts[5][1]) == {"tag": "v1.0"} and posts[5][0] == "/api/datasets/org/name/tag/c0ffee"
    assert result.commit_oid == "c0ffee" and result.tag == "v1.0" and result.plan.remote is RemoteState.NO_REPO


def test_cli_publish_prints_the_commit(built: Path, online: None, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    from kernelgenbench.cli.main import main

    _RecordingHub.calls = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _RecordingHub)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    endpoint = f"http://127.0.0.1:{server.server_address[1]}"
    monkeypatch.setenv("HF_ENDPOINT", endpoint)
    monkeypatch.setenv("HF_TOKEN", "hf_test_token")
    monkeypatch.setattr(sys, "argv", ["kgb", "publish", str(built), "--repo-id", "org/name"])
    try:
        with pytest.raises(SystemExit) as info:
            main()
    finally:
        server.shutdown()
        server.server_close()
    out = capsys.readouterr().out.splitlines()
    assert info.value.code == 0
    assert out[0] == f"published {built} to dataset org/name@main"
    assert out[-1] == f"commit: {endpoint}/datasets/org/name/commit/c0ffee"
    assert [m for m, _, _ in _RecordingHub.calls].count("POST") == 4  # create, validate-yaml, preupload, commit
