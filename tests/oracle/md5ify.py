#!/usr/bin/env python3
"""md5ify.py - turn a gen_dump.py statistics dump into an md5 one, in place.

Usage: md5ify.py [--null-only] DUMP_ROOT

Every tensor object of every step*/rank*/dump.json gets "md5": eight hex digits
(msProbe's md5 summary mode writes a CRC-32 there; here it is the CRC-32 of the
tensor's dtype, shape and statistics, so a tensor whose statistics changed gets
another one).  Each Functional.linear.N.backward gets a null third output, the
gradient of a bias the layer does not have, as PyTorch's backward dumps hold
(`[grad_input, grad_weight, null]`); --null-only adds only those (the dump
stays a statistics one).  Standard library only.
"""
import glob
import json
import os
import re
import sys
import zlib


def tag(obj):
    if isinstance(obj, list):
        for x in obj:
            tag(x)
    elif isinstance(obj, dict):
        if obj.get("type") == "torch.Tensor":
            key = json.dumps([obj.get(k) for k in ("dtype", "shape", "Max", "Min", "Mean", "Norm")])
            obj["md5"] = "%08x" % (zlib.crc32(key.encode()) & 0xffffffff)
        else:
            for v in obj.values():
                tag(v)


def main():
    args = sys.argv[1:]
    null_only = args[:1] == ["--null-only"]
    if null_only:
        args = args[1:]
    if len(args) != 1:
        sys.exit(__doc__)
    for path in sorted(glob.glob(os.path.join(args[0], "step*", "rank*", "dump.json"))):
        with open(path) as f:
            dump = json.load(f)
        for name, entry in dump["data"].items():
            if not null_only:
                tag(entry)
            if re.match(r"Functional\.linear\.\d+\.backward$", name) and isinstance(entry.get("output"), list):
                entry["output"].append(None)
        with open(path, "w") as f:
            json.dump(dump, f, indent=1)


if __name__ == "__main__":
    main()
