"""Tampering: the evaluator's functions or the worker's recorders replaced (the worker says which)."""

from __future__ import annotations

from kernelgenbench.dataset.record import Task
from kernelgenbench.evaluator.checks.base import Check
from kernelgenbench.evaluator.status import Status
from kernelgenbench.sandbox.protocol import CallReport


def judge(task: Task, report: CallReport) -> str | None:
    """Every tampering mark the worker found, joined."""
    return "; ".join(report.tampering) or None


CHECK = Check(
    name="tampering", status=Status.TAMPERING, collector="worker", judge=judge,
    prompt="Caching results between calls, or touching the evaluator, its timers or its comparison functions.",
    corpus=("rt42_symfloat_numpy_fill_mul", "tamper_allclose", "tamper_timer", "clear_recorder", "drop_recorder", "pause_recorder",
            "fake_guard_modules", "fake_fingerprint", "fake_timing", "refresh_snapshot", "patch_recorder_methods",
            "code_swap_wrapped_hook", "defer_gc_callback", "defer_signal_timer", "record_function_off",
            "rewrite_recorder_state", "rewrite_op_pattern", "reset_host_count",
            "rt11_dispatch_library_override", "rt15_worker_replace_global", "rt16_fnmode_predraw_add",
            "rt16_fnmode_detach_rmsnorm", "rt16_randn_patch_add", "rt16_frombuffer_arena_forge",
            "rt16_builder_fadd_patch_mm", "rt16_sha256_fingerprint_forge", "rt17_json_default_encoder",
            "rt17_dataclasses_global_scrub", "rt18_frame_send_msg_scrub",
            "rt19_closurevars_scrub"),
)
