#!/usr/bin/env python3
"""gen_trace.py: Kineto-shaped profiler traces of a distributed training run,
for probetop's trace reader tests and benchmarks (probetop-formats(5),
PROFILER TRACES).

Each rank runs S steps of a Megatron-like schedule: ProfilerStep#N, then per
micro batch forward_step (compute kernels), send_forward (a pipeline NCCL
SendRecv), backward_step, send_backward; then start_grad_sync/finish_grad_sync
(an NCCL AllReduce that ends on every rank at once: ranks that are early wait
in it), optimizer (compute kernels and a memcpy).  Every kernel is launched by
a cudaLaunchKernel CPU event carrying its correlation id.  One rank (the
straggler) computes --slow times slower, so the others wait in the AllReduce.

  gen_trace.py OUT --ranks 4 --steps 3 [--pp 2] [--micro 2] [--straggler R]
               [--slow 1.6] [--gz] [--rank-source first|last|absent|name]
               [--time absolute|relative] [--layout flat|traceviz]
               [--pad-mb N] [--no-steps] [--no-kernels] [--bomb N]
               [--tp T] [--ep E] [--recompute] [--pg-config]
               [--pg-args none|name|full] [--listing]
               [--schedule same|1f1b] [--link-us US] [--vpp V] [--p2p]

Process groups: rank = stage + pp * (tp_rank + tp * dp_rank) (stage = rank %
pp as without them); the EP groups are blocks of E consecutive DP ranks.
--tp T / --ep E (T, E > 1): in each forward_step and backward_step, after its
6 compute kernels, a TP all-reduce (15 us) then an EP all-to-all (12 us) on
communication stream 22, wholly under the pass's computation (each pass
waits for the GPU: no backlog).  --recompute: the first 2 kernels of each
backward_step are launched inside a recompute_forward annotation of the
autograd thread.  --pg-config: distributedInfo.pg_config lists default_pg
and the rank's TP/PP/DP/EP groups with Megatron's descriptions.
--pg-args: what the NCCL kernels' args say of their group ("Process Group
Name" and "Description": full, the default with any of the options above;
the name only: name; nothing: none, the default without them).  --schedule 1f1b: the passes of each
pipeline stage in Megatron's 1F1B order, each waiting for its input from the
neighbouring stage (forward from the previous, backward from the next: its
send, --link-us long, default 30); --vpp V: interleaved 1F1B, V model
chunks per stage (chunk c of stage s hands on to chunk c of stage s + 1,
the last stage's chunk c to stage 0's chunk c + 1); --p2p: each pass
received by a recv_forward/recv_backward NCCL receive (stream 23, ending
when its send has) and sent only where a stage takes it, both with the
args Kineto writes ("Collective name" send or recv, "Dst Rank" or "Src
Rank": the peer's global rank); the default "same" runs every rank's
passes at the same times whatever its stage.  --listing: Megatron's
group listing OUT/unique_parallel_groups_<ts>.txt as Megatron-TraceViz's
patch writes it.

--rank-source: distributedInfo before traceEvents (first), after (last), none
with rank_<R> in the file name (name), or none at all (absent: file order).
--pad-mb: extra CPU events (aten ops) until each file is about N MB.
--bomb N: instead, N sub-microsecond kernels per rank (and their launches),
out of order: a gzip bomb for the reader's memory bound (--mem).
Prints nothing; writes OUT/<files>.
"""
import argparse
import gzip
import json
import os
import sys


def schedule(a, rank):
    """CPU events and kernels of one rank: lists of dicts (times in us)."""
    cpu, gpu = [], []
    corr = [rank * 10_000_000 + 1]
    slow = a.slow if rank == a.straggler else 1.0
    stage = rank % a.pp
    pid, tid = 1000 + rank, 1000 + rank
    stream_free = {7: 0.0, 20: 0.0, 21: 0.0, 22: 0.0, 23: 0.0}
    step_len = 4000.0 * a.micro * a.vpp
    # the all-reduce of each step ends together on every rank: after the
    # slowest rank is ready (computed from the straggler's factor)
    work = a.micro * (2 * 6 * 40.0 * a.slow + 60) + 200

    def launch(t, name, stream, dur, cat="kernel"):
        c = corr[0]
        corr[0] += 1
        cpu.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": pid, "tid": tid,
                    "ts": t, "dur": 3.5, "args": {"External id": c, "correlation": c}})
        start = max(t + 4.25, stream_free[stream])
        stream_free[stream] = start + dur
        gpu.append({"ph": "X", "cat": cat, "name": name, "pid": rank, "tid": stream, "ts": start, "dur": dur,
                    "args": {"External id": c, "device": rank, "stream": stream, "correlation": c}})
        return start + dur

    def anno(name, t, dur, cat="user_annotation"):
        if not a.no_megatron:
            cpu.append({"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": t, "dur": dur,
                        "args": {}})

    groups = rank_groups(a, rank)

    def pg_args(dim):
        if a.pg_args == "none" or dim not in groups:
            return {}
        name, desc, ranks = groups[dim]
        d = {"Process Group Name": name, "Process Group Ranks": str(ranks)}
        if a.pg_args == "full":
            d["Process Group Description"] = desc
        return d

    def comm(t, name, stream, dur, dim):
        end = launch(t, name, stream, dur)
        gpu[-1]["args"].update(pg_args(dim))
        return end

    t0 = 10_000.0
    for s in range(a.steps):
        base = t0 + s * step_len
        stream_free = {k: max(v, base) for k, v in stream_free.items()}
        if not a.no_steps:
            cpu.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % (s + 1), "pid": pid,
                        "tid": tid, "ts": base, "dur": step_len - 1.0, "args": {}})
        t = base + 10.0
        ops = [(m, d) for m in range(a.micro) for d in (0, 1)]
        if a.schedule == "1f1b":
            ops = sched_1f1b(a, rank, base + 10.0)
        for m, d in ops:
            if True:
                step_name, kernel, send = (("forward_step", "ampere_sgemm_128x64_tn", "send_forward"),
                                           ("backward_step", "void at::native::vectorized_elementwise_kernel<4>",
                                            "send_backward"))[d if a.schedule == "same" else d[0]]
                peer_to = None
                if a.schedule == "1f1b":
                    t = d[1]
                    if a.p2p and d[2] is not None:   # receive the input, then run the pass
                        src, send_end = d[2]
                        anno("recv_" + send[5:], t - 15.0, 5.0)
                        rs = max(t - 10.75, stream_free[23])
                        if not a.no_kernels:
                            comm(t - 15.0, P2P_KERNEL, 23, max(send_end, rs + 2.0) - rs, "pp")
                            gpu[-1]["args"].update(p2p_args(a, "recv", src))
                    peer_to = d[3]
                if a.tp > 1 or a.ep > 1:   # the pass waits for the GPU: its communication runs under its compute
                    t = max(t, stream_free[7], stream_free[22])
                anno(step_name, t, 6 * 10.0)
                if a.recompute and step_name == "backward_step" and not a.no_megatron:
                    cpu.append({"ph": "X", "cat": "python_function", "pid": pid, "tid": tid + 1, "ts": t,
                                "dur": 15.0, "args": {},
                                "name": "megatron/core/tensor_parallel/random.py(262): recompute_forward"})
                for k in range(6):
                    if not a.no_kernels:
                        launch(t + k * 10.0, kernel, 7, 40.0 * slow)
                if not a.no_kernels and a.tp > 1:
                    comm(t + 55.0, "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
                         22, 15.0, "tp")
                if not a.no_kernels and a.ep > 1:
                    comm(t + 57.0, "ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)", 22, 12.0, "ep")
                t += 70.0 if a.schedule == "same" else 6 * 40.0 * slow
                anno(send, t, 10.0)
                if a.p2p and a.schedule == "1f1b":   # a send only where a stage takes it
                    if peer_to is not None and not a.no_kernels:
                        comm(t + 1.0, P2P_KERNEL, 21, a.link_us, "pp")
                        gpu[-1]["args"].update(p2p_args(a, "send", peer_to))
                elif a.pp > 1 and not a.no_kernels:
                    comm(t + 1.0, "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclWorkElem)", 21, a.link_us, "pp")
                t += 20.0
        t = max(t, stream_free[7]) + 5.0
        anno("start_grad_sync", t, 10.0)
        if not a.no_kernels:
            ready = max(t + 4.25, stream_free[20])
            ends = base + 10.0 + work + 50.0
            comm(t, "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", 20, max(ends - ready, 20.0), "dp")
        t += 20.0
        anno("finish_grad_sync", t, 5.0)
        t = max(t, stream_free[20]) + 5.0
        anno("optimizer", t, 50.0)
        if not a.no_kernels:
            launch(t + 1.0, "multi_tensor_apply_kernel<AdamFunctor>", 7, 25.0)
            launch(t + 10.0, "Memcpy DtoD (Device -> Device)", 7, 5.0, "gpu_memcpy")
    return cpu, gpu


P2P_KERNEL = "ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)"


def p2p_args(a, what, peer):
    """--p2p: what Kineto writes in a send's or receive's kernel args
    (PyTorch's saveNcclMeta): its collective name and the peer's global
    rank ("Dst Rank" of a send, "Src Rank" of a receive)."""
    d = {"Collective name": what, "In msg nelems": 4194304, "Out msg nelems": 4194304, "dtype": "BFloat16"}
    d["Dst Rank" if what == "send" else "Src Rank"] = peer
    return d


def vpp_order(a, s):
    """Stage s's passes in Megatron's order: [(micro, 0 forward | 1
    backward, chunk)].  Without --vpp, 1F1B: min(pp - s - 1, M) forwards,
    then forward and backward alternate, then the remaining backwards.
    With --vpp V (interleaved 1F1B, M a multiple of pp), the k-th forward is
    chunk (k // pp) % V of micro-batch (k // (pp V)) pp + k % pp, the k-th
    backward the same with the chunks reversed, and the warm-up runs
    min(2 (pp - s - 1) + (V - 1) pp, M V) forwards."""
    pp, M, V = a.pp, a.micro, a.vpp
    if V == 1:
        w = min(pp - s - 1, M)
        fw = [(m, 0, 0) for m in range(M)]
        bw = [(m, 1, 0) for m in range(M)]
    else:
        w = min(2 * (pp - s - 1) + (V - 1) * pp, M * V)
        fw = [((k // (pp * V)) * pp + k % pp, 0, (k // pp) % V) for k in range(M * V)]
        bw = [((k // (pp * V)) * pp + k % pp, 1, V - 1 - (k // pp) % V) for k in range(M * V)]
    o = fw[:w]
    for i in range(len(fw) - w):
        o += [fw[w + i], bw[i]]
    return o + bw[len(fw) - w:]


def vpp_neighbour(a, s, c, d, toward):
    """The (stage, chunk) a pass (stage s, chunk c, 0 forward | 1 backward)
    takes its input from (toward -1) or hands its output to (toward 1), or
    None: the model's chunks run in order stage 0..pp-1 of chunk 0, then
    of chunk 1, ..."""
    pp, V = a.pp, a.vpp
    v = c * pp + s + (toward if d == 0 else -toward)
    if v < 0 or v >= pp * V:
        return None
    return v % pp, v // pp


def sched_1f1b(a, rank, t0):
    """--schedule 1f1b: this rank's passes in Megatron's 1F1B order (or
    interleaved 1F1B, --vpp) on its pipeline stage: [(micro, (0 forward |
    1 backward, t, recv, send))]; t the CPU time the pass starts; recv
    (sender's rank, its send's end) where its input comes from another
    stage, else None; send the rank that takes its output, else None.  A
    pass starts when its stage is free (20 us after its previous pass) and
    its input has arrived: the sending stage's pass of that micro-batch,
    plus its send (launched as the pass's kernels end, so 1 + 4.25 us later
    on the GPU, --link-us long)."""
    pp = a.pp
    stage = rank % pp
    first = rank - stage
    dur = [6 * 40.0 * (a.slow if first + s == a.straggler else 1.0) for s in range(pp)]
    order = [vpp_order(a, s) for s in range(pp)]
    start, pos, free = {}, [0] * pp, [t0] * pp
    while any(pos[s] < len(order[s]) for s in range(pp)):
        moved = False
        for s in range(pp):
            if pos[s] >= len(order[s]):
                continue
            m, d, c = order[s][pos[s]]
            src = vpp_neighbour(a, s, c, d, -1)
            if src is not None:
                if (src[0], src[1], m, d) not in start:
                    continue
                ready = start[(src[0], src[1], m, d)] + dur[src[0]] + 1.0 + 4.25 + a.link_us
            else:
                ready = t0
            t = max(free[s], ready)
            start[(s, c, m, d)] = t
            free[s] = t + dur[s] + 20.0
            pos[s] += 1
            moved = True
        assert moved
    out = []
    for m, d, c in order[stage]:
        src, dst = vpp_neighbour(a, stage, c, d, -1), vpp_neighbour(a, stage, c, d, 1)
        recv = None
        if src is not None:
            recv = (first + src[0], start[(src[0], src[1], m, d)] + dur[src[0]] + 1.0 + 4.25 + a.link_us)
        out.append((m, (d, start[(stage, c, m, d)], recv, first + dst[0] if dst is not None else None)))
    return out


def all_groups(a):
    """Every process group of the run, in creation order (the order every
    rank creates them in, so their names agree): (dim, desc, ranks)."""
    pp, tp = a.pp, a.tp
    dp = a.ranks // (pp * tp)
    out = []
    for stage in range(pp):
        for d in range(dp):
            out.append(("tp", "TENSOR_MODEL_PARALLEL_GROUP", [stage + pp * (t + tp * d) for t in range(tp)]))
    for base in range(0, a.ranks, pp):
        out.append(("pp", "PIPELINE_MODEL_PARALLEL_GROUP", list(range(base, base + pp))))
    for stage in range(pp):
        for t in range(tp):
            out.append(("dp", "DATA_PARALLEL_GROUP", [stage + pp * (t + tp * d) for d in range(dp)]))
    if a.ep > 1:
        for stage in range(pp):
            for t in range(tp):
                for blk in range(dp // a.ep):
                    out.append(("ep", "EXPERT_MODEL_PARALLEL_GROUP",
                                [stage + pp * (t + tp * (blk * a.ep + e)) for e in range(a.ep)]))
    return out


_GROUPS = {}


def rank_groups(a, rank):
    """The rank's groups by dim: (name, desc, ranks); names are 1 + the
    creation index (default_pg is 0)."""
    if "all" not in _GROUPS:
        _GROUPS["all"] = all_groups(a)
    return {dim: (str(i + 1), desc, ranks) for i, (dim, desc, ranks) in enumerate(_GROUPS["all"]) if rank in ranks}


def write_listing(a):
    """Megatron's group listing, as Megatron-TraceViz's patch writes it."""
    g = all_groups(a)
    titles = (("tp", "TENSOR PARALLEL (TP) GROUPS"), ("pp", "PIPELINE PARALLEL (PP) GROUPS"),
              ("dp", "DATA PARALLEL (DP) GROUPS"), ("ep", "EXPERT PARALLEL (EP) GROUPS"))
    with open(os.path.join(a.out, "unique_parallel_groups_20260101_000000.txt"), "w") as f:
        f.write("=" * 80 + "\nMEGATRON PARALLEL CONFIGURATION\n" + "=" * 80 + "\n")
        f.write("TP Size: %d\nPP Size: %d\nCP Size: 1\nEP Size: %d\nWorld Size: %d\n\n" % (a.tp, a.pp, a.ep, a.ranks))
        for dim, title in titles:
            rows = sorted(r for d, _, r in g if d == dim)
            if not rows and dim == "ep":
                continue
            f.write("%s\n%s\n" % (title, "-" * 50))
            for i, r in enumerate(rows, 1):
                f.write("Group %d: %s\n" % (i, r))
            f.write("Total groups: %d\n\n" % len(rows))
        f.write("FULL MODEL RANK GROUPS (by DP Rank)\n%s\nGroup 0: %s\n" % ("-" * 50, list(range(a.ranks))))


def write_rank(a, rank, path):
    cpu, gpu = schedule(a, rank)
    base_ns = 1_700_000_000_000_000_000 if a.time == "relative" else 0
    events = cpu + gpu
    # absolute: microseconds since the epoch; relative: from baseTimeNanoseconds
    for e in events:
        v = e["ts"] + 1.7e9 * 1e6 + rank * 0.125
        e["ts"] = float("%.3f" % (v - base_ns / 1000.0)) if a.time == "relative" else float("%.3f" % v)
    dist = {"backend": "nccl", "rank": rank, "world_size": a.ranks}
    if a.pg_config:
        pgs = [{"pg_name": "0", "pg_desc": "default_pg", "backend_config": "cuda:nccl", "pg_size": a.ranks,
                "ranks": list(range(a.ranks))}]
        for dim, (name, desc, ranks) in sorted(rank_groups(a, rank).items(), key=lambda x: int(x[1][0])):
            pgs.append({"pg_name": name, "pg_desc": desc, "backend_config": "cuda:nccl", "pg_size": len(ranks),
                        "ranks": ranks})
        dist["pg_count"] = len(pgs)
        dist["pg_config"] = pgs
    opener = gzip.open if a.gz else open
    pad_target = a.pad_mb * 1_000_000
    with opener(path, "wt") as f:
        f.write('{"schemaVersion": 1, ')
        if a.rank_source == "first":
            f.write('"distributedInfo": %s, ' % json.dumps(dist))
        f.write('"traceEvents": [\n')
        first = True
        written = 0
        for e in events:
            line = json.dumps(e)
            f.write(("" if first else ",\n") + line)
            written += len(line) + 2
            first = False
        pad = 0
        tmpl = ('{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": %d, "tid": %d, "ts": %.3f, "dur": 1.5, '
                '"args": {"External id": %d, "Input Dims": [[4096, 4096], [4096, 4096], []], '
                '"Input type": ["float", "float", "Scalar"]}}')
        while written < pad_target:
            chunk = []
            for _ in range(1000):
                chunk.append(tmpl % (1000 + rank, 1000 + rank, 1.7e15 + pad * 0.5, pad))
                pad += 1
            s = ",\n" + ",\n".join(chunk)
            f.write(s)
            written += len(s)
        f.write('\n]')
        if a.rank_source == "last":
            f.write(', "distributedInfo": %s' % json.dumps(dist))
        if a.time == "relative":
            f.write(', "baseTimeNanoseconds": %d' % base_ns)
        f.write(', "displayTimeUnit": "ms"}\n')


def write_bomb(a, rank, path):
    """--bomb N: N sub-microsecond kernels (each with its launch) over
    --steps steps, three streams, compute, NCCL and memcpy names, written
    in blocks of 1000 from the last block to the first (so the reader must
    sort them): a small gzip file of a great many kernels."""
    n, steps = a.bomb, max(a.steps, 1)
    t0 = 1_700_000_000_000_000.0 + rank * 0.125
    per_step = (n + steps - 1) // steps
    names = ("ampere_sgemm_128x64_tn", "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)",
             "Memcpy DtoD (Device -> Device)", "void at::native::vectorized_elementwise_kernel<4>")
    pid = 1000 + rank

    def start(i):   # 0.75 us apart, a gap of 20 us between steps; NCCL on its own stream overlaps
        return t0 + i * 0.75 + (i // per_step) * 20.0

    with (gzip.open(path, "wt", compresslevel=1) if a.gz else open(path, "w")) as f:
        f.write('{"schemaVersion": 1, "distributedInfo": {"rank": %d, "world_size": %d}, '
                '"displayTimeUnit": "ns", "traceEvents": [\n' % (rank, a.ranks))
        ev = []
        for s in range(steps):
            ev.append('{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d", "pid": %d, "tid": %d, '
                      '"ts": %.3f, "dur": %.3f}' % (s + 1, pid, pid, start(s * per_step) - 10.0,
                                                     per_step * 0.75 + 10.0))
        f.write(",\n".join(ev))
        for b in range((n + 999) // 1000 - 1, -1, -1):
            out = []
            for i in range(b * 1000, min(n, b * 1000 + 1000)):
                k = i % 4
                st = 7 if k != 1 else 20
                if k == 3:
                    st = 21
                ts = start(i)
                c = rank * 100_000_000 + i + 1
                out.append('{"ph": "X", "cat": "kernel", "name": "%s", "pid": %d, "tid": %d, "ts": %.3f, "dur": %s, '
                           '"args": {"stream": %d, "correlation": %d}}' % (names[k], rank, st, ts,
                                                                           "1.125" if k == 1 else "0.5", st, c))
                out.append('{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": %d, "tid": %d, '
                           '"ts": %.3f, "dur": 1.0, "args": {"correlation": %d}}' % (pid, pid, ts - 5.0, c))
            f.write(",\n" + ",\n".join(out))
        f.write("\n]}\n")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("out")
    p.add_argument("--ranks", type=int, default=4)
    p.add_argument("--steps", type=int, default=3)
    p.add_argument("--pp", type=int, default=2)
    p.add_argument("--micro", type=int, default=2)
    p.add_argument("--straggler", type=int, default=1)
    p.add_argument("--slow", type=float, default=1.6)
    p.add_argument("--gz", action="store_true")
    p.add_argument("--rank-source", choices=["first", "last", "absent", "name"], default="first")
    p.add_argument("--time", choices=["absolute", "relative"], default="absolute")
    p.add_argument("--layout", choices=["flat", "traceviz"], default="flat")
    p.add_argument("--pad-mb", type=float, default=0)
    p.add_argument("--no-steps", action="store_true")
    p.add_argument("--no-kernels", action="store_true")
    p.add_argument("--no-megatron", action="store_true")
    p.add_argument("--bomb", type=int, default=0)
    p.add_argument("--tp", type=int, default=1)
    p.add_argument("--ep", type=int, default=1)
    p.add_argument("--recompute", action="store_true")
    p.add_argument("--pg-config", action="store_true")
    p.add_argument("--pg-args", choices=["none", "name", "full"], default=None)
    p.add_argument("--listing", action="store_true")
    p.add_argument("--schedule", choices=["same", "1f1b"], default="same")
    p.add_argument("--link-us", type=float, default=30.0)
    p.add_argument("--p2p", action="store_true")
    p.add_argument("--vpp", type=int, default=1)
    a = p.parse_args()
    groups = a.tp > 1 or a.ep > 1 or a.pg_config or a.listing or a.pg_args not in (None, "none")
    if a.pg_args is None:
        a.pg_args = "full" if groups else "none"
    if a.vpp > 1 and (a.micro % a.pp or a.schedule != "1f1b"):
        p.error("--vpp needs --schedule 1f1b and --micro a multiple of --pp")
    if groups and (a.ranks % (a.pp * a.tp) or (a.ranks // (a.pp * a.tp)) % a.ep):
        p.error("--ranks must be a multiple of pp * tp, and the data-parallel size of ep")
    os.makedirs(a.out, exist_ok=True)
    if a.listing:
        write_listing(a)
    ext = ".json.gz" if a.gz else ".json"
    for r in range(a.ranks):
        if a.layout == "traceviz":
            d = os.path.join(a.out, "iteration_1")
            os.makedirs(d, exist_ok=True)
            name = os.path.join(d, "rank_%d_iter_1.pt.trace%s" % (r, ext))
        elif a.rank_source in ("first", "last", "name"):
            name = os.path.join(a.out, "rank_%d%s" % (r, ext))
        else:
            name = os.path.join(a.out, "worker%c%s" % (chr(ord("a") + r % 26), ext))
        if a.bomb:
            write_bomb(a, r, name)
        else:
            write_rank(a, r, name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
