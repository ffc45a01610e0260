"""What a plain (non-editable) install carries: the card template and the data files the build needs."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_wheel_ships_the_card_template_and_the_schema(tmp_path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", str(ROOT),
                    "-w", str(tmp_path)], check=True, capture_output=True, timeout=300)
    (wheel,) = tmp_path.glob("kernelgenbench-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "kernelgenbench/data/dataset_card.md.j2" in names
    assert "kernelgenbench/dataset/schema/task.schema.json" in names
    shipped = zipfile.ZipFile(wheel).read("kernelgenbench/data/dataset_card.md.j2")
    assert shipped == (ROOT / "cards" / "dataset_card.md.j2").read_bytes()


def test_default_card_template_is_found_in_the_package():
    from kernelgenbench.dataset.card import default_card_template

    assert default_card_template().read_bytes() == (ROOT / "cards" / "dataset_card.md.j2").read_bytes()
