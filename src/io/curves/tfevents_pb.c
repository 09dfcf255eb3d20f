/* tfevents_pb: Event / Summary / TensorProto wire decoding (see tfevents_pb.h). */
#include "src/io/curves/tfevents_pb.h"

#include <math.h>
#include <string.h>

/* DataType values (types.proto) */
#define DT_FLOAT 1
#define DT_DOUBLE 2
#define DT_BFLOAT16 14
#define DT_HALF 19

enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2, WT_I32 = 5 };

struct rd {
    const uint8_t *p, *end;
    const char *why;
};

static int varint(struct rd *r, uint64_t *out) {
    uint64_t v = 0;
    for (int i = 0; i < 10; i++) {
        if (r->p >= r->end) { r->why = "a varint runs past its message's end"; return -1; }
        uint8_t b = *r->p++;
        v |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) { *out = v; return 0; }
    }
    r->why = "a varint longer than 10 bytes";
    return -1;
}

/* The next field's number and wire type; 0, 1 at the end, -1 malformed. */
static int field(struct rd *r, uint32_t *num, int *wt) {
    if (r->p >= r->end) return 1;
    uint64_t key;
    if (varint(r, &key)) return -1;
    *wt = (int)(key & 7);
    uint64_t f = key >> 3;
    if (f == 0 || f > 536870911u) { r->why = "a field number out of range"; return -1; }
    *num = (uint32_t)f;
    if (*wt != WT_VARINT && *wt != WT_I64 && *wt != WT_LEN && *wt != WT_I32) {
        r->why = "a wire type that is no protobuf one (or a group)";
        return -1;
    }
    return 0;
}

static int len_field(struct rd *r, const uint8_t **s, size_t *n) {
    uint64_t len;
    if (varint(r, &len)) return -1;
    if (len > (uint64_t)(r->end - r->p)) { r->why = "a length past its message's end"; return -1; }
    *s = r->p;
    *n = (size_t)len;
    r->p += len;
    return 0;
}

static int fixed(struct rd *r, int bytes, uint64_t *v) {
    if (r->end - r->p < bytes) { r->why = "a fixed-width field past its message's end"; return -1; }
    uint64_t x = 0;
    for (int i = 0; i < bytes; i++) x |= (uint64_t)r->p[i] << (8 * i);
    r->p += bytes;
    *v = x;
    return 0;
}

static int skip(struct rd *r, int wt) {
    uint64_t v;
    const uint8_t *s;
    size_t n;
    switch (wt) {
    case WT_VARINT: return varint(r, &v);
    case WT_I64: return fixed(r, 8, &v);
    case WT_I32: return fixed(r, 4, &v);
    default: return len_field(r, &s, &n);
    }
}

static double f32(uint64_t bits) {
    uint32_t b = (uint32_t)bits;
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}
static double f64(uint64_t bits) {
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}
static double half(uint32_t h) {
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m + 1024, e - 25);
    return h & 0x8000 ? -v : v;
}
static double bf16(uint32_t h) { return f32((uint64_t)(h & 0xffff) << 16); }

int tfevents_pb_event(const uint8_t *p, size_t n, struct tfevents_pb_event *ev, const char **why) {
    struct rd r = {p, p + n, NULL};
    memset(ev, 0, sizeof *ev);
    for (;;) {
        uint32_t num;
        int wt, k = field(&r, &num, &wt);
        if (k > 0) return 0;
        uint64_t v = 0;
        if (k == 0 && num == 1 && wt == WT_I64) k = fixed(&r, 8, &v), ev->wall_time = f64(v);
        else if (k == 0 && num == 2 && wt == WT_VARINT) k = varint(&r, &v), ev->step = (int64_t)v;
        else if (k == 0 && num == 3 && wt == WT_LEN) k = len_field(&r, &ev->file_version, &ev->file_version_len);
        else if (k == 0 && num == 5 && wt == WT_LEN) k = len_field(&r, &ev->summary, &ev->summary_len);
        else if (k == 0) k = skip(&r, wt);
        if (k) { *why = r.why; return -1; }
    }
}

/* SummaryMetadata: the plugin's name and the data class. */
static int metadata(const uint8_t *p, size_t n, struct tfevents_pb_value *v, const char **why) {
    struct rd r = {p, p + n, NULL};
    v->plugin = p;   /* metadata given: an empty plugin name until one is read */
    v->plugin_len = 0;
    for (;;) {
        uint32_t num;
        int wt, k = field(&r, &num, &wt);
        if (k > 0) return 0;
        const uint8_t *s = NULL;
        size_t sn = 0;
        uint64_t x;
        if (k == 0 && num == 1 && wt == WT_LEN) {   /* PluginData */
            k = len_field(&r, &s, &sn);
            struct rd q = {s, k ? s : s + sn, NULL};   /* s + sn only once len_field set them (no NULL + 0) */
            while (!k) {
                uint32_t qn;
                int qw, e = field(&q, &qn, &qw);
                if (e > 0) break;
                if (e == 0 && qn == 1 && qw == WT_LEN) e = len_field(&q, &v->plugin, &v->plugin_len);
                else if (e == 0) e = skip(&q, qw);
                if (e) { r.why = q.why; k = -1; }
            }
        } else if (k == 0 && num == 4 && wt == WT_VARINT) {
            k = varint(&r, &x);
            v->data_class = (int)(x & 0x7fffffff);
        } else if (k == 0) k = skip(&r, wt);
        if (k) { *why = r.why; return -1; }
    }
}

/* TensorShapeProto: the product of its dims' sizes (-1 unknown rank or a
 * negative size, saturating at 2). */
static int shape_elems(const uint8_t *p, size_t n, int64_t *elems, const char **why) {
    struct rd r = {p, p + n, NULL};
    *elems = 1;
    for (;;) {
        uint32_t num;
        int wt, k = field(&r, &num, &wt);
        if (k > 0) return 0;
        const uint8_t *s;
        size_t sn;
        uint64_t x;
        if (k == 0 && num == 2 && wt == WT_LEN) {   /* Dim */
            k = len_field(&r, &s, &sn);
            struct rd q = {s, s + sn, NULL};
            int64_t size = 0;
            while (!k) {
                uint32_t qn;
                int qw, e = field(&q, &qn, &qw);
                if (e > 0) break;
                if (e == 0 && qn == 1 && qw == WT_VARINT) e = varint(&q, &x), size = (int64_t)x;
                else if (e == 0) e = skip(&q, qw);
                if (e) { r.why = q.why; k = -1; }
            }
            if (!k && *elems >= 0) {
                if (size < 0) *elems = -1;
                else *elems = *elems * (size > 2 ? 2 : size) > 2 ? 2 : *elems * (size > 2 ? 2 : size);
            }
        } else if (k == 0 && num == 3 && wt == WT_VARINT) {   /* unknown_rank */
            k = varint(&r, &x);
            if (!k && x) *elems = -1;
        } else if (k == 0) k = skip(&r, wt);
        if (k) { *why = r.why; return -1; }
    }
}

/* The first element of a repeated fixed-width field, packed (LEN) or not. */
static int first_fixed(struct rd *r, int wt, int bytes, int *have, uint64_t *bits) {
    if (wt == WT_LEN) {
        const uint8_t *s;
        size_t n;
        if (len_field(r, &s, &n)) return -1;
        if (n % (size_t)bytes) { r->why = "a packed repeated field whose length is no multiple of its element"; return -1; }
        if (n && !*have) {
            struct rd q = {s, s + n, NULL};
            fixed(&q, bytes, bits);
            *have = 1;
        }
        return 0;
    }
    if (wt != (bytes == 4 ? WT_I32 : WT_I64)) return skip(r, wt);
    uint64_t x;
    if (fixed(r, bytes, &x)) return -1;
    if (!*have) *bits = x, *have = 1;
    return 0;
}

static int first_varint(struct rd *r, int wt, int *have, uint64_t *out) {
    if (wt == WT_LEN) {
        const uint8_t *s;
        size_t n;
        if (len_field(r, &s, &n)) return -1;
        struct rd q = {s, s + n, NULL};
        uint64_t x;
        while (q.p < q.end) {   /* every element must be well formed */
            if (varint(&q, &x)) { r->why = q.why; return -1; }
            if (!*have) *out = x, *have = 1;
        }
        return 0;
    }
    if (wt != WT_VARINT) return skip(r, wt);
    uint64_t x;
    if (varint(r, &x)) return -1;
    if (!*have) *out = x, *have = 1;
    return 0;
}

/* TensorProto: the scalar of a one-element floating-point tensor. */
static int tensor(const uint8_t *p, size_t n, struct tfevents_pb_value *v, const char **why) {
    struct rd r = {p, p + n, NULL};
    uint64_t dtype = 0, fbits = 0, dbits = 0, hbits = 0;
    int hf = 0, hd = 0, hh = 0;
    int64_t elems = 1;
    const uint8_t *content = NULL;
    size_t content_len = 0;
    for (;;) {
        uint32_t num;
        int wt, k = field(&r, &num, &wt);
        if (k > 0) break;
        const uint8_t *s;
        size_t sn;
        if (k == 0 && num == 1 && wt == WT_VARINT) k = varint(&r, &dtype);
        else if (k == 0 && num == 2 && wt == WT_LEN) k = len_field(&r, &s, &sn) || shape_elems(s, sn, &elems, &r.why);
        else if (k == 0 && num == 4 && wt == WT_LEN) k = len_field(&r, &content, &content_len);
        else if (k == 0 && num == 5) k = first_fixed(&r, wt, 4, &hf, &fbits);
        else if (k == 0 && num == 6) k = first_fixed(&r, wt, 8, &hd, &dbits);
        else if (k == 0 && num == 13) k = first_varint(&r, wt, &hh, &hbits);
        else if (k == 0) k = skip(&r, wt);
        if (k) { *why = r.why; return -1; }
    }
    v->kind = TFEVENTS_PB_OTHER_TENSOR;
    if (elems != 1) return 0;
    static const uint8_t none[1];
    if (!content) content = none;
    struct rd c = {content, content + content_len, NULL};
    uint64_t bits;
    switch (dtype) {
    case DT_FLOAT:
        if (hf) v->value = f32(fbits);
        else if (content_len == 4 && !fixed(&c, 4, &bits)) v->value = f32(bits);
        else return 0;
        break;
    case DT_DOUBLE:
        if (hd) v->value = f64(dbits);
        else if (content_len == 8 && !fixed(&c, 8, &bits)) v->value = f64(bits);
        else return 0;
        break;
    case DT_HALF:
    case DT_BFLOAT16:
        if (!hh && content_len == 2 && !fixed(&c, 2, &bits)) hbits = bits, hh = 1;
        if (!hh) return 0;
        v->value = dtype == DT_HALF ? half((uint32_t)hbits & 0xffff) : bf16((uint32_t)hbits);
        break;
    default:
        return 0;
    }
    v->kind = TFEVENTS_PB_TENSOR;
    return 0;
}

/* One Value: its tag, metadata and scalar (the value is a oneof: the
 * member set last wins).  0 or -1. */
static int value(const uint8_t *p, size_t n, struct tfevents_pb_value *v, const char **why) {
    struct rd r = {p, p + n, NULL};
    memset(v, 0, sizeof *v);
    const uint8_t *ts = NULL;
    size_t tn = 0;
    for (;;) {
        uint32_t num;
        int wt, k = field(&r, &num, &wt);
        if (k > 0) break;
        const uint8_t *s;
        size_t sn;
        uint64_t x;
        if (k == 0 && num == 1 && wt == WT_LEN) k = len_field(&r, &v->tag, &v->tag_len);
        else if (k == 0 && num == 2 && wt == WT_I32) {
            k = fixed(&r, 4, &x);
            v->kind = TFEVENTS_PB_SIMPLE;
            v->value = f32(x);
            ts = NULL;
        } else if (k == 0 && num == 8 && wt == WT_LEN) {
            k = len_field(&r, &ts, &tn);
            v->kind = TFEVENTS_PB_NONE;
        } else if (k == 0 && num == 9 && wt == WT_LEN) k = len_field(&r, &s, &sn) || metadata(s, sn, v, &r.why);
        else if (k == 0 && num >= 3 && num <= 6 && wt == WT_LEN) {   /* old histogram, image, histo, audio */
            k = skip(&r, wt);
            v->kind = TFEVENTS_PB_NONE;
            ts = NULL;
        } else if (k == 0) k = skip(&r, wt);
        if (k) { *why = r.why; return -1; }
    }
    return ts ? tensor(ts, tn, v, why) : 0;
}

int tfevents_pb_summary(const uint8_t *p, size_t n, tfevents_pb_fn fn, void *ctx, const char **why) {
    struct rd r = {p, p + n, NULL};
    for (;;) {
        uint32_t num;
        int wt, k = field(&r, &num, &wt);
        if (k > 0) return 0;
        const uint8_t *s;
        size_t sn;
        if (k == 0 && num == 1 && wt == WT_LEN) {
            struct tfevents_pb_value v;
            k = len_field(&r, &s, &sn);
            if (!k && value(s, sn, &v, why) != 0) return -1;
            if (!k && (k = fn(ctx, &v)) != 0) return k;
        } else if (k == 0) k = skip(&r, wt);
        if (k) { *why = r.why; return -1; }
    }
}
