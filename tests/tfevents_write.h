/* tfevents_write.h: a TensorBoard event file writer for the tests, apart
 * from the reader's code (its own bitwise CRC-32C, its own protobuf
 * encoding; the field numbers are those of probetop-formats(5), TRAINING
 * CURVES: TensorBoard event files).  tests/gen_tfevents.py is the same in
 * Python (the committed fixture, the fuzz seeds, the benchmark's data). */
#ifndef PT_TFEVENTS_WRITE_H
#define PT_TFEVENTS_WRITE_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tfw {
    uint8_t *b;
    size_t n, cap;
};

static void tfw_put(struct tfw *w, const void *p, size_t n) {
    if (w->n + n > w->cap) {
        w->cap = (w->n + n) * 2 + 64;
        w->b = realloc(w->b, w->cap);
        if (!w->b) abort();
    }
    if (n) memcpy(w->b + w->n, p, n);
    w->n += n;
}
static void tfw_varint(struct tfw *w, uint64_t v) {
    do {
        uint8_t b = (uint8_t)(v & 0x7f);
        v >>= 7;
        if (v) b |= 0x80;
        tfw_put(w, &b, 1);
    } while (v);
}
static void tfw_key(struct tfw *w, unsigned num, unsigned wt) { tfw_varint(w, (uint64_t)num << 3 | wt); }
static void tfw_len(struct tfw *w, unsigned num, const void *p, size_t n) {
    tfw_key(w, num, 2);
    tfw_varint(w, n);
    tfw_put(w, p, n);
}
static void tfw_sub(struct tfw *w, unsigned num, struct tfw *sub) {   /* frees sub */
    tfw_len(w, num, sub->b, sub->n);
    free(sub->b);
    memset(sub, 0, sizeof *sub);
}
static void tfw_le(struct tfw *w, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; i++) {
        uint8_t b = (uint8_t)(v >> (8 * i));
        tfw_put(w, &b, 1);
    }
}
static uint32_t tfw_crc32c(const uint8_t *p, size_t n) {
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0x82f63b78u & (0u - (c & 1)));
    }
    return ~c;
}
static uint32_t tfw_masked(const uint8_t *p, size_t n) {
    uint32_t c = tfw_crc32c(p, n);
    return ((c >> 15) | (c << 17)) + 0xa282ead8u;
}
/* One TFRecord of data into w. */
static void tfw_frame(struct tfw *w, const struct tfw *data) {
    uint8_t h[8];
    for (int i = 0; i < 8; i++) h[i] = (uint8_t)((uint64_t)data->n >> (8 * i));
    tfw_put(w, h, 8);
    tfw_le(w, tfw_masked(h, 8), 4);
    tfw_put(w, data->b, data->n);
    tfw_le(w, tfw_masked(data->b, data->n), 4);
}

enum tfw_kind {
    TFW_SIMPLE,        /* simple_value (float) */
    TFW_DOUBLE,        /* TF2: DT_DOUBLE scalar in double_val, with scalars metadata */
    TFW_DOUBLE_BARE,   /* the same without metadata (TF2 writes it on a tag's first event only) */
    TFW_FLOAT_CONTENT, /* DT_FLOAT scalar in tensor_content, no metadata */
    TFW_HISTO_TENSOR,  /* a DT_DOUBLE [2,3] tensor (a histogram), plugin "histograms" */
    TFW_TEXT_META,     /* a one-element DT_FLOAT tensor whose metadata names plugin "text" */
    TFW_HALF,          /* DT_HALF scalar of shape [1], its 16 bits in half_val (packed varints) */
};
struct tfw_val {
    const char *tag;
    enum tfw_kind kind;
    double x;
};

static void tfw_value(struct tfw *summary, const struct tfw_val *v) {
    struct tfw val = {0}, t = {0}, meta = {0}, pd = {0}, shape = {0}, dim = {0};
    tfw_len(&val, 1, v->tag, strlen(v->tag));
    if (v->kind == TFW_SIMPLE) {
        float f = (float)v->x;
        uint32_t bits;
        memcpy(&bits, &f, 4);
        tfw_key(&val, 2, 5);
        tfw_le(&val, bits, 4);
    } else if (v->kind == TFW_HALF) {   /* x must be exact in half precision */
        int e = 0;
        double m = frexp(fabs(v->x), &e);   /* |x| = m 2^e, m in [0.5, 1) */
        uint32_t h = v->x == 0 ? 0 : (uint32_t)((e + 14) << 10) | ((uint32_t)(m * 2048) & 0x3ff);
        if (v->x < 0) h |= 0x8000;
        tfw_key(&t, 1, 0);
        tfw_varint(&t, 19);
        tfw_key(&dim, 1, 0);
        tfw_varint(&dim, 1);
        tfw_sub(&shape, 2, &dim);
        tfw_sub(&t, 2, &shape);
        struct tfw raw = {0};
        tfw_varint(&raw, h);
        tfw_sub(&t, 13, &raw);
        tfw_sub(&val, 8, &t);
    } else {
        const char *plugin = v->kind == TFW_HISTO_TENSOR ? "histograms" : v->kind == TFW_TEXT_META ? "text" : "scalars";
        if (v->kind != TFW_FLOAT_CONTENT && v->kind != TFW_DOUBLE_BARE) {
            tfw_len(&pd, 1, plugin, strlen(plugin));
            tfw_sub(&meta, 1, &pd);
            tfw_sub(&val, 9, &meta);
        }
        int dbl = v->kind == TFW_DOUBLE || v->kind == TFW_DOUBLE_BARE || v->kind == TFW_HISTO_TENSOR;
        tfw_key(&t, 1, 0);
        tfw_varint(&t, dbl ? 2 : 1);
        if (v->kind == TFW_HISTO_TENSOR) {
            for (int d = 0; d < 2; d++) {
                tfw_key(&dim, 1, 0);
                tfw_varint(&dim, d ? 3 : 2);
                tfw_sub(&shape, 2, &dim);
            }
        }
        tfw_sub(&t, 2, &shape);
        uint64_t bits = 0;
        if (dbl) memcpy(&bits, &v->x, 8);
        else {
            float f = (float)v->x;
            uint32_t b32;
            memcpy(&b32, &f, 4);
            bits = b32;
        }
        struct tfw raw = {0};
        int nvals = v->kind == TFW_HISTO_TENSOR ? 6 : 1;
        for (int i = 0; i < nvals; i++) tfw_le(&raw, bits, dbl ? 8 : 4);
        tfw_sub(&t, v->kind == TFW_FLOAT_CONTENT ? 4 : dbl ? 6 : 5, &raw);
        tfw_sub(&val, 8, &t);
    }
    tfw_sub(summary, 1, &val);
}

/* An Event record (framed) into w: step, and n values (n 0 and version
 * set: the file_version record). */
static void tfw_event(struct tfw *w, int64_t step, const struct tfw_val *v, size_t n, const char *version) {
    struct tfw e = {0}, s = {0};
    double wall = 1.7e9 + (double)step;
    uint64_t wb;
    memcpy(&wb, &wall, 8);
    tfw_key(&e, 1, 1);
    tfw_le(&e, wb, 8);
    tfw_key(&e, 2, 0);
    tfw_varint(&e, (uint64_t)step);
    if (version) tfw_len(&e, 3, version, strlen(version));
    for (size_t i = 0; i < n; i++) tfw_value(&s, &v[i]);
    if (n) tfw_sub(&e, 5, &s);
    tfw_frame(w, &e);
    free(e.b);
    free(s.b);
}

static int tfw_save(const char *path, const struct tfw *w) {
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t k = w->n ? fwrite(w->b, 1, w->n, f) : 0;
    return fclose(f) == 0 && k == w->n ? 0 : -1;
}

#endif
