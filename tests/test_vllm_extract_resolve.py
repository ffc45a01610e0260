"""Source resolution for real: a local git repository made from the 0.13.0 sdist, the sdist fallback, the CLI."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner
from vllm_sources import sdist_tree

from kernelgenbench.cli.main import extract_app
from kernelgenbench.errors import NetworkUnavailable, SourceNotFound
from kernelgenbench.extractors.vllm.registrations import scan_registrations
from kernelgenbench.extractors.vllm.resolve import default_cache_dir, resolve_git, resolve_rev, resolve_source

_GIT = ["git", "-c", "user.email=t@example.invalid", "-c", "user.name=kgb-test", "-c", "init.defaultBranch=main"]
SMALL = r'''
TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) {
  ops.def("weird(Tensor! out, str s=\"a\\tb\", " "float eps=1e-6) -> ()");
#ifndef USE_ROCM
  ops.def("cuda_only(Tensor x) -> Tensor");
#endif
  ops.def("name_only", &name_only);
}
'''
EXTRA = 'TORCH_LIBRARY_FRAGMENT(_C, m) {\n  m.def("extra_op(Tensor x) -> Tensor");\n}\n'


def git(repo: Path, *args: str) -> str:
    return subprocess.run([*_GIT, *args], cwd=repo, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture(scope="module")
def origin(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A git repo holding the 0.13.0 sources (csrc, wrappers, version, kernel tests): branch, tag, 2 commits."""
    tree = sdist_tree("0.13.0")
    repo = tmp_path_factory.mktemp("vllm-origin")
    for rel in ("csrc", "tests/kernels"):
        shutil.copytree(tree.root / rel, repo / rel)
    for rel in ("vllm/_custom_ops.py", "vllm/_version.py"):
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(tree.root / rel, repo / rel)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "vLLM 0.13.0 sources")
    first = git(repo, "rev-parse", "HEAD")
    git(repo, "branch", "release-0.13")
    git(repo, "tag", "-a", "v0.13.0", "-m", "release")  # annotated: ls-remote must peel it
    (repo / "csrc" / "extra_bindings.cpp").write_text(EXTRA)
    git(repo, "add", "csrc/extra_bindings.cpp")
    git(repo, "commit", "-q", "-m", "one more op")
    return {"path": str(repo), "url": repo.as_uri(), "first": first, "second": git(repo, "rev-parse", "HEAD")}


def test_branch_tag_and_commit_resolve_and_cache(origin: dict[str, str], tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    branch = resolve_git("release-0.13", origin["url"], cache)
    assert (branch.commit, branch.origin, branch.fetched, branch.version) == (origin["first"], "git", True, "0.13.0")
    assert len(scan_registrations(branch.root).defs) == 171
    again = resolve_git("release-0.13", origin["url"], cache)
    assert (again.commit, again.fetched, again.root) == (origin["first"], False, branch.root)  # nothing fetched
    tag = resolve_git("v0.13.0", origin["url"], cache)
    assert (tag.commit, tag.fetched, tag.root) == (origin["first"], False, branch.root)
    head = resolve_git(origin["second"], origin["url"], cache)
    assert (head.commit, head.fetched) == (origin["second"], True)
    assert len(scan_registrations(head.root).defs) == 172
    short = resolve_git(origin["second"][:10], origin["path"], cache)  # a plain path works as the URL
    assert short.commit == origin["second"]
    assert not (head.root / "vllm" / "model_executor").exists()  # only what the extractor reads


def test_cached_commit_needs_no_remote(origin: dict[str, str], tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    moved = tmp_path / "moved"
    shutil.copytree(origin["path"], moved)
    resolve_git(origin["first"], moved.as_uri(), cache)
    shutil.rmtree(moved)
    again = resolve_git(origin["first"], moved.as_uri(), cache)
    assert (again.commit, again.fetched) == (origin["first"], False)


def test_unknown_revisions_say_what_to_pass(origin: dict[str, str], tmp_path: Path) -> None:
    with pytest.raises(SourceNotFound) as err:
        resolve_git("no-such-branch", origin["url"], tmp_path)
    assert str(err.value) == f"--rev no-such-branch: no branch, tag or commit of that name in {origin['url']}"
    with pytest.raises(SourceNotFound) as err:
        resolve_git("abcdef12", origin["url"], tmp_path)
    assert str(err.value) == (f"--rev abcdef12: an abbreviated commit id that no branch or tag of {origin['url']} "
                              "points at; pass the full 40-character commit id")


def test_release_tag_falls_back_to_the_cached_sdist(tmp_path: Path) -> None:
    sdist_tree("0.13.0")  # make sure it is cached (or skip without a package index)
    got = resolve_rev("v0.13.0", str(tmp_path / "unreachable"), default_cache_dir())
    assert (got.origin, got.fetched, got.version, got.commit) == ("sdist-fallback", False, "0.13.0", "72506c983")
    assert "used the 0.13.0 source distribution" in got.note
    with pytest.raises(NetworkUnavailable) as err:
        resolve_rev("0123abcd", str(tmp_path / "unreachable"), tmp_path)
    assert str(err.value).startswith("cannot resolve --rev 0123abcd: git ls-remote ")
    assert str(err.value).endswith("; a commit id needs git: pass --source PATH (a vLLM checkout or source "
                                   "distribution) or a release tag such as --rev v0.13.0")


def test_branch_falls_back_to_the_newest_release(tmp_path: Path) -> None:
    sdist_tree("0.13.0")
    # The newest release is looked up on the package index; 0.13.0 stands in for it so the cached sdist serves.
    got = resolve_rev("main", str(tmp_path / "unreachable"), default_cache_dir(), newest=lambda: "0.13.0")
    assert (got.origin, got.version) == ("sdist-fallback", "0.13.0")
    assert "used the newest release on the package index, 0.13.0, in place of branch main" in got.note


def test_newest_release_reads_the_package_index() -> None:
    from kernelgenbench.extractors.vllm.resolve import newest_release

    try:
        version = newest_release()
    except NetworkUnavailable as exc:
        pytest.skip(f"package index unreachable: {exc}")
    assert tuple(int(x) for x in version.split(".")[:2]) >= (0, 33)


def test_source_tarball_and_folder(tmp_path: Path) -> None:
    tree = sdist_tree("0.13.0")
    assert (tree.origin, tree.version, tree.commit) == ("sdist", "0.13.0", "72506c983")
    folder = resolve_source(tree.root)
    assert (folder.origin, folder.root, folder.fetched) == ("folder", tree.root, False)
    with pytest.raises(SourceNotFound) as err:
        resolve_source(tmp_path / "none")
    assert str(err.value) == f"--source {tmp_path / 'none'}: no such file or folder"


def test_cli_rev_commit_without_a_code_host_is_one_line(tmp_path: Path) -> None:
    res = subprocess.run([sys.executable, "-c", "from kernelgenbench.cli.main import extract_main; extract_main()",
                          "vllm", "--rev", "0123abcd", "--repo-url", str(tmp_path / "unreachable"),
                          "--cache-dir", str(tmp_path)], capture_output=True, text=True, check=False)
    assert res.returncode == 2
    assert res.stdout == ""
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kgb-extract: error: cannot resolve --rev 0123abcd:")
    assert "--source PATH" in lines[0] and "--rev v0.13.0" in lines[0]


def test_cli_source_writes_records_and_one_line_summary(tmp_path: Path) -> None:
    (tmp_path / "src" / "csrc").mkdir(parents=True)
    (tmp_path / "src" / "csrc" / "torch_bindings.cpp").write_text(SMALL)
    (tmp_path / "src" / "csrc" / "broken.cu").write_text('TORCH_LIBRARY(_C, m) {\n  m.def("a(Tensor x) -> ()"\n')
    out = tmp_path / "out.jsonl"
    res = CliRunner().invoke(extract_app, ["vllm", "--source", str(tmp_path / "src"), "--out", str(out),
                                           "--no-progress", "--cache-dir", str(tmp_path / "cache")])
    assert res.exit_code == 0, res.output
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["id"] for r in records] == ["vllm/weird", "vllm/cuda_only", "vllm/name_only"]
    assert records[0]["signature"] == 'weird(Tensor! out, str s="a\\tb", float eps=1e-6) -> ()'
    assert [r["platforms"] for r in records] == [["cuda", "rocm"], ["cuda"], ["cuda", "rocm"]]
    summary = res.stderr.strip().splitlines()[-1]
    assert summary.startswith("3 records (vLLM unknown, commit unknown); curated with reference: 0/50;")
    # The def's '(' never closes and the file ends inside its block: the unclosed block costs the file (its
    # message names the block's line); no curated op's schema is in it, so nothing curated is lost (exit 0).
    assert "skipped: 2 (csrc/broken.cu:2: TORCH_LIBRARY block is not closed; " \
           "vllm/_custom_ops.py: not in the source tree (records have no wrapper))" in summary
