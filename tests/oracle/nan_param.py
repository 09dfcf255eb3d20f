#!/usr/bin/env python3
"""nan_param.py - make one module's forward parameters NaN, and nothing else.

Usage: nan_param.py DUMP_JSON ENTRY

ENTRY's "parameters" (name -> tensor) get Max, Min, Mean and Norm NaN, as a
dump holds them when a weight went bad in the optimizer step before: the
module's inputs and outputs are left as they are, so the NaN is held only in
the parameters.  Standard library only.
"""
import json
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    path, entry = sys.argv[1:]
    with open(path) as f:
        dump = json.load(f)
    params = dump["data"][entry]["parameters"]
    for t in params.values():
        for k in ("Max", "Min", "Mean", "Norm"):
            t[k] = float("nan")
    with open(path, "w") as f:
        json.dump(dump, f, indent=1)


if __name__ == "__main__":
    main()
