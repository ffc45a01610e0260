"""`kgb publish`: upload a built dataset folder to a Hugging Face dataset repository (or show the plan)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def _size(n: int) -> str:
    for unit in ("B", "kB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n} B"


def register(app: typer.Typer, extract_app: typer.Typer) -> None:
    """Add the `publish` command to `kgb`."""

    @app.command("publish")
    def publish(
        folder: Annotated[Path, typer.Argument(help="Dataset folder `kgb build` wrote.")],
        repo_id: Annotated[str, typer.Option("--repo-id", help="Hub dataset repository, ORG/NAME.")],
        revision: Annotated[str | None, typer.Option(
            "--revision", help="Branch to commit to (created if missing; default main).")] = None,
        tag: Annotated[str | None, typer.Option("--tag", help="Tag the commit (e.g. v1.0).")] = None,
        private: Annotated[bool, typer.Option(
            "--private", help="Create the repository private (only when it does not exist yet).")] = False,
        dry_run: Annotated[bool, typer.Option(
            "--dry-run", help="List what would be uploaded, changed and deleted; upload nothing.")] = False,
    ) -> None:
        """Upload the folder to the dataset repo in one commit (creating the repo if missing), then tag it.

        The token comes from `hf auth login` or HF_TOKEN; HF_ENDPOINT and HF_HUB_OFFLINE are honoured.
        """
        from kernelgenbench.dataset import publish as pub

        result = None
        if dry_run:
            plan = pub.plan_publish(folder, repo_id, revision=revision)
        else:
            result = pub.publish(folder, repo_id, revision=revision, tag=tag, private=private)
            plan = result.plan
        where = f"{repo_id}@{revision or 'main'}"
        typer.echo(f"{'would publish' if dry_run else 'published'} {folder} to dataset {where}")
        if plan.remote is pub.RemoteState.UNREACHABLE:
            typer.echo(f"remote unreachable: {plan.remote_note}; cannot compare, so every file is listed as an upload")
        else:
            typer.echo(f"remote: {plan.remote_note}")
        for c in plan.changes:
            typer.echo(f"  {c.change.value:<9} {c.path} ({_size(c.size)})")
        up = sum(c.size for c in plan.uploads)
        typer.echo(f"{len(plan.uploads)} to upload ({_size(up)}), {len(plan.unchanged)} unchanged, "
                   f"{len(plan.deletes)} to delete" + (f"; tag {tag}" if tag else ""))
        if result is not None:
            typer.echo(f"commit: {result.commit_url}" if result.commit_url else "nothing changed: no commit made")
        if f'"{repo_id}"' not in (folder / "README.md").read_text(encoding="utf-8"):
            typer.echo(f"note: the card's examples load another repo id; rebuild with `kgb build --repo-id {repo_id}`")
