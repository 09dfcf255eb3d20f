#!/usr/bin/env python3
"""Small msProbe-format dumps (one step folder, rankN/{dump,construct,stack}.json)
where a NaN is born on one rank and spreads through communication ops, for the
origin-rank tests and the bench (man/probetop.1, "Origin across ranks").

    gen_origin.py --out DIR SCENARIO      one scenario (see SCENARIOS below)
    gen_origin.py --out DIR --ranks N     the bench: N ranks in tensor-parallel
                                          pairs around a ring of all_reduce,
                                          send/recv and broadcast ops, a NaN born
                                          on rank N/2 + 1 midway
        [--layers L]                      L layers per pipeline stage (default 6;
                                          180 gives about 0.55 MB a rank)
    gen_origin.py --out DIR --ranks N --tp T [--pp P] [--born R,...] [--layers L]
                                          tensor/pipeline/data parallel ranks,
                                          uneven stages, NaNs born on ranks R

Each rank's program is a list of ops; compute ops are Functional/Tensor
calls, communication ops Distributed.* calls with their peers written the way
msProbe's dump records them (dst/src/group kwargs, or a positional int).
A tensor is clean (finite Max/Min) or bad (Max/Min NaN).
"""
import argparse
import json
import os
import sys

NAN = float("nan")


AS = "nan"   # what a "bad" tensor holds: nan, drift (statistics x4) or clean (the benchmark)


def tensor(bad, seed=0):
    if bad and AS == "drift":
        t = tensor(False, seed)
        for k in ("Max", "Min", "Mean", "Norm"):
            t[k] *= 4.0
        return t
    if bad and AS == "nan":
        return {"type": "torch.Tensor", "dtype": "torch.float32", "shape": [4, 8], "Max": NAN, "Min": NAN,
                "Mean": NAN, "Norm": NAN, "requires_grad": False}
    v = 1.0 + (seed % 7) * 0.25
    return {"type": "torch.Tensor", "dtype": "torch.float32", "shape": [4, 8], "Max": v, "Min": -v,
            "Mean": 0.01 * (seed % 5), "Norm": 3.0 * v, "requires_grad": False}


def scaled(seed, f):
    """A clean tensor whose statistics are f times the benchmark's in the
    problem run (--as drift), the benchmark's otherwise."""
    t = tensor(False, seed)
    if AS == "drift":
        for k in ("Max", "Min", "Mean", "Norm"):
            t[k] *= f
    return t


def group(ranks):
    return {"type": "torch.ProcessGroup", "group_ranks": list(ranks), "group_id": "g" + "_".join(map(str, ranks))}


def intv(v):
    return {"type": "int", "value": v}


class Rank:
    def __init__(self, rank):
        self.rank = rank
        self.data = {}
        self.count = {}

    def name(self, prefix, api):
        k = (prefix, api)
        n = self.count.get(k, 0)
        self.count[k] = n + 1
        return f"{prefix}.{api}.{n}.forward"

    def compute(self, in_bad=False, out_bad=False, api="linear", prefix="Functional"):
        s = len(self.data)
        self.data[self.name(prefix, api)] = {"input_args": [tensor(in_bad, s), tensor(False, s + 1)],
                                             "input_kwargs": {}, "output": [tensor(out_bad, s + 2)]}

    def comm(self, api, in_bad, out_bad, args=(), kwargs=None):
        s = len(self.data)
        self.data[self.name("Distributed", api)] = {
            "input_args": [tensor(in_bad, s)] + list(args), "input_kwargs": dict(kwargs or {}),
            "output": [tensor(out_bad, s)] + list(args)}

    # the communication ops
    def all_reduce(self, ranks, in_bad=False, out_bad=False):
        self.comm("all_reduce", in_bad, out_bad, kwargs={"group": group(ranks)})

    def send(self, dst, bad=False):
        self.comm("send", bad, bad, kwargs={"dst": intv(dst)})

    def recv(self, src, bad=False):
        self.comm("recv", False, bad, kwargs={"src": intv(src)})

    def broadcast(self, src, ranks, in_bad=False, out_bad=False):
        self.comm("broadcast", in_bad, out_bad, args=[intv(src)], kwargs={"group": group(ranks)})

    def scatter(self, src, ranks, in_bad=False, out_bad=False):
        self.comm("scatter", in_bad, out_bad, kwargs={"src": intv(src), "group": group(ranks)})

    def gather(self, dst, ranks, in_bad=False, out_bad=False):
        self.comm("gather", in_bad, out_bad, kwargs={"dst": intv(dst), "group": group(ranks)})

    def warn_only(self):
        """Input 12% off, output 150% off: msProbe's W1 warning (not E2: the
        input is off by more than 10%), an output relative error above 50%."""
        s = len(self.data)
        self.data[self.name("Functional", "linear")] = {"input_args": [scaled(s, 1.12), tensor(False, s + 1)],
                                                         "input_kwargs": {}, "output": [scaled(s + 2, 2.5)]}

    def clean(self, n, api="linear"):
        for _ in range(n):
            self.compute(api=api)

    def born(self):
        """The op where the NaN is born: clean inputs, NaN output."""
        self.compute(False, True, api="gelu")

    def passing(self, n):
        for _ in range(n):
            self.compute(True, True, api="add", prefix="Tensor")


def write(out, ranks):
    for r in ranks:
        d = os.path.join(out, f"rank{r.rank}")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "dump.json"), "w") as f:
            json.dump({"task": "statistics", "level": "L1", "framework": "pytorch", "dump_data_dir": None,
                       "data": r.data}, f, indent=1)
        for fn in ("construct.json", "stack.json"):
            with open(os.path.join(d, fn), "w") as f:
                f.write("{}")


# ---- scenarios: one per rule ----

def sc_compute(R):
    """Born on rank 1 before any communication: the first op with clean inputs
    and a NaN output, not the ops after it that pass the NaN on."""
    a, b = R(0), R(1)
    a.clean(3)
    b.clean(2); b.born(); b.passing(2)
    for r in (a, b):
        r.all_reduce([0, 1], in_bad=r is b, out_bad=True)
        r.passing(1)
    return [a, b]


def sc_p2p(R):
    """A pipeline: rank 0 sends to rank 1 twice.  The NaN is born on rank 0
    after the first send; rank 1 receives it with the second recv, at an
    earlier position of its own dump than the birth on rank 0."""
    a, b = R(0), R(1)
    a.clean(6); a.send(1)
    a.clean(4); a.born(); a.passing(1); a.send(1, bad=True)
    b.recv(0); b.clean(2); b.recv(0, bad=True); b.passing(3)
    return [a, b]


def sc_allreduce(R):
    """Four data-parallel ranks: a clean all_reduce, then the NaN is born on
    rank 2 and every rank gets it from the second all_reduce."""
    rs = [R(i) for i in range(4)]
    for r in rs:
        r.clean(2)
        r.all_reduce([0, 1, 2, 3])
        if r.rank == 2:
            r.clean(1); r.born(); r.passing(1)
        else:
            r.clean(3)
        r.all_reduce([0, 1, 2, 3], in_bad=r.rank == 2, out_bad=True)
        r.passing(2)
    return rs


def sc_broadcast(R):
    """Rank 2 broadcasts to ranks 0..3 (root given as a positional int); the
    NaN is born on rank 2 after a clean all_reduce."""
    rs = [R(i) for i in range(4)]
    for r in rs:
        r.clean(1)
        r.all_reduce([0, 1, 2, 3])
        if r.rank == 2:
            r.clean(2); r.born()
        else:
            r.clean(1)
        r.broadcast(2, [0, 1, 2, 3], in_bad=r.rank == 2, out_bad=True)
        r.passing(1)
    return rs


def sc_scatter(R):
    """Rank 1 scatters to ranks 0..2 (src kwarg); the NaN is born on rank 1."""
    rs = [R(i) for i in range(3)]
    for r in rs:
        r.all_reduce([0, 1, 2])
        if r.rank == 1:
            r.clean(1); r.born()
        r.scatter(1, [0, 1, 2], in_bad=r.rank == 1, out_bad=True)
        r.passing(2)
    return rs


def sc_gather(R):
    """Ranks 0..2 gather to rank 0 (dst kwarg); the NaN is born on rank 2, so
    the root's output is NaN while its own input was clean."""
    rs = [R(i) for i in range(3)]
    for r in rs:
        r.all_reduce([0, 1, 2])
        r.clean(2)
        if r.rank == 2:
            r.born()
        else:
            r.clean(1)
        r.gather(0, [0, 1, 2], in_bad=r.rank == 2, out_bad=r.rank == 0)
        if r.rank == 0:
            r.passing(1)
    return rs


def sc_commborn(R):
    """Born inside a collective: every input clean, every output NaN (an
    overflow in the reduction itself); ranks 0..3, the ops after pass it on."""
    rs = [R(i) for i in range(4)]
    for r in rs:
        r.clean(1)
        r.all_reduce([0, 1, 2, 3])
        r.clean(2 + r.rank)
        r.all_reduce([0, 1, 2, 3], out_bad=True)
        r.passing(1)
    return rs


def sc_after(R):
    """Born on rank 1 after its last communication op (the others clean)."""
    rs = [R(i) for i in range(3)]
    for r in rs:
        r.clean(1)
        r.all_reduce([0, 1, 2])
        r.clean(2)
        if r.rank == 1:
            r.born(); r.passing(1)
    return rs


def sc_warn(R):
    """Rank 0 has a warning-only divergence (a 150% output error) before any
    communication; the error-level divergence is born on rank 1 and reaches
    rank 0 through an all_reduce.  The first divergence is an error, so the
    origin is rank 1's, not rank 0's warning."""
    a, b = R(0), R(1)
    a.clean(1); a.warn_only(); a.clean(1)
    b.clean(2); b.born()
    for r in (a, b):
        r.all_reduce([0, 1], in_bad=r is b, out_bad=True)
        r.passing(1)
    return [a, b]


SCENARIOS = {"compute": sc_compute, "p2p": sc_p2p, "allreduce": sc_allreduce, "broadcast": sc_broadcast,
             "scatter": sc_scatter, "gather": sc_gather, "commborn": sc_commborn, "after": sc_after,
             "warn": sc_warn}


def ring(n, layers=6):
    """The bench: tensor-parallel pairs (all_reduce within the pair), the pairs
    chained as pipeline stages by send/recv, a broadcast from rank 0 to all at
    the start; the NaN is born on rank n/2 (the first of its pair) in layer
    layers/2 and then carried to its partner and down the pipeline."""
    rs = [Rank(i) for i in range(n)]
    everyone = list(range(n))
    born_rank = (n // 2) & ~1
    for r in rs:
        r.clean(2)
        r.broadcast(0, everyone)
    bad = [False] * n
    for stage in range(0, n, 2):
        pair = [stage, stage + 1] if stage + 1 < n else [stage]
        for i in pair:
            if stage > 0:
                rs[i].recv(i - 2, bad=bad[i - 2])
                bad[i] = bad[i - 2]
        for layer in range(layers):
            for i in pair:
                r = rs[i]
                if bad[i]:
                    r.passing(3)
                elif i == born_rank and layer == layers // 2:
                    r.clean(1); r.born(); r.passing(1)
                    bad[i] = True
                else:
                    r.clean(3)
            spread = any(bad[p] for p in pair)
            for i in pair:
                rs[i].all_reduce(pair, in_bad=bad[i], out_bad=spread)
            for i in pair:
                bad[i] = spread
        for i in pair:
            if i + 2 < n:
                rs[i].send(i + 2, bad=bad[i])
    return rs


def mix(n, tp, pp, born, layers=6):
    """Tensor, pipeline and data parallel ranks (rank = (replica * pp + stage)
    * tp + t): a broadcast from rank 0 to all, then per stage a recv from the
    stage before, `layers` + stage % 3 layers (uneven stages) each ending in
    an all_reduce over the tensor-parallel group, a send to the next stage;
    at the end an all_reduce of each data-parallel group (ranks of the same
    stage and t) with no group named when there is one replica only.  A NaN
    is born on each rank of `born` in its middle layer."""
    rs = [Rank(i) for i in range(n)]
    dp = max(1, n // (tp * pp))
    everyone = list(range(n))
    bad = [False] * n
    for r in rs:
        r.clean(1)
        r.broadcast(0, everyone)
    for d in range(dp):
        for stage in range(pp):
            grp = [(d * pp + stage) * tp + t for t in range(tp)]
            grp = [i for i in grp if i < n]
            for i in grp:
                if stage > 0:
                    rs[i].recv(i - tp, bad=bad[i - tp])
                    bad[i] = bad[i - tp]
            nl = layers + stage % 3
            for layer in range(nl):
                for i in grp:
                    if bad[i]:
                        rs[i].passing(2)
                    elif i in born and layer == nl // 2:
                        rs[i].clean(1); rs[i].born()
                        bad[i] = True
                    else:
                        rs[i].clean(2)
                spread = any(bad[i] for i in grp)
                for i in grp:
                    rs[i].all_reduce(grp, in_bad=bad[i], out_bad=spread)
                for i in grp:
                    bad[i] = spread
            for i in grp:
                if stage + 1 < pp and i + tp < n:
                    rs[i].send(i + tp, bad=bad[i])
    for i in range(n):
        group_ = [j for j in range(i % (tp * pp), n, tp * pp)]
        spread = any(bad[j] for j in group_)
        if dp == 1:
            rs[i].comm("all_reduce", bad[i], spread)
        else:
            rs[i].all_reduce(group_, in_bad=bad[i], out_bad=spread)
    return rs


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--ranks", type=int, default=0)
    ap.add_argument("--layers", type=int, default=6)
    ap.add_argument("--tp", type=int, default=0, help="with --ranks: tensor/pipeline/data parallel layout "
                    "(--tp T --pp P --born R[,R...]) instead of the ring")
    ap.add_argument("--pp", type=int, default=1)
    ap.add_argument("--born", default="")
    ap.add_argument("--as", dest="as_", choices=("nan", "drift", "clean"), default="nan",
                    help="what the anomalous tensors hold: NaN (default), statistics x4 (a problem run "
                         "for compare), or nothing wrong (its benchmark)")
    ap.add_argument("scenario", nargs="?", choices=sorted(SCENARIOS))
    a = ap.parse_args()
    global AS
    AS = a.as_
    if a.ranks and a.tp:
        born = {int(x) for x in a.born.split(",") if x}
        write(a.out, mix(a.ranks, a.tp, a.pp, born, a.layers))
    elif a.ranks:
        write(a.out, ring(a.ranks, a.layers))
    elif a.scenario:
        write(a.out, SCENARIOS[a.scenario](Rank))
    else:
        ap.error("a SCENARIO or --ranks N")
    return 0


if __name__ == "__main__":
    sys.exit(main())
