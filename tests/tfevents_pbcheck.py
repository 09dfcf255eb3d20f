#!/usr/bin/env python3
"""tfevents_pbcheck.py FILE...: the scalars of TensorBoard event files as the
protobuf library (google.protobuf, Debian's python3-protobuf) decodes them,
one "tag<TAB>step<TAB>value" line each (value as %.17g), for
tests/unit/test_curves_tfevents.c to hold probetop's own decoder to.  The
messages are declared here with the field numbers of TensorBoard's
tensorboard/compat/proto/{event,summary,tensor,tensor_shape}.proto (only the
fields the scalars need; the library skips the rest as unknown fields); the
TFRecord framing and its CRCs are checked with tests/gen_tfevents.py's CRC.
Exit 77 when google.protobuf is absent.  Written for probetop."""
import math
import os
import struct
import sys

try:
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
except ImportError:
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_tfevents  # noqa: E402

F = descriptor_pb2.FieldDescriptorProto


def msg(fdp, name, fields, nested=()):
    m = fdp.message_type.add() if isinstance(fdp, descriptor_pb2.FileDescriptorProto) else fdp.nested_type.add()
    m.name = name
    for fname, num, typ, label, tname in fields:
        f = m.field.add()
        f.name, f.number, f.type, f.label = fname, num, typ, label
        if tname:
            f.type_name = tname
    for n in nested:
        n(m)
    return m


def build():
    fdp = descriptor_pb2.FileDescriptorProto()
    fdp.name = "pt_tfevents_check.proto"
    fdp.package = "ptcheck"
    fdp.syntax = "proto3"
    O, R = F.LABEL_OPTIONAL, F.LABEL_REPEATED
    msg(fdp, "Dim", [("size", 1, F.TYPE_INT64, O, None), ("name", 2, F.TYPE_STRING, O, None)])
    msg(fdp, "TensorShapeProto", [("dim", 2, F.TYPE_MESSAGE, R, ".ptcheck.Dim"), ("unknown_rank", 3, F.TYPE_BOOL, O, None)])
    msg(fdp, "TensorProto", [("dtype", 1, F.TYPE_INT32, O, None),
                             ("tensor_shape", 2, F.TYPE_MESSAGE, O, ".ptcheck.TensorShapeProto"),
                             ("tensor_content", 4, F.TYPE_BYTES, O, None),
                             ("float_val", 5, F.TYPE_FLOAT, R, None),
                             ("double_val", 6, F.TYPE_DOUBLE, R, None),
                             ("half_val", 13, F.TYPE_INT32, R, None)])
    msg(fdp, "PluginData", [("plugin_name", 1, F.TYPE_STRING, O, None), ("content", 2, F.TYPE_BYTES, O, None)])
    msg(fdp, "SummaryMetadata", [("plugin_data", 1, F.TYPE_MESSAGE, O, ".ptcheck.PluginData"),
                                 ("data_class", 4, F.TYPE_INT32, O, None)])
    msg(fdp, "Value", [("tag", 1, F.TYPE_STRING, O, None), ("simple_value", 2, F.TYPE_FLOAT, O, None),
                       ("tensor", 8, F.TYPE_MESSAGE, O, ".ptcheck.TensorProto"),
                       ("metadata", 9, F.TYPE_MESSAGE, O, ".ptcheck.SummaryMetadata")])
    msg(fdp, "Summary", [("value", 1, F.TYPE_MESSAGE, R, ".ptcheck.Value")])
    msg(fdp, "Event", [("wall_time", 1, F.TYPE_DOUBLE, O, None), ("step", 2, F.TYPE_INT64, O, None),
                       ("file_version", 3, F.TYPE_STRING, O, None),
                       ("summary", 5, F.TYPE_MESSAGE, O, ".ptcheck.Summary")])
    # the value oneof of Summary.Value: simple_value and tensor (proto3
    # scalars have no presence otherwise)
    val = [m for m in fdp.message_type if m.name == "Value"][0]
    val.oneof_decl.add().name = "value"
    for f in val.field:
        if f.name in ("simple_value", "tensor"):
            f.oneof_index = 0
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    desc = pool.FindMessageTypeByName("ptcheck.Event")
    if hasattr(message_factory, "GetMessageClass"):
        return message_factory.GetMessageClass(desc)
    return message_factory.MessageFactory(pool).GetPrototype(desc)


def records(data):
    off = 0
    while off + 12 <= len(data):
        head = data[off:off + 8]
        (n,) = struct.unpack("<Q", head)
        if struct.unpack("<I", data[off + 8:off + 12])[0] != gen_tfevents.masked(head) or off + 16 + n > len(data):
            return
        body = data[off + 12:off + 12 + n]
        ok = struct.unpack("<I", data[off + 12 + n:off + 16 + n])[0] == gen_tfevents.masked(body)
        off += 16 + n
        if ok:
            yield body


def half(h):
    return struct.unpack("<e", struct.pack("<H", h & 0xFFFF))[0]


def scalar(t):
    n = 1
    for d in t.tensor_shape.dim:
        n *= d.size
    if n != 1 or t.tensor_shape.unknown_rank:
        return None
    if t.dtype == 1:
        return t.float_val[0] if t.float_val else (struct.unpack("<f", t.tensor_content)[0] if len(t.tensor_content) == 4 else None)
    if t.dtype == 2:
        return t.double_val[0] if t.double_val else (struct.unpack("<d", t.tensor_content)[0] if len(t.tensor_content) == 8 else None)
    if t.dtype == 19:
        return half(t.half_val[0]) if t.half_val else (half(struct.unpack("<H", t.tensor_content)[0]) if len(t.tensor_content) == 2 else None)
    if t.dtype == 14:
        bits = t.half_val[0] if t.half_val else (struct.unpack("<H", t.tensor_content)[0] if len(t.tensor_content) == 2 else None)
        return None if bits is None else struct.unpack("<f", struct.pack("<I", (bits & 0xFFFF) << 16))[0]
    return None


def main(paths):
    Event = build()
    other = set()   # tags whose first metadata names another plugin
    seen = set()
    for p in paths:
        with open(p, "rb") as f:
            data = f.read()
        for body in records(data):
            ev = Event()
            try:
                ev.ParseFromString(body)
            except Exception:
                continue
            for v in ev.summary.value:
                if v.HasField("metadata") and v.tag not in seen:
                    seen.add(v.tag)
                    m = v.metadata
                    if (m.data_class not in (0, 1)) or m.plugin_data.plugin_name not in ("", "scalars"):
                        other.add(v.tag)
                kind = v.WhichOneof("value")
                if kind == "simple_value":
                    x = v.simple_value
                elif kind == "tensor" and v.tag not in other:
                    x = scalar(v.tensor)
                    if x is None:
                        continue
                else:
                    continue
                if not v.tag:
                    continue
                print("%s\t%d\t%s" % (v.tag, ev.step, "nan" if math.isnan(x) else "%.17g" % x))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
