"""Convert task records to parquet rows with typed columns, and rows back to the exact records.

Parts whose shape is the same for every task (strings, lists of strings, the reference code, provenance)
are typed columns; parts whose shape varies from task to task (params, workloads, tolerance, cost,
details) travel as canonical JSON text. `row_to_record(record_to_row(r)) == r` for every valid record.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from datasets import Features, List, Value

from kernelgenbench.dataset.record import Task, canonical_json, content_hash
from kernelgenbench.errors import DatasetError

# Record fields stored as JSON text: their structure differs between tasks (optional keys, free-form
# generator params, per-source details), so a fixed arrow struct would either lose keys or add nulls.
JSON_FIELDS = ("params", "workloads", "tolerance", "cost", "details", "compare")
# Record fields a record may leave out (the record model's optional keys); their column holds null then, and
# the record read back omits them.
OPTIONAL_FIELDS = Task.OPTIONAL

_CODE = {"module": Value("string"), "function": Value("string"), "code": Value("string")}

FEATURES = Features(
    {
        "id": Value("string"),
        "source": Value("string"),
        "name": Value("string"),
        "overload": Value("string"),
        "category": Value("string"),
        "entry_point": Value("string"),
        "semantics": Value("string"),
        "signature": Value("string"),
        "description": Value("string"),
        "tags": List(Value("string")),
        "platforms": List(Value("string")),
        "benchmarks": List(Value("string")),
        "returns": List({"name": Value("string"), "type": Value("string"), "kind": Value("string"),
                         "alias": Value("string")}),
        "reference": _CODE,
        "inputs": _CODE,
        "workload_status": {"state": Value("string"), "reason": Value("string")},
        "provenance": {"upstream": Value("string"), "version": Value("string"), "commit": Value("string"),
                       "file": Value("string"), "line": Value("int64"), "extractor": Value("string")},
        "params": Value("string"),
        "workloads": Value("string"),
        "tolerance": Value("string"),
        "cost": Value("string"),
        "details": Value("string"),
        "compare": Value("string"),
        "record_version": Value("int64"),
        "num_workloads": Value("int64"),
        "content_hash": Value("string"),
    }
)

# Columns derived from the record for convenience (filtering, integrity); not part of the record itself.
DERIVED_COLUMNS = ("num_workloads", "content_hash")

COLUMN_DOCS: dict[str, str] = {
    "id": "Task id `<source>/<name>[.<overload>]`; rows are sorted by it.",
    "source": "`aten`, `vllm` or `cublas`.",
    "name": "Upstream operator name without overload.",
    "overload": "Upstream overload name; empty for the default overload and for sources without overloads.",
    "category": "Operator family (elementwise, reduction, gemm, attention, ...).",
    "entry_point": "Name of the Python function a candidate defines.",
    "semantics": "How outputs are compared: deterministic, random, uninitialized or view.",
    "signature": "Upstream signature text verbatim (FunctionSchema or C prototype); null when upstream has none.",
    "description": "What the op computes, in words.",
    "tags": "Upstream tags (ATen tags, vLLM dispatch keys, cuBLAS variant markers).",
    "platforms": "Platforms the task applies to (`any` for the portable set).",
    "benchmarks": "Curated sets the task belongs to (`ms`, `mc`).",
    "returns": "Returned values: name, upstream type, normalized kind, alias set.",
    "reference": "The pure-PyTorch reference: a self-contained module (`code`) and the `function` to call; null when none.",
    "inputs": "Input generator for coherent inputs, same shape as `reference`; null when workloads give tensor specs.",
    "workload_status": "`state` ok/partial/none and the `reason` when not ok.",
    "provenance": "Upstream project, version, commit, file and line the task was read from, and the extractor version.",
    "params": "List of parameters (name, type, kind, mutable, alias, optional, default, keyword_only, direction, dtype, description).",
    "workloads": "List of cases {id, purpose, origin, args or params, description}; `args` maps parameter names to tensor specs or values.",
    "tolerance": "{dtype: {atol, rtol, max_mismatch?}}.",
    "cost": "{flops, bytes, unit} expressions for speed-of-light (ATen: also reads, writes), or null.",
    "details": "Source-specific facts under the key of the source.",
    "compare": "Declared comparison rules [{target, mode, ...}] where upstream leaves an order unspecified "
               "(unordered, unordered_within_segments, ties_allowed); null when every output is compared as is.",
    "record_version": "Version of the record format.",
    "num_workloads": "Derived: number of workloads.",
    "content_hash": "Derived: sha256 of the record's canonical JSON; `load_tasks` checks it.",
}


def record_to_row(record: Mapping[str, Any]) -> dict[str, Any]:
    """The parquet row of one (valid) record; a field without a column is an error, never dropped."""
    unknown = sorted(set(record) - set(FEATURES))
    if unknown:
        raise DatasetError(f"record {record.get('id', '<no id>')}: field(s) {unknown} have no dataset column; "
                           "add them to FEATURES in kernelgenbench/dataset/rows.py")
    row = {name: record[name] for name in FEATURES if name not in JSON_FIELDS and name not in DERIVED_COLUMNS}
    row.update({name: canonical_json(record[name]) if name in record else None for name in JSON_FIELDS})
    row["num_workloads"] = len(record["workloads"])
    row["content_hash"] = content_hash(record)
    return row


def row_to_record(row: Mapping[str, Any]) -> dict[str, Any]:
    """The record a row was made from (derived columns dropped, JSON text parsed)."""
    record = {name: row[name] for name in FEATURES if name not in JSON_FIELDS and name not in DERIVED_COLUMNS}
    missing = [name for name in JSON_FIELDS if row.get(name) is None and name not in OPTIONAL_FIELDS]
    if missing:
        raise DatasetError(f"row {row.get('id', '<no id>')}: column(s) {missing} are null")
    record.update({name: json.loads(row[name]) for name in JSON_FIELDS if row.get(name) is not None})
    return record
