"""The README, run as a newcomer runs it: a fresh clone, its install command (non-editable, a fresh venv), the
"First run" commands as printed, the Python example as printed, and the HTML report in a real browser.

Slow (a few minutes: the install and one CPU evaluation). The browser part needs Chromium (Debian's
`chromium` package) and skips without it. Set KGB_E2E_ARTIFACTS=DIR to keep the report and its screenshot.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"

pytestmark = pytest.mark.slow


def _blocks(section: str, lang: str) -> list[str]:
    """The fenced `lang` code blocks of one `## section` of the README, verbatim."""
    text = README.read_text()
    start = text.index(f"\n## {section}")
    end = text.find("\n## ", start + 1)
    body = text[start:end if end != -1 else None]
    return re.findall(rf"```{lang}\n(.*?)```", body, re.S)


def _env(home: Path) -> dict[str, str]:
    """The user's environment without this test run's interpreter, package path or Hub access."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    bindir = str(Path(sys.executable).parent)
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if p != bindir)
    env.update(HF_HOME=str(home / "hf"), HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1")
    return env


def _bash(script: str, cwd: Path, env: dict[str, str], timeout: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-eo", "pipefail", "-c", script], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)


@pytest.fixture(scope="module")
def readme_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Clone, install and run every README step; each step's completed process, by name."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    tmp = tmp_path_factory.mktemp("readme")
    clone = tmp / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True, timeout=300)
    env = _env(tmp)
    install = _blocks("Set up", "bash")[0]  # the install and the main job; the second block is the tests' command
    assert "pip install -q -c constraints.txt ." in install and "-e" not in install.split()
    steps: dict[str, Any] = {"clone": clone, "install": _bash(install, clone, env, 1800)}
    assert steps["install"].returncode == 0, steps["install"].stderr[-3000:]
    activate = ". .venv/bin/activate && "
    (commands,) = _blocks("First run, end to end (CPU, a few minutes)", "bash")
    for line in commands.strip().splitlines():
        name = line.split()[1] if line.startswith("kgb ") else line.split()[0]
        steps[name] = _bash(activate + line, clone, env, 1200)
        assert steps[name].returncode == 0, f"{line}\n{steps[name].stderr[-3000:]}"
    (example,) = _blocks("First run, end to end (CPU, a few minutes)", "python")
    (clone / "readme_example.py").write_text(example)
    steps["api"] = _bash(activate + "python readme_example.py", clone, env, 1200)
    return steps


def test_install_is_not_editable(readme_run: dict[str, Any]) -> None:
    clone = readme_run["clone"]
    out = subprocess.run([str(clone / ".venv" / "bin" / "python"), "-c",
                          "import kernelgenbench; print(kernelgenbench.__file__)"], capture_output=True, text=True,
                         cwd="/", env=_env(clone.parent), timeout=120)
    assert out.returncode == 0 and "site-packages" in out.stdout, out.stdout + out.stderr


def test_extract_build_load_prompt(readme_run: dict[str, Any]) -> None:
    clone = readme_run["clone"]
    assert len((clone / "aten.jsonl").read_text().splitlines()) > 100
    assert "aten.jsonl: wrote" in readme_run["kgb-extract"].stderr
    assert (clone / "kgb-dataset" / "ms").is_dir() and (clone / "kgb-dataset" / "README.md").is_file()
    assert re.search(r"num_rows: \d{3}", readme_run["python3"].stdout), readme_run["python3"].stdout
    prompt = readme_run["prompt"].stdout
    assert prompt.startswith("# Task aten/add.Tensor\n") and "## Forbidden" in prompt and len(prompt) < 12_000


def test_eval_prints_progress_and_report_shows_every_task(readme_run: dict[str, Any]) -> None:
    clone = readme_run["clone"]
    err = readme_run["eval"].stderr.splitlines()
    passed = [x for x in err if x.startswith("PASS passed")]
    outside = [x for x in err if x.startswith("---- not_in_dataset")]
    assert len(passed) == 7 and len(outside) == 6, "\n".join(err[-30:])
    assert "statuses [all]: passed 7, not_in_dataset 6" in readme_run["eval"].stdout
    assert "acc aten" in readme_run["eval"].stdout and "7/7 (100%)" in readme_run["eval"].stdout
    rows = [json.loads(x) for x in (clone / "results.jsonl").read_text().splitlines()]
    assert sum(r["kind"] == "task" for r in rows) == 13
    report = readme_run["report"].stdout
    assert "7 candidates judged, 7 correct, 6 for tasks not in the dataset (left out)" in report
    assert "per task" in report and "aten/mm" in report and "caveat: Triton's interpreter" in report
    assert (clone / "report.html").read_text().startswith("<!doctype html>")


def test_the_python_example_runs_as_printed(readme_run: dict[str, Any]) -> None:
    api = readme_run["api"]
    assert api.returncode == 0, api.stderr[-3000:]
    assert api.stdout.startswith("passed "), api.stdout + api.stderr[-3000:]
    assert "Traceback" not in api.stderr


# Measures, in the browser, every plot label against its picture and finds the legends and the task table;
# the result is written into the page, read back with --dump-dom.
_PROBE = """<script>
window.addEventListener('load', () => {
  const out = {clipped: [], labels: 0, legends: 0, svgs: 0, taskRows: 0};
  for (const svg of document.querySelectorAll('svg')) {
    out.svgs += 1;
    const box = svg.getBoundingClientRect();
    for (const t of svg.querySelectorAll('text[text-anchor="end"]')) {
      out.labels += 1;
      const r = t.getBoundingClientRect();
      if (r.left < box.left - 0.5 || r.right > box.right + 0.5) out.clipped.push(t.textContent);
    }
    out.legends += svg.querySelectorAll('g.legend text').length ? 1 : 0;
  }
  out.taskRows = document.querySelectorAll('table.tasks tr').length - 1;
  document.body.setAttribute('data-kgb-probe', JSON.stringify(out));
});
</script>"""


def test_html_report_in_a_real_browser(readme_run: dict[str, Any], tmp_path: Path) -> None:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("chromium is not installed (Debian: apt-get install -y chromium)")
    page = (readme_run["clone"] / "report.html").read_text()
    probe = tmp_path / "probe.html"
    probe.write_text(page.replace("</body>", _PROBE + "</body>"))
    flags = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run([*flags, "--virtual-time-budget=5000", "--dump-dom", probe.as_uri()], capture_output=True,
                         text=True, timeout=180)
    found = re.search(r'data-kgb-probe="([^"]*)"', dom.stdout)
    assert found, dom.stderr[-2000:]
    result = json.loads(html.unescape(found[1]))
    assert result["svgs"] >= 1 and result["labels"] >= 7 and result["legends"] == result["svgs"]
    assert result["clipped"] == [] and result["taskRows"] == 13
    shot = tmp_path / "report.png"
    subprocess.run([*flags, "--window-size=1400,1400", f"--screenshot={shot}", (readme_run["clone"] /
                    "report.html").as_uri()], capture_output=True, timeout=180, check=True)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000
    keep = os.environ.get("KGB_E2E_ARTIFACTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(keep) / "report.png")
        shutil.copy(readme_run["clone"] / "report.html", Path(keep) / "report.html")
