#!/usr/bin/env python3
# probetop's own test-data generator (written for this project, kept with its tests):
# the msProbe-shaped dumps and monitor trees the tests and benchmarks run on.
"""gen_dump.py - synthetic msprobe (MindStudio Probe) data generator (standard library only).

Writes data laid out exactly like msprobe's PyTorch "statistics" dumps, or like its
training-monitor CSV output, for a Megatron-core style GPT model (DDP -> Float16Module ->
GPTModel, RMSNorm, SelfAttention with npu_fusion_attention, SwiGLU MLP, tensor parallel).

DUMP MODE (default)
  gen_dump.py --out DIR [--steps 2] [--ranks 1] [--layers 4] [--level mix|L0|L1] [--seed 0]
              [--micro-batches 1] [--tp 1] [--hidden 4096] [--heads 32] [--ffn 11008]
              [--seq 4096] [--vocab 32000] [--jobs 2]
              [--nan STEP:RANK:SUBSTRING[:nan|inf|mixed]]...  [--drift FACTOR:SUBSTRING]...
  ->  DIR/step{S}/rank{R}/dump.json, construct.json, stack.json   (json written with indent=1
      like msprobe; NaN/inf statistics appear as the bare tokens NaN / Infinity / -Infinity,
      exactly what Python's json.dump writes for the float stats msprobe collects)
  level  L0  : Module.*.forward/backward entries + Module.*.parameters_grad.K; construct = modules
         L1  : API entries only (Functional/Tensor/Torch/NPU/Distributed); construct.json is {}
         mix : both; construct.json maps every API and module to its parent (null for roots)

MONITOR MODE
  gen_dump.py --monitor --out DIR [--steps N] [--ranks N] [--layers N] [--seed S]
              [--micro-batches M] [--monitor-ops norm,min,max,mean,nans,zeros] [...same model opts]
  ->  DIR/{Mon}{DD}_{HH}-{MM}-{SS}-rank{R}-{8 hex}/{metric}_{S}-{S}.csv  for metric in
      actv, actv_grad (columns vpp_stage,name,step,micro_step,<ops>,shape,dtype) and
      grad_unreduced, grad_reduced, param_origin, param_updated, exp_avg, exp_avg_sq
      (columns vpp_stage,name,step,<ops>,shape,dtype), values rounded to 6 digits, missing
      values written as nan - the layout of msprobe.pytorch.monitor's CSVWriterWithAD.

MONITOR V2 MODE
  gen_dump.py --monitor-v2 --out DIR [--steps N] [--ranks N] [...same model opts]
  ->  DIR/rank_{R}/{slug}_step{S}-{S}.csv for slug in module, weight_grad, optimizer, param: the layout
      of msprobe.core.monitor_v2's CSVWriterV2 (columns vpp_stage,step,module_name,scope[,micro_step],
      min,max,mean,norm,nans; floats as Python repr, nan/inf spelled nan/inf). module rows: tags
      "<module>.input.<i>"/"<module>.output.<i>" (scope forward) and "<module>.grad_input.<i>"/
      "<module>.grad_output.<i>" (scope backward), one set per micro-batch in call order; weight_grad:
      parameter names, scope unreduced/reduced, micro_step = micro-batches per step; optimizer:
      "<param>.exp_avg"/"<param>.exp_avg_sq" with that scope; param: scope param_origin/param_updated.

PIPELINE PARALLEL (dump mode)
  --pp P splits the ranks into P pipeline stages in Megatron's order tp-dp-pp (rank = tp_rank +
  tp*dp_rank + tp*dp*pp_rank) and the --layers into P equal parts, named with local indices
  (layers.0 .. layers.L/P-1 on every stage, as Megatron names them); --pp-layers N0,N1,... gives
  uneven stages. Stage 0 runs the embedding,
  the last stage the final norm, output layer and loss; between stages each micro-batch passes its
  hidden state with Distributed.send (kwargs dst) / Distributed.recv (kwargs src), and the gradient
  back the same way before and after the backward pass. As msProbe records communication ops, the
  output of send/recv is the call's arguments after the call (the tensor, then the peer rank), so
  a recv's output holds what arrived. A --nan planted on one stage reaches the later stages of the
  same pipeline through recv (forward) and every stage of that pipeline through the gradient
  (backward), so a later stage sees the NaN at an earlier position of its own dump than the stage
  where it was born. --pp works with --tp; NaNs still do not spread through all_reduce.

ANOMALIES (all modes)
  --nan STEP:RANK:SUBSTRING[:KIND]  on that step/rank, in every micro-batch, the first op whose dump
        name (or an enclosing module's name) contains SUBSTRING gets non-finite outputs; KIND nan
        (default: Max/Min/Mean/Norm all NaN), inf (Max, Mean, Norm = Infinity), mixed (Max=Infinity,
        Min=-Infinity, Mean=NaN, Norm=Infinity). Every op consuming a non-finite tensor then outputs
        NaN (identity ops such as view keep the kind), and all backward / parameters_grad data of
        that micro-batch are NaN, as when the loss is NaN. Parameters and other ranks stay finite
        (no spreading through all_reduce). Repeatable. Monitor mode uses the same simulation:
        affected actv/actv_grad/grad/exp_avg rows hold nan with nans = element count.
  --drift FACTOR:SUBSTRING  every tensor produced by a matching op (forward outputs, backward
        grads, parameter grads) has Max/Min/Mean/Norm multiplied by FACTOR, in all steps/ranks, once
        (no compounding inside nested matches). Consumers outside the match see the scaled tensor as
        their input but compute from the unscaled value. With the same --seed everything else is
        identical, so two runs with/without --drift give a "benchmark vs problem" pair that diverges
        only there. Repeatable.
  SUBSTRING is matched against full dump names, e.g. "layers.3." , "layers.3.mlp", "npu_rms_norm".

VALUES
  Statistics are synthetic but consistent: a tensor passed from one op to the next (and a module's
  input/output vs. its first/last inner API) carries identical stats; bf16/fp32 stats are rounded to
  the dtype as torch would produce them; bool tensors have Max/Min true/false and Mean/Norm null,
  int64 tensors integer Max/Min and null Mean/Norm, 0-dim tensors Max=Min=Mean=Norm. Output is
  deterministic for a given command line (independent of --jobs).

EXAMPLES
  gen_dump.py --out out/bench --steps 2 --ranks 2 --layers 4 --tp 2
  gen_dump.py --out out/npu   --steps 2 --ranks 2 --layers 4 --tp 2 --drift 1.5:layers.2.mlp \
              --nan 1:0:layers.3.self_attention
  gen_dump.py --out out/big --steps 8 --ranks 8 --layers 48 --micro-batches 5 --tp 2 --seed 1
              (~960 MB of dump.json, ~30 s with 2 jobs)
  gen_dump.py --monitor --out out/mon --steps 4 --ranks 2 --layers 4 --micro-batches 2
"""

import argparse
import json
import math
import os
import random
import struct
import sys
import time
import zlib
from collections import defaultdict
from multiprocessing import Pool

# --------------------------------------------------------------------------- numeric helpers
_F32 = struct.Struct("<f")
_U32 = struct.Struct("<I")
INF = float("inf")
NAN = float("nan")

BF16 = "torch.bfloat16"
F32 = "torch.float32"
F16 = "torch.float16"
I64 = "torch.int64"
BOOL = "torch.bool"
FLOAT_DTYPES = (BF16, F32, F16)


def round_f32(x):
    try:
        return _F32.unpack(_F32.pack(x))[0]
    except OverflowError:
        return math.copysign(INF, x)


def round_bf16(x):
    if x != x or x in (INF, -INF):
        return x
    try:
        b = _U32.unpack(_F32.pack(x))[0]
    except OverflowError:
        return math.copysign(INF, x)
    b = (b + 0x7FFF + ((b >> 16) & 1)) & 0xFFFF0000
    return _F32.unpack(_U32.pack(b))[0]


def round_f16(x):
    if x != x or x in (INF, -INF):
        return x
    try:
        return struct.unpack("<e", struct.pack("<e", x))[0]
    except (OverflowError, struct.error):
        return math.copysign(INF, x)


ROUNDERS = {BF16: round_bf16, F32: round_f32, F16: round_f16}


def numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


# --------------------------------------------------------------------------- tensors
class T:
    """A simulated tensor: baseline statistics drive the data flow; `scale` (drift) and
    `bad` (nan/inf) only change what is written."""

    __slots__ = ("dtype", "shape", "mu", "sigma", "tail", "j1", "j2", "rg", "fixed", "scale", "bad", "grad", "lo", "hi")

    def __init__(self, dtype, shape, mu=0.0, sigma=1.0, tail=1.0, j=0.5, rg=True, fixed=None):
        self.dtype = dtype
        self.shape = list(shape)
        self.mu = mu
        self.sigma = sigma
        self.tail = tail
        self.j1 = 0.12 * (j - 0.5)
        self.j2 = 0.12 * (((j * 7.31) % 1.0) - 0.5)
        self.rg = rg
        self.fixed = fixed  # (Max, Min, Mean, Norm) for int/bool/empty tensors
        self.scale = 1.0
        self.bad = None
        self.grad = None
        self.lo = None  # value range of the op (e.g. exp >= 0, silu >= -0.2785)
        self.hi = None

    @property
    def is_float(self):
        return self.dtype in FLOAT_DTYPES and self.fixed is None

    def stats(self, raw=False):
        """(Max, Min, Mean, Norm) as msprobe writes them (rounded to the dtype unless raw)."""
        if self.fixed is not None:
            return self.fixed
        if self.bad == "nan":
            return (NAN, NAN, NAN, NAN)
        n = numel(self.shape)
        mu, sg, s = self.mu, self.sigma, self.scale
        if n <= 1:
            v = mu * s
            mx = mn = mean = v
            norm = abs(v)
        else:
            z = self.tail * math.sqrt(2.0 * math.log(n))
            mx = (mu + sg * z * (1.0 + self.j1)) * s
            mn = (mu - sg * z * (1.0 + self.j2)) * s
            mean = mu * s
            if self.lo is not None and mn < self.lo * s:
                mn = self.lo * s * (1.0 + 0.5 * abs(self.j2)) if self.lo > 0 else self.lo * s * (1.0 - abs(self.j2))
            if self.hi is not None and mx > self.hi * s:
                mx = self.hi * s
            norm = math.sqrt(n * (sg * sg + mu * mu)) * abs(s)
            if s < 0:
                mx, mn = mn, mx
        if self.bad == "inf":
            mx, mean, norm = INF, INF, INF
        elif self.bad == "mixed":
            mx, mn, mean, norm = INF, -INF, NAN, INF
        if raw:
            return (mx, mn, mean, norm)
        r = ROUNDERS[self.dtype]
        return (r(mx), r(mn), r(mean), r(norm))

    def to_json(self):
        mx, mn, mean, norm = self.stats()
        return {
            "type": "torch.Tensor",
            "dtype": self.dtype,
            "shape": self.shape,
            "Max": mx,
            "Min": mn,
            "Mean": mean,
            "Norm": norm,
            "requires_grad": self.rg,
        }


def clamp(t, lo=None, hi=None):
    t.lo, t.hi = lo, hi
    return t


def enc(x):
    """Encode an argument the way msprobe does for statistics dumps."""
    if x is None:
        return None
    if isinstance(x, T):
        return x.to_json()
    if isinstance(x, dict):
        return x
    if isinstance(x, (list, tuple)):
        return [enc(i) for i in x]
    if isinstance(x, bool):
        return {"type": "bool", "value": x}
    if isinstance(x, int):
        return {"type": "int", "value": x}
    if isinstance(x, float):
        return {"type": "float", "value": x}
    if isinstance(x, str):
        return {"type": "str", "value": x}
    return {"type": type(x).__name__, "value": str(x)}


def is_grad_tensor(x):
    return isinstance(x, T) and x.rg and x.is_float


# --------------------------------------------------------------------------- graph nodes
class Node:
    __slots__ = ("kind", "fname", "bname", "parent", "children", "args", "kwargs", "outs", "params",
                 "site", "drift", "pg_index", "modname", "cls")

    def __init__(self, kind, fname, bname, parent, site, drift):
        self.kind = kind
        self.fname = fname
        self.bname = bname
        self.parent = parent
        self.children = []
        self.args = []
        self.kwargs = {}
        self.outs = []
        self.params = {}
        self.site = site
        self.drift = drift
        self.pg_index = None
        self.modname = None
        self.cls = None


# --------------------------------------------------------------------------- synthetic call stacks
_TRAIN = [
    ("/home/ma-user/Megatron-LM/pretrain_gpt.py", 253, "<module>", "pretrain("),
    ("/home/ma-user/Megatron-LM/megatron/training/training.py", 296, "pretrain",
     "iteration, num_floating_point_operations_so_far = train("),
    ("/home/ma-user/Megatron-LM/megatron/training/training.py", 1079, "train",
     "train_step(forward_step_func,"),
    ("/home/ma-user/Megatron-LM/megatron/training/training.py", 581, "train_step",
     "losses_reduced = forward_backward_func("),
    ("/home/ma-user/Megatron-LM/megatron/core/pipeline_parallel/schedules.py", 442,
     "forward_backward_no_pipelining", "output_tensor, num_tokens = forward_step("),
    ("/home/ma-user/Megatron-LM/megatron/core/pipeline_parallel/schedules.py", 264, "forward_step",
     "output_tensor, loss_func = forward_step_func(data_iterator, model)"),
    ("/home/ma-user/Megatron-LM/pretrain_gpt.py", 186, "forward_step",
     "output_tensor = model(tokens, position_ids, attention_mask,"),
]
_TORCH_CALL = [
    ("/usr/local/lib/python3.10/site-packages/torch/nn/modules/module.py", 1747, "_call_impl",
     "return forward_call(*args, **kwargs)"),
    ("/usr/local/lib/python3.10/site-packages/torch/nn/modules/module.py", 1736, "_wrapped_call_impl",
     "return self._call_impl(*args, **kwargs)"),
]
_HOOK = ("/usr/local/lib/python3.10/site-packages/torch/nn/modules/module.py", 1790, "inner",
         "hook_result = hook(self, args, kwargs, result)")
_API_REG = ("/usr/local/lib/python3.10/site-packages/msprobe/core/dump/api_dump/api_registry.py", 95,
            "api_function", "return api_instance(*args, **kwargs)")
_SITE_FILES = {
    "model": "/home/ma-user/Megatron-LM/megatron/core/models/gpt/gpt_model.py",
    "embedding": "/home/ma-user/Megatron-LM/megatron/core/models/common/embeddings/language_model_embedding.py",
    "rotary": "/home/ma-user/Megatron-LM/megatron/core/models/common/embeddings/rotary_pos_embedding.py",
    "block": "/home/ma-user/Megatron-LM/megatron/core/transformer/transformer_block.py",
    "layer": "/home/ma-user/Megatron-LM/megatron/core/transformer/transformer_layer.py",
    "attention": "/home/ma-user/Megatron-LM/megatron/core/transformer/attention.py",
    "dot": "/home/ma-user/MindSpeed/mindspeed/core/transformer/dot_product_attention.py",
    "mlp": "/home/ma-user/Megatron-LM/megatron/core/transformer/mlp.py",
    "norm": "/home/ma-user/MindSpeed/mindspeed/core/fusions/fused_rms_norm.py",
    "tp": "/home/ma-user/Megatron-LM/megatron/core/tensor_parallel/layers.py",
    "mappings": "/home/ma-user/Megatron-LM/megatron/core/tensor_parallel/mappings.py",
    "xent": "/home/ma-user/Megatron-LM/megatron/core/tensor_parallel/cross_entropy.py",
    "fp16": "/home/ma-user/Megatron-LM/megatron/core/transformer/module.py",
    "loss": "/home/ma-user/Megatron-LM/pretrain_gpt.py",
}


def _frame(path, line, func, src):
    return f"File {path}, line {line}, in {func}, \n {src}"


_CLASS_AREA = {
    "Float16Module": "fp16", "GPTModel": "model", "TransformerBlock": "block", "TransformerLayer": "layer",
    "SelfAttention": "attention", "DotProductAttention": "dot", "MLP": "mlp", "RMSNorm": "norm",
    "ColumnParallelLinear": "tp", "RowParallelLinear": "tp", "VocabParallelEmbedding": "tp",
    "LanguageModelEmbedding": "embedding", "RotaryEmbedding": "rotary", "Dropout": "dropout",
}
_SITE_FILES["dropout"] = "/usr/local/lib/python3.10/site-packages/torch/nn/modules/dropout.py"


class StackBook:
    """stack.json: {"<i>": [[names sharing one call stack], [frames, innermost first]]}."""

    def __init__(self):
        self.groups = {}  # tuple(frames) -> [names]
        self.cache = {}

    def _stack(self, site, is_module, encl):
        """encl: ((cls, modname), ...) of the enclosing modules, outermost first."""
        key = (site, is_module, encl)
        st = self.cache.get(key)
        if st is not None:
            return st
        area, _, what = site.partition(":")
        op = what.split(".")[0] or "op"
        frames = []
        rest = list(encl)
        if is_module:
            frames.append(_frame(*_HOOK))
            frames += [_frame(*f) for f in _TORCH_CALL]
        else:
            frames.append(_frame(*_API_REG))
        child_attr = op
        for cls, modname in reversed(rest):
            path = _SITE_FILES.get(_CLASS_AREA.get(cls, "model"), _SITE_FILES["model"])
            line = 50 + zlib.crc32(f"{cls}:{child_attr}".encode()) % 500
            if not is_module and child_attr == op and frames[-1].startswith("File " + _API_REG[0]):
                frames.append(_frame(path, line, "forward", f"output = {op}(...)"))
            else:
                frames.append(_frame(path, line, "forward", f"output = self.{child_attr}(...)"))
            frames += [_frame(*f) for f in _TORCH_CALL]
            last = modname.rsplit(".", 1)[-1]
            child_attr = "module" if last == "module" else (last if not last.isdigit() else "layer")
        if encl:
            frames.append(_frame(_TRAIN[6][0], _TRAIN[6][1], _TRAIN[6][2], _TRAIN[6][3]))
            tail = list(reversed(_TRAIN[:6]))
        else:  # code outside the model (loss_func in the training script)
            frames.append(_frame(_SITE_FILES["loss"], 150, "loss_func", f"loss = {op}(...)"))
            tail = [("/home/ma-user/Megatron-LM/megatron/core/pipeline_parallel/schedules.py", 290,
                     "forward_step", "outputs = loss_func(output_tensor)")] + list(reversed(_TRAIN[:5]))
        st = tuple(frames + [_frame(*f) for f in tail])
        self.cache[key] = st
        return st

    def add(self, name, site, is_module, classes):
        st = self._stack(site, is_module, classes)
        lst = self.groups.get(st)
        if lst is None:
            self.groups[st] = [name]
        else:
            lst.append(name)

    def to_json(self):
        return {str(i): [names, list(st)] for i, (st, names) in enumerate(self.groups.items())}


# --------------------------------------------------------------------------- the simulator
class Sim:
    """Runs one step on one rank of a GPT model and records msprobe-style entries."""

    def __init__(self, cfg, step, rank):
        self.cfg = cfg
        self.step = step
        self.rank = rank
        self.tp = cfg.tp
        self.tp_rank = rank % cfg.tp
        self.pp = cfg.pp
        self.dp = cfg.ranks // (cfg.tp * cfg.pp)
        self.dp_rank = (rank // cfg.tp) % self.dp
        self.pp_rank = rank // (cfg.tp * self.dp)
        stride = cfg.tp * self.dp
        self.prev_rank = rank - stride if self.pp_rank > 0 else None
        self.next_rank = rank + stride if self.pp_rank < self.pp - 1 else None
        same_pipe = lambda rk: rk % stride == rank % stride
        stage_of = lambda rk: rk // stride
        self.nan_upstream = any(st == step and same_pipe(rk) and stage_of(rk) < self.pp_rank for (st, rk, _, _) in cfg.nans)
        self.nan_downstream = any(st == step and same_pipe(rk) and stage_of(rk) > self.pp_rank for (st, rk, _, _) in cfg.nans)
        self.rng = random.Random(f"{cfg.seed}:act:{step}:{rank}")
        self.api_count = defaultdict(int)
        self.mod_count = defaultdict(int)
        self.stack = []  # module nodes
        self.roots = []  # top-level nodes of the current micro-batch (forward order)
        self.order = []  # forward entries of the current micro-batch, post-order
        self.data = {}
        self.construct = {}
        self.stacks = StackBook()
        self.params = {}
        self.pg_calls = defaultdict(int)
        self.nan_specs = [(s, k) for (st, rk, s, k) in cfg.nans if st == step and rk == rank]
        self.nan_fired_mb = False
        self.mb_bad = False
        self.level = cfg.level
        self.want_api = self.level in ("L1", "mix")
        self.want_mod = self.level in ("L0", "mix")
        self.tp_group = [self.pp_rank * stride + self.dp_rank * self.tp + i for i in range(self.tp)]
        self.tp_group_json = {
            "type": "torch.ProcessGroup",
            "group_ranks": self.tp_group,
            "group_id": f"{zlib.crc32(str(self.tp_group).encode('utf-8')):08x}",
        }
        # monitor mode bookkeeping
        self.mon_actv = []  # (name, micro_step, [tensors in], [tensors out])
        self.mon_actv_grad = []
        self.mb = 0

    # ---------------- random helpers
    def u(self):
        return self.rng.random()

    def noise(self, amp=0.05):
        return 1.0 + amp * (2.0 * self.rng.random() - 1.0)

    def act(self, shape, sigma, mu=None, dtype=BF16, tail=None, rg=True):
        j = self.rng.random()
        if mu is None:
            mu = sigma * 0.02 * (2.0 * self.rng.random() - 1.0)
        else:
            mu = mu * (1.0 + 0.02 * (2.0 * self.rng.random() - 1.0))
        if tail is None:
            tail = 1.0 + 1.5 * self.rng.random()
        else:
            self.rng.random()
        return T(dtype, shape, mu=mu, sigma=sigma, tail=tail, j=j, rg=rg)

    @staticmethod
    def same(x, shape=None, dtype=None, rg=None):
        """Identity-like op output (view/transpose/contiguous/float): identical statistics."""
        t = T(dtype or x.dtype, shape if shape is not None else x.shape, x.mu, x.sigma, x.tail, 0.5,
              x.rg if rg is None else rg, fixed=x.fixed)
        t.j1, t.j2, t.scale, t.bad, t.lo, t.hi = x.j1, x.j2, x.scale, x.bad, x.lo, x.hi
        return t

    def like(self, x, sigma_mult=1.0, mu=None, dtype=None, shape=None):
        return self.act(shape if shape is not None else x.shape, x.sigma * sigma_mult * self.noise(0.03),
                        mu=mu, dtype=dtype or x.dtype, rg=x.rg)

    def param(self, modname, pname, shape, std, mean=0.0, dtype=BF16):
        key = (modname, pname)
        p = self.params.get(key)
        if p is None:
            r = random.Random(f"{self.cfg.seed}:param:{modname}.{pname}:{self.tp_rank}")
            evol = 1.0 + 0.004 * self.step * (2.0 * r.random() - 1.0) + 0.001 * self.step
            sg = std * (0.9 + 0.2 * r.random()) * evol
            mu = mean + sg * 0.01 * (2.0 * r.random() - 1.0)
            p = T(dtype, shape, mu=mu, sigma=sg, tail=1.0 + 0.3 * r.random(), j=r.random(), rg=True)
            self.params[key] = p
        return p

    # ---------------- scope helpers
    def _drift_for(self, names):
        """Product of the --drift factors whose substring occurs in the node's own name or in the
        name of an enclosing module (each factor counted once)."""
        f = 1.0
        for fac, sub in self.cfg.drifts:
            if any(sub in n for n in names):
                f *= fac
        return f

    def _nan_kind(self, names):
        if self.nan_fired_mb or not self.nan_specs:
            return None
        for sub, kind in self.nan_specs:
            for n in names:
                if sub in n:
                    return kind
        return None

    # ---------------- modules
    def enter(self, modname, cls, args, kwargs=None, params=None, site=""):
        idx = self.mod_count[(modname, cls)]
        self.mod_count[(modname, cls)] += 1
        base = f"Module.{modname}.{cls}."
        parent = self.stack[-1] if self.stack else None
        drift = self._drift_for([base + f"forward.{idx}"] + [m.fname for m in self.stack])
        n = Node("module", f"{base}forward.{idx}", f"{base}backward.{idx}", parent, site, drift)
        n.args = list(args)
        n.kwargs = kwargs or {}
        n.params = params or {}
        n.modname = modname
        n.cls = cls
        if parent:
            parent.children.append(n)
        else:
            self.roots.append(n)
        self.stack.append(n)
        if self.want_mod:
            self.construct[n.fname] = parent.fname if parent else None
        return n

    def exit(self, n, outs):
        popped = self.stack.pop()
        assert popped is n
        n.outs = list(outs)
        self.order.append(n)
        if self.want_mod:
            self.stacks.add(n.fname, n.site or n.fname, True, tuple((m.cls, m.modname) for m in self.stack))
        if self.cfg.monitor:
            ins = [a for a in n.args if isinstance(a, T)] + [v for v in n.kwargs.values() if isinstance(v, T)]
            self.mon_actv.append((n.modname, self.mb, ins, list(outs), n))
        return outs

    # ---------------- APIs
    def api(self, prefix, op, args, kwargs, make_outs, site=""):
        """make_outs(args) -> list of outputs computed from baseline statistics."""
        key = f"{prefix}.{op}"
        idx = self.api_count[key]
        self.api_count[key] += 1
        parent = self.stack[-1] if self.stack else None
        fname = f"{key}.{idx}.forward"
        drift = self._drift_for([fname] + [m.fname for m in self.stack])
        n = Node("api", fname, f"{key}.{idx}.backward", parent, site or f"{op}", drift)
        n.args = list(args)
        n.kwargs = kwargs or {}
        outs = make_outs()
        # anomalies: non-finite propagation, then planting
        in_bad = any(isinstance(a, T) and a.bad for a in list(args) + list(n.kwargs.values()))
        if in_bad:
            for o in outs:
                if isinstance(o, T) and o.is_float and not o.bad:
                    o.bad = "nan"
        else:
            names = [fname] + [m.fname for m in self.stack]
            kind = self._nan_kind(names)
            if kind:
                for o in outs:
                    if isinstance(o, T) and o.is_float:
                        o.bad = kind
                self.nan_fired_mb = True
        if drift != 1.0:
            for o in outs:
                # identity-like outputs of an already drifted tensor keep that scale (no compounding)
                if isinstance(o, T) and o.is_float and o.scale == 1.0:
                    o.scale = drift
        if any(isinstance(o, T) and o.bad for o in outs):
            self.mb_bad = True
        n.outs = outs
        if parent:
            parent.children.append(n)
        else:
            self.roots.append(n)
        self.order.append(n)
        if self.want_api:
            self.construct[fname] = parent.fname if parent else None
            self.stacks.add(fname, n.site, False, tuple((m.cls, m.modname) for m in self.stack))
        return outs

    # ---------------- entries
    def fwd_entry(self, n):
        if n.kind == "api":
            return {
                "input_args": [enc(a) for a in n.args],
                "input_kwargs": {k: enc(v) for k, v in n.kwargs.items()},
                "is_recompute": False,
                "output": [enc(o) for o in n.outs],
            }
        return {
            "input_args": [enc(a) for a in n.args],
            "input_kwargs": {k: enc(v) for k, v in n.kwargs.items()},
            "output": [enc(o) for o in n.outs],
            "parameters": {k: enc(v) for k, v in n.params.items()},
            "is_recompute": False,
        }

    def grad_of(self, x, drift=1.0, gscale=None):
        g = x.grad
        if g is None:
            if gscale is None:
                gscale = self.cfg.grad_scale
            dt = x.dtype
            g = self.act(x.shape, max(x.sigma, 1e-6) * gscale * (0.5 + self.rng.random()),
                         mu=0.0, dtype=dt, tail=1.0 + 2.0 * self.rng.random(), rg=False)
            g.mu = g.sigma * 0.001 * (2.0 * self.rng.random() - 1.0)
            if self.mb_bad:
                g.bad = "nan"
            if drift != 1.0:
                g.scale = drift
            x.grad = g
        return g

    def bwd(self, n):
        """Emit backward entries for node n (children first, like the hooks fire)."""
        if n.kind == "module":
            for c in reversed(n.children):
                self.bwd(c)
            if not any(is_grad_tensor(o) for o in n.outs):
                return
            if n.params and (self.want_mod or self.cfg.monitor):
                k = self.pg_calls[n.fname.rsplit(".forward.", 1)[0]]
                self.pg_calls[n.fname.rsplit(".forward.", 1)[0]] += 1
                pg = {}
                for pname, p in n.params.items():
                    r = random.Random(f"{self.cfg.seed}:pgrad:{self.step}:{self.rank}:{n.fname}:{pname}")
                    g = T(F32, p.shape, mu=0.0, sigma=self.cfg.grad_scale * 0.05 * (0.5 + r.random()),
                          tail=1.0 + 2.0 * r.random(), j=r.random(), rg=False)
                    g.mu = g.sigma * 0.002 * (2.0 * r.random() - 1.0)
                    if self.mb_bad:
                        g.bad = "nan"
                    g.scale = n.drift
                    pg[pname] = [g.to_json()]
                    if self.cfg.monitor:
                        self.mon_pgrad.append((n.modname, pname, p, g))
                if self.want_mod:
                    base = n.fname.rsplit(".forward.", 1)[0]
                    self.data[f"{base}.parameters_grad.{k}"] = pg
            inp = [self.grad_of(o).to_json() if is_grad_tensor(o) else None for o in n.outs]
            outp = [self.grad_of(a, n.drift).to_json() if is_grad_tensor(a) else None for a in n.args]
            if self.cfg.monitor:
                self.mon_actv_grad.append((n.modname, self.mb,
                                           [self.grad_of(a, n.drift) if is_grad_tensor(a) else None
                                            for a in n.args if isinstance(a, T)],
                                           [self.grad_of(o) if is_grad_tensor(o) else None for o in n.outs]))
            if self.want_mod:
                par = n.parent
                self.construct[n.bname] = par.bname if par else None
                self.data[n.bname] = {"input": inp, "output": outp}
        else:
            if not any(is_grad_tensor(o) for o in n.outs):
                return
            inp = [self.grad_of(o).to_json() if is_grad_tensor(o) else None for o in n.outs]
            last = -1
            for i, a in enumerate(n.args):
                if isinstance(a, T):
                    last = i
            outp = [self.grad_of(a, n.drift).to_json() if is_grad_tensor(a) else None for a in n.args[:last + 1]]
            if self.want_api:
                par = n.parent
                self.construct[n.bname] = par.bname if par else None
                self.data[n.bname] = {"input": inp, "output": outp}

    # ---------------- pipeline communication
    def boundary(self, stage, mb, what):
        """The tensor crossing the boundary after `stage` in micro-batch mb: the same statistics on the
        sending and the receiving rank (both build it from one seed)."""
        c = self.cfg
        r = random.Random(f"{c.seed}:pp:{what}:{self.step}:{self.dp_rank}:{self.tp_rank}:{stage}:{mb}")
        if what == "act":
            sg = 0.6 + 0.4 * r.random()
        else:
            sg = c.grad_scale * (0.5 + r.random())
        t = T(BF16, [c.seq, 1, c.hidden], mu=sg * 0.01 * (2.0 * r.random() - 1.0), sigma=sg,
              tail=1.0 + 1.5 * r.random(), j=r.random(), rg=False)
        return t

    def comm_entry(self, op, tensor, peer_key, peer):
        """Write a Distributed.send/recv entry now (dump order = call order), outside any module."""
        key = f"Distributed.{op}"
        idx = self.api_count[key]
        self.api_count[key] += 1
        fname = f"{key}.{idx}.forward"
        if op == "recv":
            buf = T(tensor.dtype, tensor.shape, fixed=(0.0, 0.0, 0.0, 0.0), rg=False)
            args = [enc(buf)]
        else:
            args = [enc(tensor)]
        if self.want_api:
            self.data[fname] = {"input_args": args, "input_kwargs": {peer_key: enc(peer)},
                                "is_recompute": False, "output": [enc(tensor), enc(peer)]}
            self.construct[fname] = None
            self.stacks.add(fname, f"p2p:{op}", False, ())

    # ---------------- the model
    def run(self):
        c = self.cfg
        S, B, H, V = c.seq, 1, c.hidden, c.vocab
        nh = c.heads
        hd = H // nh
        self.mon_pgrad = []
        for mb in range(c.micro_batches):
            self.mb = mb
            self.roots = []
            self.order = []
            self.nan_fired_mb = False
            self.mb_bad = False
            for prm in self.params.values():
                prm.grad = None
            tokens = T(I64, [B, S], fixed=(V - 1 - int(self.u() * 50), int(self.u() * 3), None, None), rg=False)
            pos = T(I64, [B, S], fixed=(S - 1, 0, None, None), rg=False)
            mask = T(BOOL, [B, 1, S, S], fixed=(True, False, None, None), rg=False)
            labels = T(I64, [B, S], fixed=(V - 1 - int(self.u() * 50), int(self.u() * 3), None, None), rg=False)
            loss_mask = T(F32, [B, S], fixed=(1.0, 0.0 if self.u() < 0.3 else 1.0, None, None), rg=False)
            lm = loss_mask
            lm.fixed = (1.0, lm.fixed[1], round_f32(0.97 + 0.03 * self.u()), round_f32(math.sqrt(B * S) * 0.99))

            first, last = self.pp_rank == 0, self.pp_rank == self.pp - 1
            h_in = None
            if not first:  # recv_forward: the previous stage's hidden state
                h_in = self.boundary(self.pp_rank - 1, mb, "act")
                rbuf = T(h_in.dtype, h_in.shape, fixed=(0.0, 0.0, 0.0, 0.0), rg=False)
                if self.nan_upstream:
                    h_in.bad = "nan"
                got, _ = self.api("Distributed", "recv", [rbuf], {"src": self.prev_rank},
                                  lambda: [h_in, self.prev_rank], site="p2p:recv")
                h_in = self.same(got, rg=True)  # Megatron sets requires_grad on the received tensor
            f16 = self.enter("module", "Float16Module", [tokens, pos, mask], {"labels": labels}, site="fp16:module")
            gpt = self.enter("module.module", "GPTModel", [tokens, pos, mask], {"labels": labels, "inference_params": None,
                                                                              "packed_seq_params": None}, site="model:GPTModel")
            h = self.embedding(tokens, pos) if first else h_in
            rot = self.rotary(S, hd)
            h = self.block(h, mask, rot, final_norm=last)
            total = None
            if last:
                loss = self.output_and_loss(h, labels)
                self.exit(gpt, [loss])
                self.exit(f16, [loss])
                # loss_func outside the model (parent null in construct.json)
                total = self.loss_func(loss, loss_mask)
            else:
                self.exit(gpt, [h])
                self.exit(f16, [h])
                # send_forward: the hidden state crosses to the next stage with the boundary's statistics
                bt = self.boundary(self.pp_rank, mb, "act")
                h.mu, h.sigma, h.tail, h.j1, h.j2 = bt.mu, bt.sigma, bt.tail, bt.j1, bt.j2
                self.api("Distributed", "send", [h], {"dst": self.next_rank}, lambda: [self.same(h, rg=False), self.next_rank],
                         site="p2p:send")
            # forward entries of this micro-batch
            for n in self.order:
                if (n.kind == "api" and self.want_api) or (n.kind == "module" and self.want_mod):
                    self.data[n.fname] = self.fwd_entry(n)
            # backward: recv the gradient from the next stage, the stage's backward, send the gradient back
            if not last:
                g = self.boundary(self.pp_rank, mb, "grad")
                if self.mb_bad or self.nan_downstream:
                    g.bad = "nan"
                    self.mb_bad = True
                self.comm_entry("recv", g, "src", self.next_rank)
                h.grad = g
            for r in reversed(self.roots):
                self.bwd(r)
            if not first:
                gin = self.grad_of(h_in)
                self.comm_entry("send", gin, "dst", self.prev_rank)
            del total

    def embedding(self, tokens, pos):
        c, tp = self.cfg, self.tp
        S, B, H = c.seq, 1, c.hidden
        vocab_shard = c.vocab // tp
        emb = self.enter("module.module.embedding", "LanguageModelEmbedding", [], {"input_ids": tokens, "position_ids": pos},
                         site="embedding:LanguageModelEmbedding")
        w = self.param("module.module.embedding.word_embeddings", "weight", [vocab_shard, H], std=0.02)
        we = self.enter("module.module.embedding.word_embeddings", "VocabParallelEmbedding", [tokens], params={"weight": w},
                        site="embedding:word_embeddings")
        inp = tokens
        if tp > 1:
            start = self.tp_rank * vocab_shard
            lt, = self.api("Tensor", "__lt__", [tokens, start], {}, lambda: [T(BOOL, tokens.shape, fixed=(True, False, None, None), rg=False)], site="tp:__lt__")
            ge, = self.api("Tensor", "__ge__", [tokens, start + vocab_shard], {}, lambda: [T(BOOL, tokens.shape, fixed=(True, False, None, None), rg=False)], site="tp:__ge__")
            msk, = self.api("Tensor", "__or__", [lt, ge], {}, lambda: [T(BOOL, tokens.shape, fixed=(True, False, None, None), rg=False)], site="tp:__or__")
            inp, = self.api("Tensor", "__sub__", [tokens, start], {}, lambda: [T(I64, tokens.shape, fixed=(vocab_shard - 1, -start, None, None), rg=False)], site="tp:__sub__")
        e, = self.api("Functional", "embedding", [inp, w, None, None, 2.0, False, False], {},
                      lambda: [self.act([B, S, H], w.sigma, tail=1.0 + 0.2 * self.u())], site="tp:embedding")
        if tp > 1:
            e, _ = self.api("Distributed", "all_reduce", [e], {"group": self.tp_group_json},
                            lambda: [self.like(e, 1.0), None], site="mappings:all_reduce")
            e_out = e
        else:
            e_out = e
        self.exit(we, [e_out])
        t, = self.api("Tensor", "transpose", [e_out, 0, 1], {}, lambda: [self.same(e_out, shape=[S, B, H])], site="embedding:transpose")
        t2, = self.api("Tensor", "contiguous", [t], {}, lambda: [self.same(t)], site="embedding:contiguous")
        dr = self.enter("module.module.embedding.embedding_dropout", "Dropout", [t2], site="embedding:embedding_dropout")
        d, = self.api("Functional", "dropout", [t2], {"p": 0.0, "training": True, "inplace": False},
                      lambda: [self.same(t2)], site="embedding:dropout")
        self.exit(dr, [d])
        self.exit(emb, [d])
        return d

    def rotary(self, S, hd):
        re = self.enter("module.module.rotary_pos_emb", "RotaryEmbedding", [S], site="rotary:RotaryEmbedding")
        ar, = self.api("Torch", "arange", [S], {"device": {"type": "torch.device", "value": f"npu:{self.rank % 8}"},
                                                  "dtype": {"type": "torch.dtype", "value": "torch.float32"}},
                       lambda: [T(F32, [S], fixed=(float(S - 1), 0.0, (S - 1) / 2.0, round_f32(math.sqrt((S - 1) * S * (2 * S - 1) / 6.0))), rg=False)],
                       site="rotary:arange")
        inv = T(F32, [hd // 2], mu=0.17, sigma=0.25, tail=1.3, j=0.4, rg=False)
        inv.fixed = (1.0, round_f32(1e-4), round_f32(0.1708), round_f32(2.63))
        fr, = self.api("Torch", "outer", [ar, inv], {}, lambda: [T(F32, [S, hd // 2], mu=350.0, sigma=600.0, tail=1.0, j=0.3, rg=False)], site="rotary:outer")
        fr.fixed = (float(S - 1), 0.0, round_f32(349.88), round_f32(math.sqrt(S * hd / 2) * 690.0))
        cat, = self.api("Torch", "cat", [[fr, fr]], {"dim": -1}, lambda: [T(F32, [S, hd], rg=False)], site="rotary:cat")
        cat.fixed = (float(S - 1), 0.0, fr.fixed[2], round_f32(fr.fixed[3] * math.sqrt(2)))
        emb, = self.api("Tensor", "__getitem__", [cat, [{"type": "slice", "value": [None, None, None]}, None, None]],
                        {}, lambda: [T(F32, [S, 1, 1, hd], rg=False)], site="rotary:__getitem__")
        emb.fixed = cat.fixed
        self.exit(re, [emb])
        return emb

    def rms(self, modname, x, site):
        H = self.cfg.hidden
        w = self.param(modname, "weight", [H], std=0.05, mean=1.0)
        m = self.enter(modname, "RMSNorm", [x], params={"weight": w}, site=f"norm:{site}")
        y, rstd = self.api("NPU", "npu_rms_norm", [x, w], {"epsilon": 1e-05},
                           lambda: [self.act(x.shape, w.mu * self.noise(0.05), tail=1.0 + 1.5 * self.u()),
                                    clamp(self.act(x.shape[:-1] + [1], 1.0 / max(x.sigma, 1e-3) * 0.1, mu=1.0 / max(x.sigma, 1e-3), dtype=F32, rg=False), lo=0.0)],
                           site="norm:npu_rms_norm")
        self.exit(m, [y])
        return y

    def linear(self, modname, cls, x, out_f, in_f, site, row=False):
        w = self.param(modname, "weight", [out_f, in_f], std=0.02 if not row else 0.02 / math.sqrt(2.0 * self.cfg.layers))
        m = self.enter(modname, cls, [x], params={"weight": w}, site=f"tp:{site}")
        y, = self.api("Functional", "linear", [x, w, None], {},
                      lambda: [self.act(x.shape[:-1] + [out_f], x.sigma * w.sigma * math.sqrt(in_f) * self.noise())],
                      site=f"tp:linear.{site}")
        if row and self.tp > 1:
            y, _ = self.api("Distributed", "all_reduce", [y], {"group": self.tp_group_json},
                            lambda: [self.like(y, math.sqrt(self.tp)), None], site="mappings:all_reduce")
        self.exit(m, [y, None])
        return y

    def block(self, h, mask, rot, final_norm=True):
        c = self.cfg
        blk = self.enter("module.module.decoder", "TransformerBlock", [h, mask], {"context": None, "context_mask": None,
                         "rotary_pos_emb": rot, "inference_params": None, "packed_seq_params": None}, site="block:TransformerBlock")
        for i in range(c.pp_layers[self.pp_rank]):
            h = self.layer(i, h, mask, rot)
        if final_norm:
            h = self.rms("module.module.decoder.final_layernorm", h, "final_layernorm")
        self.exit(blk, [h])
        return h

    def layer(self, i, x, mask, rot):
        c, tp = self.cfg, self.tp
        S, B, H, F = c.seq, 1, c.hidden, c.ffn
        nh, hd = c.heads // tp, c.hidden // c.heads
        p = f"module.module.decoder.layers.{i}"
        lay = self.enter(p, "TransformerLayer", [x, mask], {"context": None, "context_mask": None, "rotary_pos_emb": rot,
                         "inference_params": None, "packed_seq_params": None}, site="layer:TransformerLayer")
        y = self.rms(f"{p}.input_layernorm", x, "input_layernorm")
        att = self.enter(f"{p}.self_attention", "SelfAttention", [y, mask], {"key_value_states": None, "inference_params": None,
                         "rotary_pos_emb": rot, "packed_seq_params": None}, site="attention:SelfAttention")
        qkv = self.linear(f"{p}.self_attention.linear_qkv", "ColumnParallelLinear", y, 3 * H // tp, H, "linear_qkv")
        v4, = self.api("Tensor", "view", [qkv, S, B, nh, 3 * hd], {}, lambda: [self.same(qkv, shape=[S, B, nh, 3 * hd])], site="attention:view")
        q, k, v = self.api("Torch", "split", [v4, [hd, hd, hd]], {"dim": 3},
                           lambda: [self.like(v4, 1.0, shape=[S, B, nh, hd]) for _ in range(3)], site="attention:split")
        cos, = self.api("Torch", "cos", [rot], {}, lambda: [T(F32, rot.shape, fixed=(1.0, -1.0, round_f32(0.31 + 0.01 * self.u()), round_f32(math.sqrt(numel(rot.shape) * 0.55))), rg=False)], site="attention:cos")
        sin, = self.api("Torch", "sin", [rot], {}, lambda: [T(F32, rot.shape, fixed=(1.0, -1.0, round_f32(0.05 + 0.01 * self.u()), round_f32(math.sqrt(numel(rot.shape) * 0.45))), rg=False)], site="attention:sin")
        q2, = self.api("NPU", "npu_rotary_mul", [q, cos, sin], {}, lambda: [self.like(q, 1.0)], site="attention:npu_rotary_mul")
        k2, = self.api("NPU", "npu_rotary_mul", [k, cos, sin], {}, lambda: [self.like(k, 1.0)], site="attention:npu_rotary_mul")
        core = self.enter(f"{p}.self_attention.core_attention", "DotProductAttention", [q2, k2, v, mask],
                          {"attn_mask_type": None, "packed_seq_params": None},
                          site="dot:DotProductAttention")
        q3, = self.api("Tensor", "reshape", [q2, S, B, -1], {}, lambda: [self.same(q2, shape=[S, B, nh * hd])], site="dot:reshape")
        k3, = self.api("Tensor", "reshape", [k2, S, B, -1], {}, lambda: [self.same(k2, shape=[S, B, nh * hd])], site="dot:reshape")
        v3, = self.api("Tensor", "reshape", [v, S, B, -1], {}, lambda: [self.same(v, shape=[S, B, nh * hd])], site="dot:reshape")
        amask = T(BOOL, [1, 1, S, S], fixed=(True, False, None, None), rg=False)
        seed_v = 1234 + self.rank
        fa = self.api("NPU", "npu_fusion_attention", [q3, k3, v3, nh, "SBH"],
                      {"pse": None, "padding_mask": None, "atten_mask": amask, "scale": 1.0 / math.sqrt(hd),
                       "pre_tockens": 65536, "next_tockens": 0, "keep_prob": 1.0, "inner_precise": 0,
                       "actual_seq_qlen": None, "actual_seq_kvlen": None, "sparse_mode": 2},
                      lambda: [self.like(v3, 0.35),
                               clamp(self.act([B, nh, S, 8], 2.0, mu=2.2, dtype=F32, rg=False), lo=0.0),
                               clamp(self.act([B, nh, S, 8], 80.0, mu=120.0, dtype=F32, rg=False), lo=1.0),
                               T(BF16, [0], fixed=(None, None, None, None), rg=False),
                               seed_v, 0, 0],
                      site="dot:npu_fusion_attention")
        ctx = fa[0]
        self.exit(core, [ctx])
        proj = self.linear(f"{p}.self_attention.linear_proj", "RowParallelLinear", ctx, H, H // tp, "linear_proj", row=True)
        self.exit(att, [proj, None])
        h1, = self.api("Tensor", "__add__", [x, proj], {}, lambda: [self.act(x.shape, math.sqrt(x.sigma ** 2 + proj.sigma ** 2), mu=x.mu + proj.mu)], site="layer:__add__")
        y2 = self.rms(f"{p}.pre_mlp_layernorm", h1, "pre_mlp_layernorm")
        mlp = self.enter(f"{p}.mlp", "MLP", [y2], site="mlp:MLP")
        fc1 = self.linear(f"{p}.mlp.linear_fc1", "ColumnParallelLinear", y2, 2 * F // tp, H, "linear_fc1")
        a, b = self.api("Torch", "chunk", [fc1, 2], {"dim": -1}, lambda: [self.like(fc1, 1.0, shape=fc1.shape[:-1] + [F // tp]) for _ in range(2)], site="mlp:chunk")
        sa, = self.api("Functional", "silu", [a], {}, lambda: [clamp(self.act(a.shape, a.sigma * 0.6, mu=a.sigma * 0.25), lo=-0.2785)], site="mlp:silu")
        g, = self.api("Tensor", "__mul__", [sa, b], {}, lambda: [self.act(b.shape, sa.sigma * b.sigma * 1.1)], site="mlp:__mul__")
        fc2 = self.linear(f"{p}.mlp.linear_fc2", "RowParallelLinear", g, H, F // tp, "linear_fc2", row=True)
        self.exit(mlp, [fc2, None])
        h2, = self.api("Tensor", "__add__", [h1, fc2], {}, lambda: [self.act(h1.shape, math.sqrt(h1.sigma ** 2 + fc2.sigma ** 2), mu=h1.mu + fc2.mu)], site="layer:__add__")
        self.exit(lay, [h2, None])
        return h2

    def output_and_loss(self, h, labels):
        c, tp = self.cfg, self.tp
        S, B, H = c.seq, 1, c.hidden
        vs = c.vocab // tp
        logits = self.linear("module.module.output_layer", "ColumnParallelLinear", h, vs, H, "output_layer")
        # vocab-parallel cross entropy: a custom autograd Function, internal ops run without grad
        lf, = self.api("Tensor", "float", [logits], {}, lambda: [self.same(logits, dtype=F32, rg=False)], site="xent:float")
        lmax = self.api("Torch", "max", [lf], {"dim": -1}, lambda: [self.act([S, B], lf.sigma * 3.5, mu=lf.sigma * 3.5, dtype=F32, rg=False),
                                                                    T(I64, [S, B], fixed=(vs - 1, 0, None, None), rg=False)], site="xent:max")
        mx = lmax[0]
        if tp > 1:
            mx, _ = self.api("Distributed", "all_reduce", [mx], {"op": {"type": "torch.distributed.ReduceOp", "value": "ReduceOp.MAX"},
                                                                 "group": self.tp_group_json},
                             lambda: [self.like(mx, 1.0, mu=mx.mu * 1.05), None], site="mappings:all_reduce")
        sub, = self.api("Tensor", "__sub__", [lf, mx], {}, lambda: [self.act(lf.shape, lf.sigma, mu=-mx.mu, dtype=F32, rg=False)], site="xent:__sub__")
        ex, = self.api("Torch", "exp", [sub], {}, lambda: [clamp(self.act(lf.shape, 0.002, mu=0.001, dtype=F32, rg=False), lo=0.0, hi=1.0)], site="xent:exp")
        sm, = self.api("Tensor", "sum", [ex], {"dim": -1}, lambda: [clamp(self.act([S, B], 40.0 / tp, mu=120.0 / tp, dtype=F32, rg=False), lo=0.0)], site="xent:sum")
        if tp > 1:
            sm, _ = self.api("Distributed", "all_reduce", [sm], {"op": {"type": "torch.distributed.ReduceOp", "value": "ReduceOp.SUM"},
                                                                 "group": self.tp_group_json},
                             lambda: [self.like(sm, math.sqrt(tp), mu=sm.mu * tp), None], site="mappings:all_reduce")
        lg, = self.api("Torch", "log", [sm], {}, lambda: [clamp(self.act([S, B], 0.3, mu=4.8, dtype=F32, rg=False), lo=0.0)], site="xent:log")
        loss_mu = max(0.5, c.base_loss - 0.04 * self.step) * self.noise(0.02)
        lossi, = self.api("Tensor", "__sub__", [lg, mx], {}, lambda: [clamp(self.act([S, B], loss_mu * 0.35, mu=loss_mu, dtype=F32, rg=False), lo=0.0)], site="xent:__sub__")
        # the Function's output carries grad; GPTModel returns loss transposed to [b, s]
        loss = self.same(lossi, shape=[S, B], rg=True)
        tr, = self.api("Tensor", "transpose", [loss, 0, 1], {}, lambda: [self.same(loss, shape=[B, S])], site="model:transpose")
        out, = self.api("Tensor", "contiguous", [tr], {}, lambda: [self.same(tr)], site="model:contiguous")
        return out

    def loss_func(self, loss, loss_mask):
        B, S = 1, self.cfg.seq
        lf, = self.api("Tensor", "float", [loss], {}, lambda: [self.same(loss)], site="loss:float")
        vw, = self.api("Tensor", "view", [lf, -1], {}, lambda: [self.same(lf, shape=[B * S])], site="loss:view")
        ml, = self.api("Tensor", "__mul__", [vw, loss_mask], {}, lambda: [self.like(vw, 1.0, mu=vw.mu * 0.97)], site="loss:__mul__")
        tot, = self.api("Torch", "sum", [ml], {}, lambda: [self.act([], 0.0, mu=ml.mu * B * S, dtype=F32)], site="loss:sum")
        cnt, = self.api("Tensor", "sum", [loss_mask], {}, lambda: [T(F32, [], fixed=(float(B * S), float(B * S), float(B * S), float(B * S)), rg=False)], site="loss:sum_mask")
        avg, = self.api("Tensor", "__truediv__", [tot, cnt], {}, lambda: [self.act([], 0.0, mu=tot.mu / (B * S), dtype=F32)], site="loss:__truediv__")
        return avg


# --------------------------------------------------------------------------- writers
def write_json(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, indent=1)


def gen_dump_one(args):
    cfg, step, rank = args
    sim = Sim(cfg, step, rank)
    sim.run()
    d = os.path.join(cfg.out, f"step{step}", f"rank{rank}")
    os.makedirs(d, exist_ok=True)
    dump = {"task": "statistics", "level": cfg.level, "framework": "pytorch", "dump_data_dir": None, "data": sim.data}
    write_json(os.path.join(d, "dump.json"), dump)
    write_json(os.path.join(d, "construct.json"), {} if cfg.level == "L1" else sim.construct)
    write_json(os.path.join(d, "stack.json"), sim.stacks.to_json())
    return os.path.getsize(os.path.join(d, "dump.json")), len(sim.data)


# ---------------- monitor
def _mon_values(t, ops):
    """Raw values for one monitored tensor, in CSV order (ops..., shape, dtype).
    Like msprobe.pytorch.monitor: min/max in the tensor dtype, mean/norm in float64, nans an int
    count, zeros a ratio; a non-tensor (e.g. the None bias of a Megatron linear) is all nan."""
    if t is None:
        return [None] * (len(ops) + 2)
    n = max(numel(t.shape), 1)
    if t.fixed is not None:  # int / bool tensors
        mx, mn = t.fixed[0], t.fixed[1]
        if t.dtype == BOOL:
            mean, norm = 0.5, math.sqrt(n * 0.5)
        elif t.fixed[2] is not None:
            mean, norm = t.fixed[2], t.fixed[3]
        else:
            mean = (mx + mn) / 2.0
            norm = math.sqrt(n * (mean * mean + (mx - mn) ** 2 / 12.0))
        nans, zeros = 0, (1.0 / n if mn == 0 else 0.0)
    else:
        mx, mn, _, _ = t.stats()
        mean, norm = t.stats(raw=True)[2:]
        bad = t.bad is not None
        nans = n if t.bad == "nan" else 0
        zeros = 0.0 if bad else min(1.0, 2.0 / n + 1e-8 / max(t.sigma, 1e-12))
    table = {"norm": norm, "min": mn, "max": mx, "mean": mean, "nans": nans, "zeros": zeros}
    return [table.get(op) for op in ops] + [list(t.shape), t.dtype]


def _cell(v, as_float):
    if v is None:
        return "nan"
    if isinstance(v, bool):
        return "True" if v else "False"
    if isinstance(v, list):
        s = str(v)
        return '"' + s + '"' if "," in s else s
    if isinstance(v, str):
        return v
    if as_float:
        v = round(float(v), 6)
        return "nan" if v != v else ("inf" if v == INF else ("-inf" if v == -INF else repr(v)))
    return str(v)


def _write_csv(path, header, rows):
    """Format like pandas DataFrame.round(6).fillna("nan").to_csv(index=False): a column holding
    any float or missing value prints as float, an all-int column prints as int."""
    ncol = len(header)
    as_float = [False] * ncol
    for r in rows:
        for j, v in enumerate(r):
            if v is None or (isinstance(v, float) and not isinstance(v, bool)):
                as_float[j] = True
    with open(path, "w") as f:
        f.write(",".join(header) + "\n")
        for r in rows:
            f.write(",".join(_cell(v, as_float[j]) for j, v in enumerate(r)) + "\n")


def gen_monitor_rank(args):
    cfg, rank = args
    ops = cfg.monitor_ops
    # msprobe names the directory "<%b%d_%H-%M-%S>-rank<R>-<uuid4[:8]>"
    t0 = time.gmtime(1700000000 + cfg.seed * 3600)
    tag = time.strftime("%b%d_%H-%M-%S", t0)
    uid = f"{zlib.crc32(f'{cfg.seed}:{rank}'.encode()) & 0xffffffff:08x}"
    d = os.path.join(cfg.out, f"{tag}-rank{rank}-{uid}")
    os.makedirs(d, exist_ok=True)
    hdr_mb = ["vpp_stage", "name", "step", "micro_step"] + ops + ["shape", "dtype"]
    hdr = ["vpp_stage", "name", "step"] + ops + ["shape", "dtype"]
    total = 0
    for step in range(cfg.steps):
        sim = Sim(cfg, step, rank)
        sim.run()
        rows_a = []
        for modname, mb, ins, outs, node in sim.mon_actv:
            if modname == "module":
                continue  # the hooked model chunk itself
            for prefix, ts in ((f"{modname}.input", ins), (f"{modname}.output", outs)):
                for i, t in enumerate(ts):
                    nm = prefix if len(ts) == 1 else f"{prefix}_{i}"
                    rows_a.append([0, nm, step, mb] + _mon_values(t if isinstance(t, T) else None, ops))
        rows_g = []
        for modname, mb, gin, gout in sim.mon_actv_grad:
            if modname == "module":
                continue
            for prefix, ts in ((f"{modname}.input", gin), (f"{modname}.output", gout)):
                for i, t in enumerate(ts):
                    nm = prefix if len(ts) == 1 else f"{prefix}_{i}"
                    rows_g.append([0, nm, step, mb] + _mon_values(t, ops))
        # per-parameter metrics: one row per parameter per step (last micro-batch grads)
        last = {f"{m}.{pn}": None for (m, pn) in sim.params}  # named_parameters() order
        for modname, pname, p, g in sim.mon_pgrad:
            last[f"{modname}.{pname}"] = (p, g)
        last = {k: v for k, v in last.items() if v is not None}
        files = {"actv": (hdr_mb, rows_a), "actv_grad": (hdr_mb, rows_g)}
        prm = {k: [] for k in ("grad_unreduced", "grad_reduced", "param_origin", "param_updated", "exp_avg", "exp_avg_sq")}
        for name, (p, g) in last.items():
            gr = T(F32, g.shape, g.mu * cfg.tp, g.sigma * math.sqrt(max(1, cfg.ranks // cfg.tp)), g.tail, 0.3, False)
            upd = T(p.dtype, p.shape, p.mu, p.sigma * (1.0 + 1e-4), p.tail, 0.6, True)
            ea = T(F32, p.shape, g.mu * 0.1, g.sigma * 0.3, g.tail, 0.7, False)
            eas = T(F32, p.shape, g.sigma * g.sigma * 0.02, g.sigma * g.sigma * 0.01, 1.0, 0.8, False)
            for t in (gr, ea, eas):
                t.bad = g.bad
                t.scale = g.scale
            for key, t in (("grad_unreduced", g), ("grad_reduced", gr), ("param_origin", p), ("param_updated", upd),
                           ("exp_avg", ea), ("exp_avg_sq", eas)):
                prm[key].append([0, name, step] + _mon_values(t, ops))
        for key, rows in prm.items():
            files[key] = (hdr, rows)
        for metric, (h, rows) in files.items():
            path = os.path.join(d, f"{metric}_{step}-{step}.csv")
            _write_csv(path, h, rows)
            total += os.path.getsize(path)
    return total


def _v2_cell(v):
    if v is None:
        return "nan"
    if isinstance(v, float):
        return "nan" if v != v else ("inf" if v == INF else ("-inf" if v == -INF else repr(v)))
    return str(v)


def gen_monitor_v2_rank(args):
    """One rank of msprobe monitor_v2 output (CSVWriterV2: rank_<R>/<slug>_step<S>-<S>.csv)."""
    cfg, rank = args
    ops = ["min", "max", "mean", "norm", "nans"]
    d = os.path.join(cfg.out, f"rank_{rank}")
    os.makedirs(d, exist_ok=True)

    def stats(t):
        v = _mon_values(t if isinstance(t, T) else None, ops)[:len(ops)]
        return [None if x is None else float(x) for x in v]

    total = 0
    for step in range(cfg.steps):
        sim = Sim(cfg, step, rank)
        sim.run()
        files = {}
        rows = []
        # like ModuleMonitorV2._collect_tagged_tensors: only tensors get a tag, numbered in order
        for modname, mb, ins, outs, node in sim.mon_actv:
            for kind, ts in (("input", ins), ("output", outs)):
                for i, t in enumerate(t for t in ts if isinstance(t, T)):
                    rows.append([0, step, f"{modname}.{kind}.{i}", "forward"] + stats(t))
        for modname, mb, gin, gout in sim.mon_actv_grad:
            for kind, ts in (("grad_input", gin), ("grad_output", gout)):
                for i, t in enumerate(t for t in ts if isinstance(t, T)):
                    rows.append([0, step, f"{modname}.{kind}.{i}", "backward"] + stats(t))
        files["module"] = (["vpp_stage", "step", "module_name", "scope"] + ops, rows)
        last = {f"{m}.{pn}": None for (m, pn) in sim.params}
        for modname, pname, p, g in sim.mon_pgrad:
            last[f"{modname}.{pname}"] = (p, g)
        last = {k: v for k, v in last.items() if v is not None}
        wg, opt, prm = [], [], []
        for name, (p, g) in last.items():
            gr = T(F32, g.shape, g.mu * cfg.tp, g.sigma * math.sqrt(max(1, cfg.ranks // cfg.tp)), g.tail, 0.3, False)
            upd = T(p.dtype, p.shape, p.mu, p.sigma * (1.0 + 1e-4), p.tail, 0.6, True)
            ea = T(F32, p.shape, g.mu * 0.1, g.sigma * 0.3, g.tail, 0.7, False)
            eas = T(F32, p.shape, g.sigma * g.sigma * 0.02, g.sigma * g.sigma * 0.01, 1.0, 0.8, False)
            for t in (gr, ea, eas):
                t.bad = g.bad
                t.scale = g.scale
            wg.append([0, step, name, "unreduced", cfg.micro_batches] + stats(g))
            wg.append([0, step, name, "reduced", cfg.micro_batches] + stats(gr))
            opt.append([0, step, f"{name}.exp_avg", "exp_avg"] + stats(ea))
            opt.append([0, step, f"{name}.exp_avg_sq", "exp_avg_sq"] + stats(eas))
            prm.append([0, step, name, "param_origin"] + stats(p))
            prm.append([0, step, name, "param_updated"] + stats(upd))
        files["weight_grad"] = (["vpp_stage", "step", "module_name", "scope", "micro_step"] + ops, wg)
        files["optimizer"] = (["vpp_stage", "step", "module_name", "scope"] + ops, opt)
        files["param"] = (["vpp_stage", "step", "module_name", "scope"] + ops, prm)
        for slug, (h, rs) in files.items():
            path = os.path.join(d, f"{slug}_step{step}-{step}.csv")
            with open(path, "w", newline="") as f:
                f.write(",".join(h) + "\r\n")
                for r in rs:
                    f.write(",".join(_v2_cell(v) for v in r) + "\r\n")
            total += os.path.getsize(path)
    return total


# --------------------------------------------------------------------------- CLI
def parse_args(argv=None):
    ap = argparse.ArgumentParser(description="Generate msprobe-format dump or monitor data (synthetic GPT model).")
    ap.add_argument("--out", required=True, help="output directory (dump_path / monitor_output)")
    ap.add_argument("--steps", type=int, default=2)
    ap.add_argument("--ranks", type=int, default=1)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--level", choices=["L0", "L1", "mix"], default="mix")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--micro-batches", type=int, default=1, help="forward/backward passes per step (gradient accumulation)")
    ap.add_argument("--tp", type=int, default=1, help="tensor-parallel size (must divide --ranks)")
    ap.add_argument("--pp", type=int, default=1, help="pipeline-parallel stages (tp*pp must divide --ranks, pp must divide --layers)")
    ap.add_argument("--pp-layers", default="", metavar="N0,N1,...",
                    help="layers of each pipeline stage when they are uneven (as Megatron's --decoder-first/last-pipeline-num-layers); sum = --layers")
    ap.add_argument("--hidden", type=int, default=4096)
    ap.add_argument("--heads", type=int, default=32)
    ap.add_argument("--ffn", type=int, default=11008)
    ap.add_argument("--seq", type=int, default=4096)
    ap.add_argument("--vocab", type=int, default=32000)
    ap.add_argument("--nan", action="append", default=[], metavar="STEP:RANK:SUBSTRING[:KIND]")
    ap.add_argument("--drift", action="append", default=[], metavar="FACTOR:SUBSTRING")
    ap.add_argument("--monitor", action="store_true", help="write monitor CSV trees instead of dumps")
    ap.add_argument("--monitor-ops", default="norm,min,max,mean,nans,zeros")
    ap.add_argument("--monitor-v2", action="store_true", help="write msprobe monitor_v2 CSV trees (rank_<R>/<slug>_step<S>-<S>.csv)")
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args(argv)
    if a.ranks % a.tp:
        ap.error("--tp must divide --ranks")
    if a.pp_layers:
        try:
            a.pp_layers = [int(x) for x in a.pp_layers.split(",")]
        except ValueError:
            ap.error("--pp-layers: comma-separated layer counts")
        if len(a.pp_layers) != a.pp or sum(a.pp_layers) != a.layers or min(a.pp_layers) < 1:
            ap.error("--pp-layers: one count >= 1 per stage, summing to --layers")
    elif a.pp >= 1 and a.layers % a.pp == 0:
        a.pp_layers = [a.layers // a.pp] * a.pp
    if a.pp < 1 or a.ranks % (a.tp * a.pp) or (a.layers % a.pp and not a.pp_layers):
        ap.error("--pp: tp*pp must divide --ranks and pp must divide --layers (or give --pp-layers)")
    if a.pp > 1 and (a.monitor or a.monitor_v2):
        ap.error("--pp is for dumps only")
    if a.hidden % a.heads or a.heads % a.tp or a.ffn % a.tp or a.vocab % a.tp:
        ap.error("--hidden/--heads/--ffn/--vocab must be divisible (heads by tp, hidden by heads)")
    nans = []
    for s in a.nan:
        parts = s.split(":")
        if len(parts) not in (3, 4):
            ap.error(f"bad --nan {s!r}")
        kind = parts[3] if len(parts) == 4 else "nan"
        if kind not in ("nan", "inf", "mixed"):
            ap.error(f"bad --nan kind {kind!r}")
        nans.append((int(parts[0]), int(parts[1]), parts[2], kind))
    drifts = []
    for s in a.drift:
        fac, _, sub = s.partition(":")
        if not sub:
            ap.error(f"bad --drift {s!r}")
        drifts.append((float(fac), sub))
    a.nans = nans
    a.drifts = drifts
    a.monitor_ops = [o for o in a.monitor_ops.split(",") if o]
    if a.monitor_v2:
        a.monitor = True
    a.grad_scale = 1e-3
    a.base_loss = 10.4
    a.micro_batches = max(1, a.micro_batches)
    return a


def main(argv=None):
    cfg = parse_args(argv)
    os.makedirs(cfg.out, exist_ok=True)
    t0 = time.time()
    if cfg.monitor:
        tasks = [(cfg, r) for r in range(cfg.ranks)]
        fn = gen_monitor_v2_rank if cfg.monitor_v2 else gen_monitor_rank
    else:
        tasks = [(cfg, s, r) for s in range(cfg.steps) for r in range(cfg.ranks)]
        fn = gen_dump_one
    if cfg.jobs > 1 and len(tasks) > 1:
        with Pool(cfg.jobs) as pool:
            res = pool.map(fn, tasks, chunksize=1)
    else:
        res = [fn(t) for t in tasks]
    if not cfg.quiet:
        if cfg.monitor:
            print(f"wrote monitor csv for {cfg.ranks} ranks x {cfg.steps} steps: {sum(res)} bytes in {time.time() - t0:.1f}s")
        else:
            tot = sum(r[0] for r in res)
            print(f"wrote {len(res)} dump.json ({tot} bytes, {sum(r[1] for r in res)} entries) in {time.time() - t0:.1f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
