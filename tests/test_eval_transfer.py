"""Arguments and outputs between the evaluator and its workers: raw bytes plus JSON, no pickle."""

from __future__ import annotations

import json

import pytest
import torch

from kernelgenbench.evaluator.transfer import pack, remove_transfers, unpack


def test_round_trip_keeps_layout_aliasing_and_plain_values(tmp_path):
    cache = torch.randn(2, 4, 6)
    key, value = cache[0], cache[1]  # one storage, two views
    strided = torch.randn(8, 8)[:, ::3]
    obj = {"key": key, "value": value, "strided": strided, "bf16": torch.randn(5).to(torch.bfloat16),
           "empty": torch.empty(0, 3), "ints": torch.arange(7, dtype=torch.int64),
           "plain": [None, True, 3, 2.5, float("nan"), "s", 1 + 2j],
           "torch": (torch.float16, torch.device("cpu"), torch.strided, torch.channels_last)}
    desc = json.loads(json.dumps(pack(obj, tmp_path, "c1-in-1")))  # only JSON crosses the pipe
    out = unpack(desc, tmp_path)
    assert list(tmp_path.iterdir()) == []  # the receiver removes what it read
    for k in ("key", "value", "strided", "bf16", "empty", "ints"):
        assert out[k].dtype == obj[k].dtype and out[k].stride() == obj[k].stride() and torch.equal(out[k], obj[k])
    assert out["key"].untyped_storage().data_ptr() == out["value"].untyped_storage().data_ptr()
    assert out["plain"][:4] == [None, True, 3, 2.5] and out["plain"][5:] == ["s", 1 + 2j]
    assert out["torch"] == obj["torch"]


def test_a_subclass_travels_as_a_plain_tensor_and_other_objects_are_refused(tmp_path):
    class Sub(torch.Tensor):
        pass

    out = unpack(pack([torch.ones(3).as_subclass(Sub)], tmp_path, "c1-out-1"), tmp_path)
    assert type(out[0]) is torch.Tensor
    with pytest.raises(TypeError, match="cannot be transferred"):
        pack({"x": object()}, tmp_path, "c1-out-2")
    with pytest.raises(ValueError, match="prefix"):
        pack([], tmp_path, "../escape")


@pytest.mark.parametrize(("mutate", "message"), [
    (lambda d: d.update(prefix="../../etc/passwd"), "prefix"),
    (lambda d: d["value"].update(tensor=[0, "float32", [1000], [1], 0]), "outside its storage"),
    (lambda d: d["value"].update(tensor=[0, "not_a_dtype", [4], [1], 0]), "torch"),
    (lambda d: d.update(value={"pickle": "cos\nsystem"}), "unknown transfer tag"),
    (lambda d: d.update(storages=[999]), "does not hold"),
])
def test_a_forged_description_is_rejected(tmp_path, mutate, message):
    desc = pack(torch.zeros(4), tmp_path, "c2-out-1")
    mutate(desc)
    with pytest.raises(ValueError, match=message):
        unpack(desc, tmp_path)
    remove_transfers(tmp_path, "c2")
    assert list(tmp_path.iterdir()) == []


def test_a_run_removes_what_killed_runs_left_and_its_own_folder(tmp_path):
    import os
    import subprocess
    import sys

    from kernelgenbench.evaluator.transfer import run_folder

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True).stdout.strip()
    stale = tmp_path / f"kgb-xfer-{dead}-abc"
    stale.mkdir()
    (stale / "c1-in-1-0.bin").write_bytes(b"x" * 16)
    alive = tmp_path / f"kgb-xfer-{os.getppid()}-def"  # a live evaluator's folder stays
    alive.mkdir()
    with run_folder(tmp_path) as mine:
        assert mine.name.startswith(f"kgb-xfer-{os.getpid()}-") and mine.is_dir()
        assert not stale.exists() and alive.exists()
    assert not mine.exists()
