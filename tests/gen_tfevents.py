#!/usr/bin/env python3
"""gen_tfevents.py: TensorBoard event files written with the Python standard
library alone (the Event / Summary / TensorProto wire format and the TFRecord
framing with its masked CRC-32C, as probetop-formats(5), TRAINING CURVES:
TensorBoard event files describes them), for probetop's tests and benchmark.

  gen_tfevents.py run DIR            a small run: events.out.tfevents.* with
                                     simple_value scalars (PyTorch's
                                     SummaryWriter), a TF2 double tensor scalar
  gen_tfevents.py bench DIR --mb N   N MB of event files (one 16 MB file
                                     written, then copied under other names)
  gen_tfevents.py seeds DIR          fuzz seeds (tests/fuzz/seeds/tfevents)

Written for probetop; no code of TensorFlow or TensorBoard was copied.
"""
import math
import os
import shutil
import struct
import sys

_T = []
for _b in range(256):
    _c = _b
    for _ in range(8):
        _c = (_c >> 1) ^ 0x82F63B78 if _c & 1 else _c >> 1
    _T.append(_c)


def crc32c(data):
    c = 0xFFFFFFFF
    t = _T
    for b in data:
        c = (c >> 8) ^ t[(c ^ b) & 0xFF]
    return c ^ 0xFFFFFFFF


def masked(data):
    c = crc32c(data)
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def frame(data):
    head = struct.pack("<Q", len(data))
    return head + struct.pack("<I", masked(head)) + data + struct.pack("<I", masked(data))


def varint(v):
    v &= (1 << 64) - 1   # int64: two's complement, 10 bytes when negative
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def key(num, wt):
    return varint(num << 3 | wt)


def ln(num, payload):
    return key(num, 2) + varint(len(payload)) + payload


def f32(num, x):
    return key(num, 5) + struct.pack("<f", x)


def tensor_scalar(x, dtype="double", how="val"):
    """TensorProto of a scalar: dtype 1 (DT_FLOAT) or 2 (DT_DOUBLE), shape {}
    (field 2, empty), the value in float_val 5 / double_val 6 (packed) or in
    tensor_content 4."""
    if dtype == "float":
        t = key(1, 0) + varint(1) + ln(2, b"")
        raw = struct.pack("<f", x)
        return t + (ln(4, raw) if how == "content" else ln(5, raw))
    t = key(1, 0) + varint(2) + ln(2, b"")
    raw = struct.pack("<d", x)
    return t + (ln(4, raw) if how == "content" else ln(6, raw))


def scalars_metadata():
    # SummaryMetadata { plugin_data 1 { plugin_name 1: "scalars" }, data_class 4: 1 }
    return ln(1, ln(1, b"scalars")) + key(4, 0) + varint(1)


def value_simple(tag, x):
    return ln(1, tag.encode()) + f32(2, x)


def value_tensor(tag, x, dtype="double", how="val", meta=True):
    v = ln(1, tag.encode())
    if meta:
        v += ln(9, scalars_metadata())
    return v + ln(8, tensor_scalar(x, dtype, how))


def event(step, wall, values=None, file_version=None):
    e = key(1, 1) + struct.pack("<d", wall) + key(2, 0) + varint(step)
    if file_version is not None:
        e += ln(3, file_version.encode())
    if values is not None:
        e += ln(5, b"".join(ln(1, v) for v in values))
    return e


def header(wall=1.7e9):
    return frame(event(0, wall, file_version="brain.Event:2"))


def loss_at(step):
    return 6.0 * math.exp(-step / 40.0) + 2.0


def run_file(path, steps=range(1, 21)):
    """A PyTorch-style run: lm loss, grad-norm (a spike at step 12), a NaN lm
    loss at step 15, and a TF2-style double tensor learning-rate."""
    out = bytearray(header())
    for s in steps:
        loss = float("nan") if s == 15 else loss_at(s)
        gn = 25.0 if s == 12 else 1.0 + 0.01 * s
        out += frame(event(s, 1.7e9 + s, [value_simple("lm loss", loss)]))
        out += frame(event(s, 1.7e9 + s, [value_simple("grad-norm", gn)]))
        out += frame(event(s, 1.7e9 + s, [value_tensor("learning-rate", 1e-4 * s, meta=(s == steps[0]))]))
    with open(path, "wb") as f:
        f.write(out)


def cmd_run(d):
    os.makedirs(d, exist_ok=True)
    run_file(os.path.join(d, "events.out.tfevents.1700000000.host.1.0"))


def cmd_bench(d, mb):
    os.makedirs(d, exist_ok=True)
    first = os.path.join(d, "events.out.tfevents.1700000000.bench.0.0")
    tags = ["lm loss", "grad-norm", "loss-scale", "learning-rate"]
    out = bytearray(header())
    s = 0
    chunk = min(16, mb) << 20
    while len(out) < chunk:
        s += 1
        for i, t in enumerate(tags):
            x = loss_at(s) if i == 0 else 1.0 + (s % 97) * 0.01
            if i == 3:
                out += frame(event(s, 1.7e9 + s, [value_tensor(t, x, meta=(s == 1))]))
            else:
                out += frame(event(s, 1.7e9 + s, [value_simple(t, x)]))
    with open(first, "wb") as f:
        f.write(out)
    n = max(1, (mb << 20) // len(out))
    for k in range(1, n):
        shutil.copyfile(first, os.path.join(d, "events.out.tfevents.%d.bench.%d.0" % (1700000000 + k, k)))


def cmd_seeds(d):
    os.makedirs(d, exist_ok=True)
    good = header() + b"".join(
        frame(event(s, 1.0, [value_simple("loss", loss_at(s)), value_tensor("lr", 1e-3, "float", "content")]))
        for s in range(3))
    seeds = {
        "simple": good,
        "tensor_double": header() + frame(event(7, 1.0, [value_tensor("lr", 0.5)])),
        "truncated": good[:-7],
        "badcrc": good[:40] + bytes([good[40] ^ 1]) + good[41:],
        "badlen": good[:30] + bytes([good[30] ^ 0x10]) + good[31:],
        "negative_step": header() + frame(event(-3, 1.0, [value_simple("loss", 1.0)])),
        "empty": b"",
        "notevents": b"this is a training log, not an event file\n" * 4,
    }
    for name, data in seeds.items():
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)


def main(argv):
    if len(argv) >= 3 and argv[1] == "run":
        cmd_run(argv[2])
    elif len(argv) >= 3 and argv[1] == "seeds":
        cmd_seeds(argv[2])
    elif len(argv) >= 5 and argv[1] == "bench" and argv[3] == "--mb":
        cmd_bench(argv[2], int(argv[4]))
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
