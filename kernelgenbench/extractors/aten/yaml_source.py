"""Locate native_functions.yaml and tags.yaml: in the installed torch wheel, or in a PyTorch source tree."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from kernelgenbench.errors import SourceNotFound

# Where the two files live in a PyTorch checkout; the wheel carries verbatim copies under torchgen/packaged.
UPSTREAM_DIR = "aten/src/ATen/native"
NATIVE_FUNCTIONS = "native_functions.yaml"
TAGS = "tags.yaml"


@dataclass(frozen=True)
class AtenSource:
    """Where the ATen definitions were read from, and which upstream version they are."""

    root: Path
    native_functions: Path
    tags: Path
    version: str
    commit: str | None
    installed: bool

    @property
    def upstream_file(self) -> str:
        """native_functions.yaml's path relative to a PyTorch checkout (what provenance records)."""
        return f"{UPSTREAM_DIR}/{NATIVE_FUNCTIONS}"


def installed_source() -> AtenSource:
    """The yaml files packaged with the installed torch (torchgen ships them in the wheel)."""
    import torch
    import torchgen

    root = Path(torchgen.__file__).parent / "packaged" / "ATen" / "native"
    nf, tags = root / NATIVE_FUNCTIONS, root / TAGS
    for p in (nf, tags):
        if not p.is_file():
            raise SourceNotFound(f"{p}: missing from the installed torch; reinstall torch or pass --source PATH")
    return AtenSource(root, nf, tags, str(torch.__version__), torch.version.git_version or None, installed=True)


def _git_commit(root: Path) -> str | None:
    head = root / ".git" / "HEAD"
    if not head.is_file():
        return None
    text = head.read_text().strip()
    if not text.startswith("ref: "):
        return text or None
    ref = root / ".git" / text[5:]
    if ref.is_file():
        return ref.read_text().strip() or None
    packed = root / ".git" / "packed-refs"
    if packed.is_file():
        for line in packed.read_text().splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[1] == text[5:]:
                return parts[0]
    return None


def tree_source(root: Path) -> AtenSource:
    """The yaml files of a PyTorch source tree given with --source."""
    root = Path(root)
    if not root.is_dir():
        raise SourceNotFound(f"--source {root}: no such directory; pass the root of a PyTorch source tree")
    nf, tags = root / UPSTREAM_DIR / NATIVE_FUNCTIONS, root / UPSTREAM_DIR / TAGS
    for p in (nf, tags):
        if not p.is_file():
            raise SourceNotFound(
                f"--source {root}: {p.relative_to(root)} not found; pass the root of a PyTorch source tree"
            )
    version_txt = root / "version.txt"
    version = version_txt.read_text().strip() if version_txt.is_file() else "unknown"
    return AtenSource(root, nf, tags, version or "unknown", _git_commit(root), installed=False)


def locate(source: Path | None) -> AtenSource:
    """The installed torch's yaml files when `source` is None, else those of the tree at `source`."""
    return installed_source() if source is None else tree_source(source)
