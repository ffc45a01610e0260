"""The committed trace summary (kernelgenbench/data/aten_trace.json): its schema, loading and writing.

Loading needs neither `transformers` nor torch: the dataset build reads this file only.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jsonschema

from kernelgenbench.datafiles import data_text
from kernelgenbench.errors import KgbError

DATA_FILE = "aten_trace.json"
FORMAT = 1
# The phases of a traced step, in step order (kernelgenbench.trace.phases says what each runs). A file
# without phases (the first traces) recorded the training step only.
PHASES = ("data", "train", "optimizer", "generate")
# How a workload description names one step of each phase ("N calls per <words>").
PHASE_WORDS = {"data": "batch", "train": "training step", "optimizer": "optimizer step", "generate": "generation"}

_ARGS = {"type": "object", "additionalProperties": {
    "type": "object", "minProperties": 1, "maxProperties": 1,
    "properties": {"tensor": {"$ref": "#/$defs/tensor"},
                   "tensors": {"type": "array", "items": {"oneOf": [{"$ref": "#/$defs/tensor"}, {"type": "null"}]}},
                   "value": {}, "float": {"type": ["number", "string"]}, "dtype": {"type": "string"},
                   "device": {"const": True}},
    "additionalProperties": False}}

SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["format", "torch", "transformers", "note", "models", "ops"],
    "additionalProperties": False,
    "properties": {
        "format": {"const": FORMAT},
        "torch": {"type": "string"},
        "transformers": {"type": "string"},
        "note": {"type": "string"},
        "models": {"type": "array", "items": {
            "type": "object", "required": ["name", "family", "batch", "calls"], "additionalProperties": False,
            "properties": {"name": {"type": "string"}, "family": {"type": "string"}, "batch": {"type": "string"},
                           "calls": {"type": "integer", "minimum": 0},
                           "phases": {"type": "object", "propertyNames": {"enum": list(PHASES)},
                                      "additionalProperties": {"type": "integer", "minimum": 1}}}}},
        "ops": {"type": "object", "additionalProperties": {
            "type": "object", "required": ["level", "calls", "models", "distinct", "shapes"],
            "additionalProperties": False,
            "properties": {
                "level": {"enum": ["dispatch", "function"]},
                "calls": {"type": "integer", "minimum": 1},
                "models": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                "distinct": {"type": "integer", "minimum": 1},
                "shapes": {"type": "array", "items": {
                    "type": "object", "required": ["calls", "bytes", "models", "args"], "additionalProperties": False,
                    "properties": {"calls": {"type": "integer", "minimum": 1},
                                   "bytes": {"type": "integer", "minimum": 0},
                                   "models": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                                   "phases": {"type": "array", "items": {"enum": list(PHASES)}, "minItems": 1,
                                              "uniqueItems": True},
                                   "args": _ARGS}}}}}},
    },
    "$defs": {"tensor": {"type": "object", "required": ["shape", "dtype"], "additionalProperties": False,
                         "properties": {"shape": {"type": "array", "items": {"type": "integer", "minimum": 0}},
                                        "dtype": {"type": "string"},
                                        "stride": {"type": "array", "items": {"type": "integer"}}}}},
}


def validate(data: Any, where: str = DATA_FILE) -> dict[str, Any]:
    """`data` if it matches the schema and its models are consistent; KgbError naming the first problem."""
    try:
        jsonschema.validate(data, SCHEMA)
    except jsonschema.ValidationError as exc:
        path = "/".join(str(p) for p in exc.absolute_path)
        raise KgbError(f"{where}: {path or '<top>'}: {exc.message[:200]}") from None
    known = {m["name"] for m in data["models"]}
    for op, entry in data["ops"].items():
        named = set(entry["models"]) | {m for s in entry["shapes"] for m in s["models"]}
        if not named <= known:
            raise KgbError(f"{where}: ops/{op}: unknown model(s) {sorted(named - known)}")
        if len(entry["shapes"]) > entry["distinct"] or sum(s["calls"] for s in entry["shapes"]) > entry["calls"]:
            raise KgbError(f"{where}: ops/{op}: more shapes or calls listed than counted")
    return data


def shape_phases(shape: Mapping[str, Any]) -> list[str]:
    """The phases a traced shape was called in (a file from before phases: the training step)."""
    return list(shape.get("phases", ["train"]))


def dumps(data: Mapping[str, Any]) -> str:
    """Deterministic text: sorted keys, one op per line (small diffs when a re-trace changes one op)."""
    head = {k: v for k, v in data.items() if k != "ops"}
    lines = [json.dumps(head, sort_keys=True, separators=(",", ":"))[:-1] + ',"ops":{']
    ops = sorted(data["ops"].items())
    for i, (op, entry) in enumerate(ops):
        sep = "," if i < len(ops) - 1 else ""
        lines.append(json.dumps(op) + ":" + json.dumps(entry, sort_keys=True, separators=(",", ":")) + sep)
    lines.append("}}")
    return "\n".join(lines) + "\n"


def read(path: Path) -> dict[str, Any]:
    """Load and validate a trace summary file."""
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise KgbError(f"{path}: cannot read the trace summary: {exc}") from None
    return validate(data, str(path))


@functools.cache
def load() -> dict[str, Any]:
    """The committed trace summary (validated once per process)."""
    return validate(json.loads(data_text(DATA_FILE)), f"kernelgenbench/data/{DATA_FILE}")
