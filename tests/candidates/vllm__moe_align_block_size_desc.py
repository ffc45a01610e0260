"""vLLM moe_align_block_size in Triton that lists each expert's slots in DESCENDING order.

The task's reference lists them ascending; vLLM's CUDA kernel leaves the order within an expert's run
unspecified (atomics) and its test compares each run as a set. This kernel is correct by that contract
and differs from the reference inside every run that holds more than one slot.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _local(ids_ptr, map_ptr, offs, numel, num_experts, HAS_MAP: tl.constexpr):
    m = offs < numel
    ids = tl.load(ids_ptr + offs, mask=m, other=-1).to(tl.int32)
    keep = m & (ids >= 0) & (ids < num_experts)
    if HAS_MAP:
        ids = tl.load(map_ptr + ids, mask=keep, other=-1).to(tl.int32)
        keep = keep & (ids != -1)
    return ids, keep


@triton.jit
def _count_kernel(ids_ptr, map_ptr, counts_ptr, numel, num_experts, HAS_MAP: tl.constexpr, BLOCK: tl.constexpr):
    e = tl.program_id(0)
    n = tl.zeros((), dtype=tl.int32)
    for start in range(0, numel, BLOCK):
        ids, keep = _local(ids_ptr, map_ptr, start + tl.arange(0, BLOCK), numel, num_experts, HAS_MAP)
        n += tl.sum((keep & (ids == e)).to(tl.int32))
    tl.store(counts_ptr + e, n)


@triton.jit
def _layout_kernel(counts_ptr, starts_ptr, sorted_ptr, experts_ptr, post_pad_ptr, num_experts, block_size,
                   n_sorted, n_blocks, sentinel, BLOCK_E: tl.constexpr, BLOCK: tl.constexpr):
    e = tl.arange(0, BLOCK_E)
    counts = tl.load(counts_ptr + e, mask=e < num_experts, other=0)
    padded = (counts + block_size - 1) // block_size * block_size
    ends = tl.cumsum(padded, axis=0)
    tl.store(starts_ptr + e, ends - padded, mask=e < num_experts)
    total = tl.sum(padded)
    tl.store(post_pad_ptr, total)
    for start in range(0, n_sorted, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        tl.store(sorted_ptr + offs, tl.full((BLOCK,), sentinel, tl.int32), mask=offs < n_sorted)
    for start in range(0, n_blocks, BLOCK):
        b = start + tl.arange(0, BLOCK)
        pos = b * block_size
        # The expert whose run holds pos: how many runs end at or before it (runs are in expert order).
        done = tl.sum(((ends[None, :] <= pos[:, None]) & (e[None, :] < num_experts)).to(tl.int32), axis=1)
        expert = tl.where(pos < total, done, 0)
        tl.store(experts_ptr + b, expert, mask=b < n_blocks)


@triton.jit
def _place_kernel(ids_ptr, map_ptr, counts_ptr, starts_ptr, sorted_ptr, numel, num_experts,
                  HAS_MAP: tl.constexpr, BLOCK: tl.constexpr):
    e = tl.program_id(0)
    last = tl.load(starts_ptr + e) + tl.load(counts_ptr + e) - 1
    seen = tl.zeros((), dtype=tl.int32)
    for start in range(0, numel, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        ids, keep = _local(ids_ptr, map_ptr, offs, numel, num_experts, HAS_MAP)
        mine = (keep & (ids == e)).to(tl.int32)
        rank = seen + tl.cumsum(mine, axis=0) - 1
        tl.store(sorted_ptr + last - rank, offs.to(tl.int32), mask=mine != 0)
        seen += tl.sum(mine)


def moe_align_block_size(topk_ids, num_experts, block_size, sorted_token_ids, experts_ids, num_tokens_post_pad,
                         maybe_expert_map):
    numel = topk_ids.numel()
    has_map = maybe_expert_map is not None
    emap = maybe_expert_map if has_map else topk_ids
    counts = torch.empty(num_experts, dtype=torch.int32, device=topk_ids.device)
    starts = torch.empty(num_experts, dtype=torch.int32, device=topk_ids.device)
    _count_kernel[(num_experts,)](topk_ids, emap, counts, numel, num_experts, HAS_MAP=has_map, BLOCK=1024)
    _layout_kernel[(1,)](counts, starts, sorted_token_ids, experts_ids, num_tokens_post_pad, num_experts, block_size,
                         sorted_token_ids.numel(), experts_ids.numel(), numel,
                         BLOCK_E=triton.next_power_of_2(num_experts), BLOCK=64)
    _place_kernel[(num_experts,)](topk_ids, emap, counts, starts, sorted_token_ids, numel, num_experts,
                                  HAS_MAP=has_map, BLOCK=1024)
