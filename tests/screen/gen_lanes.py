#!/usr/bin/env python3
"""Kineto-shaped profiler traces of a pipelined run, for the lane view's
screen tests (tests/gen_trace.py, the trace reader's generator, runs every
stage on the same schedule; the lane view's tests need a stage-by-stage
schedule, so that a pipeline's bubbles show): N ranks laid out as Megatron's tp-cp-ep-dp-pp order with TP 1
(rank r is pipeline stage r // (N / PP)), GPipe schedule of M micro-batches
per step (forward, send/recv NCCL kernels, backward), a data-parallel
all-reduce and an optimizer step (a kernel and a memcpy), Megatron CPU
annotations around the launches, cudaLaunchKernel events linked to their
kernels by correlation id.  One rank can be made slower at one step
(--straggler R:S: its kernels take 1.5x; the others wait for it in the
all-reduce that ends the step).  Deterministic: the same
arguments write the same bytes.

    gen_lanes.py --out DIR --ranks 8 --pp 4 --steps 3 --straggler 5:2
"""
import argparse
import json
import os

F, B, C, AR, OPT, CP = 400.0, 800.0, 50.0, 300.0, 100.0, 20.0   # microseconds


def rank_events(r, n, pp, steps, micro, slow):
    stage = r // (n // pp)
    ev, corr = [], [1000]
    pid, tid = 100 + r, 1

    def kernel(name, cat, ts, dur, stream, annot):
        corr[0] += 1
        k = corr[0]
        launch = ts - 8.0
        ev.append({"ph": "X", "cat": "user_annotation", "name": annot, "pid": pid, "tid": tid,
                   "ts": launch - 1.0, "dur": 6.0})
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": pid, "tid": tid,
                   "ts": launch, "dur": 4.0, "args": {"correlation": k}})
        ev.append({"ph": "X", "cat": cat, "name": name, "pid": 0, "tid": stream, "ts": ts, "dur": dur,
                   "args": {"device": 0, "stream": stream, "correlation": k}})

    base = 1_000_000.0
    for s in range(1, steps + 1):
        f, b = (F * 1.5, B * 1.5) if (r, s) == slow else (F, B)
        end_f = base + (pp - 1 + micro) * (f + C)
        end_b = end_f + (pp - 1 + micro) * (b + C)
        # every rank's all-reduce ends when the slowest rank's does: the
        # others wait in it (a long exposed all-reduce)
        slowest = max(1.5 if (q, s) == slow else 1.0 for q in range(n))
        ar_end = base + 2 * (pp - 1 + micro) * C + (pp - 1 + micro) * (F + B) * slowest + AR
        step_end = ar_end + OPT + CP
        ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % s, "pid": pid, "tid": tid,
                   "ts": base - 20.0, "dur": step_end + 40.0 - base})
        for i in range(micro):
            t = base + (stage + i) * (f + C)
            if stage > 0:
                kernel("ncclKernel_SendRecv", "kernel", t - C, C, 20, "recv_forward")
            kernel("sm80_xmma_gemm_f16f16_f32_fwd", "kernel", t, f, 7, "forward_step")
        for i in reversed(range(micro)):
            t = end_f + ((pp - 1 - stage) + (micro - 1 - i)) * (b + C)
            if stage < pp - 1:
                kernel("ncclKernel_SendRecv", "kernel", t - C, C, 20, "recv_backward")
            kernel("sm80_xmma_gemm_f16f16_f32_bwd", "kernel", t, b, 7, "backward_step")
        kernel("ncclKernel_AllReduce_RING_LL_Sum_float", "kernel", end_b, ar_end - end_b, 24, "finish_grad_sync")
        kernel("multi_tensor_apply_kernel", "kernel", ar_end, OPT, 7, "optimizer")
        kernel("Memcpy DtoD (Device -> Device)", "gpu_memcpy", ar_end + OPT, CP, 7, "optimizer")
        base = step_end + 60.0
    return ev


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--ranks", type=int, default=8)
    ap.add_argument("--pp", type=int, default=4)
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--micro", type=int, default=4)
    ap.add_argument("--straggler", default="")
    a = ap.parse_args()
    slow = tuple(int(x) for x in a.straggler.split(":")) if a.straggler else None
    os.makedirs(a.out, exist_ok=True)
    for r in range(a.ranks):
        doc = {"schemaVersion": 1,
               "distributedInfo": {"backend": "nccl", "rank": r, "world_size": a.ranks},
               "traceEvents": rank_events(r, a.ranks, a.pp, a.steps, a.micro, slow),
               "displayTimeUnit": "ms", "baseTimeNanoseconds": 1700000000000000000}
        with open(os.path.join(a.out, "rank-%d.pt.trace.json" % r), "w") as f:
            json.dump(doc, f, separators=(",", ":"))


if __name__ == "__main__":
    main()
