#!/usr/bin/env python3
"""Writes decfloat_pow5.h: 5^q for q in [-342, 308] as 128-bit significands.

For each q, 5^q = F * 2^e with F in [2^127, 2^128); the table holds T, an
integer next to F, and e.  T = F exactly for 0 <= q <= 55, T = floor(F) for
q > 55 (T < F), T = ceil(F) for q < 0 (T > F): decfloat.c's error bounds
rely on these three cases.
Run:  python3 src/io/common/decfloat_pow5.py > src/io/common/decfloat_pow5.h
"""
QMIN, QMAX = -342, 308

def entry(q):
    if q >= 0:
        v = 5 ** q
        b = v.bit_length()
        t = v << (128 - b) if b <= 128 else v >> (b - 128)
        e = b - 128
    else:
        d = 5 ** -q
        b = d.bit_length()
        num = 1 << (127 + b)
        t = num // d + (1 if num % d else 0)
        e = -(127 + b)
    assert (1 << 127) <= t < (1 << 128), q
    return t, e

print("/* decfloat_pow5.h: written by decfloat_pow5.py (see there); do not edit. */")
print("#define DECFLOAT_QMIN (%d)" % QMIN)
print("#define DECFLOAT_QMAX %d" % QMAX)
print("static const uint64_t decfloat_pow5[%d][2] = {" % (QMAX - QMIN + 1))
for q in range(QMIN, QMAX + 1):
    t, _ = entry(q)
    print("    {0x%016xu, 0x%016xu}, /* %d */" % (t >> 64, t & ((1 << 64) - 1), q))
print("};")
print("static const int16_t decfloat_pow5_exp[%d] = {" % (QMAX - QMIN + 1))
es = [entry(q)[1] for q in range(QMIN, QMAX + 1)]
for i in range(0, len(es), 12):
    print("    " + ", ".join("%d" % e for e in es[i:i + 12]) + ",")
print("};")
