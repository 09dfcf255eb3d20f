/* tensorcmp: the tensor-mode metrics (probetop-rules(7), TENSOR METRICS), computed the
 * way msProbe's numpy code computes them, down to the precision of each
 * step: the relative error in float32 when both files hold floats of at
 * most 32 bits (float64 otherwise), its thresholds compared in that same
 * precision, everything else in float64, and a 0-d tensor's absolute error
 * in the type numpy's promotion gives the pair. */
#include "model/compare/tensorcmp.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const dtype_names[TENSORCMP_NDTYPES] = {
    "bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
    "float16", "bfloat16", "float32", "float64"};

const char *tensorcmp_dtype_name(int dtype) {
    return dtype >= 0 && dtype < TENSORCMP_NDTYPES ? dtype_names[dtype] : "?";
}

static const char *const msg_text[TM_COUNT] = {
    "NPU does not have data file.",
    "Bench does not have data file.",
    "Bench api/module unmatched.",
    "Dump file not found or read failed.",
    "This is empty data, can not compare.",
    "Shape of NPU and bench tensor do not match. Skipped.",
    "This is type of 0-d tensor, can not calculate 'Cosine', 'EucDist', 'One Thousandth Err Ratio' and "
    "'Five Thousandths Err Ratio'. ",
    "The position of inf or nan in NPU and bench Tensor do not match.",
    "Dtype of NPU and bench tensor do not match.",
    "This is a 1-d tensor of length 1.",
    "Cannot compare by Cosine Similarity, All the data is Zero in npu dump data.",
    "Cannot compare by Cosine Similarity, All the data is Zero in Bench dump data.",
    "Cannot compare by Cosine Similarity, the dump data has NaN.",
    "Cannot compare by MaxAbsError, the data contains nan/inf/-inf in dump data.",
    "Cannot compare by MaxRelativeError, the data contains nan/inf/-inf in dump data.",
};

const char *tensorcmp_msg_text(int msg) { return msg >= 0 && msg < TM_COUNT ? msg_text[msg] : ""; }

void tensorcmp_fill(struct cval out[TENSORCMP_NMETRICS], int kind) {
    for (int i = 0; i < TENSORCMP_NMETRICS; i++) {
        memset(&out[i], 0, sizeof out[i]);
        out[i].kind = (uint8_t)kind;
    }
}

static void num(struct cval *c, double v) {
    memset(c, 0, sizeof *c);
    c->kind = CV_NUM;
    c->v = v;
}

/* Python's round(v, digits) / float('{:.Nf}'.format(v)): both are the
 * correctly rounded decimal, which is what %.*f and strtod give. */
static double round_dec(double v, int digits) {
    if (!isfinite(v)) return v;
    char b[400];
    snprintf(b, sizeof b, "%.*f", digits, v);
    return strtod(b, NULL);
}

static int is_float(int d) {
    return d == TENSORCMP_F16 || d == TENSORCMP_BF16 || d == TENSORCMP_F32 || d == TENSORCMP_F64;
}

/* numpy keeps float16/float32 relative errors in float32 (result_type with
 * float32); integers and bools are made float64 first. */
static int re_single(int a, int b) {
    return a != TENSORCMP_F64 && b != TENSORCMP_F64 && is_float(a) && is_float(b);
}

/* The value as IEEE half precision (round to nearest even), as a double. */
static double to_half(double x) {
    if (!isfinite(x) || x == 0) return x;
    double ax = fabs(x);
    if (ax >= 65520.0) return copysign(INFINITY, x);   /* rounds past the largest half, 65504 */
    int e;
    frexp(ax, &e);                 /* ax = m * 2^e, m in [0.5, 1) */
    int q = e - 11;                /* spacing of halves near ax: 2^(e-11), never finer than 2^-24 */
    if (q < -24) q = -24;
    double r = nearbyint(ldexp(ax, -q));
    return copysign(ldexp(r, q), x);
}

/* ---- 0-d absolute error in numpy's promoted type ---- */

enum { PK_INT, PK_UINT, PK_FLOAT };

static void kind_of(int d, int *kind, int *bits) {
    switch (d) {
    case TENSORCMP_BOOL: *kind = PK_UINT; *bits = 1; return;
    case TENSORCMP_I8: *kind = PK_INT; *bits = 8; return;
    case TENSORCMP_U8: *kind = PK_UINT; *bits = 8; return;
    case TENSORCMP_I16: *kind = PK_INT; *bits = 16; return;
    case TENSORCMP_U16: *kind = PK_UINT; *bits = 16; return;
    case TENSORCMP_I32: *kind = PK_INT; *bits = 32; return;
    case TENSORCMP_U32: *kind = PK_UINT; *bits = 32; return;
    case TENSORCMP_I64: *kind = PK_INT; *bits = 64; return;
    case TENSORCMP_U64: *kind = PK_UINT; *bits = 64; return;
    case TENSORCMP_F16: *kind = PK_FLOAT; *bits = 16; return;
    case TENSORCMP_F64: *kind = PK_FLOAT; *bits = 64; return;
    default: *kind = PK_FLOAT; *bits = 32; return;   /* float32, bfloat16 */
    }
}

/* Smallest float width that holds every value of an integer type. */
static int float_for_int(int bits) { return bits <= 8 ? 16 : bits <= 16 ? 32 : 64; }

/* |n - b| for two 0-d values, computed in the type numpy promotes the pair
 * to (msProbe does not widen 0-d tensors before this subtraction). */
static double abs_err_0d(double n, int dn, double b, int db) {
    if (dn == TENSORCMP_BOOL) dn = db = TENSORCMP_F64;   /* msProbe turns a bool 0-d pair into floats */
    int ka, wa, kb, wb;
    kind_of(dn, &ka, &wa);
    kind_of(db, &kb, &wb);
    if (ka == PK_FLOAT || kb == PK_FLOAT) {
        int w;
        if (ka == PK_FLOAT && kb == PK_FLOAT) w = wa > wb ? wa : wb;
        else if (ka == PK_FLOAT) w = wa > float_for_int(wb) ? wa : float_for_int(wb);
        else w = wb > float_for_int(wa) ? wb : float_for_int(wa);
        double d = n - b;
        if (w == 16) return fabs(to_half(d));
        if (w == 32) return fabs((double)(float)d);
        return fabs(d);
    }
    /* integers: the promoted width, with C-like wrap-around */
    int uns, w;
    if (ka == kb) { uns = ka == PK_UINT; w = wa > wb ? wa : wb; }
    else {
        int sw = ka == PK_INT ? wa : wb, uw = ka == PK_UINT ? wa : wb;
        if (sw > uw) { uns = 0; w = sw; }
        else if (uw < 64) { uns = 0; w = uw * 2; }
        else return fabs(n - b);   /* uint64 with a signed type: float64 */
    }
    if (w < 8) w = 8;
    if (w > 64) w = 64;
    /* casts only in range: a double beyond int64 (a uint64 value) is cast
     * as unsigned */
    uint64_t x = n >= 9223372036854775808.0 ? (uint64_t)n : (uint64_t)(int64_t)n;
    uint64_t y = b >= 9223372036854775808.0 ? (uint64_t)b : (uint64_t)(int64_t)b;
    uint64_t d = x - y;
    uint64_t mask = w == 64 ? UINT64_MAX : ((uint64_t)1 << w) - 1;
    d &= mask;
    if (uns) return (double)d;
    /* sign-extend, then abs; the most negative value stays negative in numpy */
    int64_t s = w == 64 ? (int64_t)d : (int64_t)(d << (64 - w)) >> (64 - w);
    if (s == (w == 64 ? INT64_MIN : -((int64_t)1 << (w - 1)))) return (double)s;
    return (double)(s < 0 ? -s : s);
}

/* Relative error of one pair of values in the chosen precision. */
static double rel_err(double n, double b, int single) {
    if (single) {
        float x = (float)n, y = (float)b;
        if (y == 0) { x += FLT_EPSILON; y += FLT_EPSILON; }
        float r = (x - y) / y;
        return fabsf(r);
    }
    if (b == 0) { n += DBL_EPSILON; b += DBL_EPSILON; }
    return fabs((n - b) / b);
}

uint32_t tensorcmp_compare(const struct tensorcmp_tensor *npu, const struct tensorcmp_tensor *bench,
                           struct cval out[TENSORCMP_NMETRICS]) {
    if (npu->n == 0) {
        tensorcmp_fill(out, CV_UNSUP);
        return 1u << TM_EMPTY;
    }
    int same_shape = npu->ndim == bench->ndim && npu->n == bench->n;
    for (int i = 0; same_shape && i < npu->ndim && i < TENSORCMP_MAXDIM; i++)
        same_shape = npu->shape[i] == bench->shape[i];
    if (!same_shape) {
        tensorcmp_fill(out, CV_SHAPE);
        return 1u << TM_SHAPE;
    }
    int single = re_single(npu->dtype, bench->dtype);
    uint32_t msgs = 0;
    if (npu->ndim == 0) {
        /* the chain stops at the 0-d check: no inf/nan masking, no dtype check */
        msgs |= 1u << TM_ZERO_D;
        tensorcmp_fill(out, CV_UNSUP);
        double a = abs_err_0d(npu->v[0], npu->dtype, bench->v[0], bench->dtype);
        if (isnan(a)) { out[TENSORCMP_MAXABS].kind = CV_NAN; msgs |= 1u << TM_ABS_NAN; }
        else num(&out[TENSORCMP_MAXABS], round_dec(a, 12));
        double r = rel_err(npu->v[0], bench->v[0], single);
        if (isnan(r)) { out[TENSORCMP_MAXREL].kind = CV_NAN; msgs |= 1u << TM_REL_NAN; }
        else num(&out[TENSORCMP_MAXREL], round_dec(r, 12));
        return msgs;
    }
    const double *x = npu->v, *y = bench->v;
    size_t n = npu->n;
    /* inf/nan: the same positions on both sides are read as 0, otherwise N/A */
    int bad = 0, differ = 0;
    for (size_t i = 0; i < n; i++) {
        int a = isinf(x[i]) ? 1 : isnan(x[i]) ? 2 : 0, b = isinf(y[i]) ? 1 : isnan(y[i]) ? 2 : 0;
        if (a || b) bad = 1;
        if (a != b) { differ = 1; break; }
    }
    if (bad && differ) {
        tensorcmp_fill(out, CV_NA);
        return 1u << TM_INFNAN;
    }
    if (npu->dtype != bench->dtype) msgs |= 1u << TM_DTYPE;
    tensorcmp_fill(out, CV_BLANK);
    long double dot = 0, nn = 0, bb = 0, dd = 0;
    double maxabs = 0, maxrel = 0;
    int relnan = 0;
    size_t one = 0, five = 0;
    /* numpy compares a float32 array with the Python float threshold in float32 */
    double t1 = single ? (double)0.001f : 0.001, t5 = single ? (double)0.005f : 0.005;
    for (size_t i = 0; i < n; i++) {
        double a = isfinite(x[i]) ? x[i] : 0, b = isfinite(y[i]) ? y[i] : 0;
        double d = a - b;
        dot += (long double)a * b;
        nn += (long double)a * a;
        bb += (long double)b * b;
        dd += (long double)d * d;
        double ad = fabs(d);
        if (ad > maxabs || isnan(ad)) maxabs = ad;
        double r = rel_err(a, b, single);
        if (isnan(r)) relnan = 1;
        else if (r > maxrel) maxrel = r;
        if (r < t1) one++;
        if (r < t5) five++;
    }
    /* Cosine */
    double an = sqrt((double)nn), bn = sqrt((double)bb);
    if (n == 1) { out[TENSORCMP_COSINE].kind = CV_UNSUP; msgs |= 1u << TM_LEN1; }
    else if (an <= DBL_EPSILON && bn <= DBL_EPSILON) num(&out[TENSORCMP_COSINE], 1.0);
    else if (an <= DBL_EPSILON) { out[TENSORCMP_COSINE].kind = CV_NAN; msgs |= 1u << TM_COS_ALLZERO_NPU; }
    else if (bn <= DBL_EPSILON) { out[TENSORCMP_COSINE].kind = CV_NAN; msgs |= 1u << TM_COS_ALLZERO_BENCH; }
    else {
        double c = (double)dot / (an * bn);
        if (isnan(c)) { out[TENSORCMP_COSINE].kind = CV_NAN; msgs |= 1u << TM_COS_NAN; }
        else {
            c = round_dec(c, 12);
            if (c > 0.9999) c = round_dec(c, 6);
            num(&out[TENSORCMP_COSINE], c);
        }
    }
    num(&out[TENSORCMP_EUCDIST], sqrt((double)dd));
    if (isnan(maxabs)) { out[TENSORCMP_MAXABS].kind = CV_NAN; msgs |= 1u << TM_ABS_NAN; }
    else num(&out[TENSORCMP_MAXABS], round_dec(maxabs, 12));
    if (relnan) { out[TENSORCMP_MAXREL].kind = CV_NAN; msgs |= 1u << TM_REL_NAN; }
    else num(&out[TENSORCMP_MAXREL], round_dec(maxrel, 12));
    num(&out[TENSORCMP_ONE_THOUSANDTH], round_dec((double)one / (double)n, 12));
    num(&out[TENSORCMP_FIVE_THOUSANDTHS], round_dec((double)five / (double)n, 12));
    return msgs;
}
