"""GPU: who adds an audit hook during a library's first call, and with what (issue 13).

Records the Python stack at every `sys.addaudithook` from then on, then imports the library and calls it once,
as the real-library candidates do. Usage (GPU): python3 bench/audit_hook_probe.py liger|flaggems
"""

from __future__ import annotations

import sys
import traceback
from importlib import metadata


def _recorder(stacks: list[str]):
    def hook(event: str, args: tuple) -> None:
        if event == "sys.addaudithook":
            stacks.append("".join(traceback.format_stack(limit=14)[:-1]))
    return hook


def main() -> None:
    """Print each stack that added an audit hook during the import and the first call."""
    which = sys.argv[1] if len(sys.argv) > 1 else "liger"
    import torch

    x = torch.randn(64, 4096, device="cuda", dtype=torch.bfloat16)
    w = torch.ones(4096, device="cuda", dtype=torch.bfloat16)
    stacks: list[str] = []
    sys.addaudithook(_recorder(stacks))
    if which == "liger":
        from liger_kernel.functional import rms_norm

        rms_norm(x, w, 1e-6)
    else:
        from flag_gems.fused import rms_norm

        rms_norm(x, [4096], w, 1e-6)
    torch.cuda.synchronize()
    for name in ("filelock", "triton", "torch", "liger-kernel", "flag-gems"):
        try:
            print(name, metadata.version(name))
        except metadata.PackageNotFoundError:
            print(name, "absent")
    print(f"{len(stacks)} audit hook(s) added by {which}'s import and first call")
    for s in stacks:
        print("----\n" + s)


if __name__ == "__main__":
    main()
