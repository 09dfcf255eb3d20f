/* read_npy: the .npy format (magic, version, header dict, raw data) read
 * with pread in bounded chunks; see read_npy.h.  The header is a Python
 * dict literal {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
 * parsed by hand: only those three keys, only those value forms. */
#include "src/io/dump/read_npy.h"
#include "model/util/fs.h"
#include "model/util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NPY_MAX_HEADER (1u << 20)

struct hdr {
    int dtype;          /* enum tensorcmp_dtype */
    int size;           /* bytes per element */
    int big;            /* big-endian data */
    int fortran;
    int ndim;
    uint64_t shape[TENSORCMP_MAXDIM];
    int have_descr, have_fortran, have_shape;
};

static int host_big(void) {
    const uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 0;
}

/* ---- the header dict ---- */

struct lex { const char *s, *e; };

static void ws(struct lex *l) {
    while (l->s < l->e && (*l->s == ' ' || *l->s == '\t' || *l->s == '\n' || *l->s == '\r')) l->s++;
}

static int lit(struct lex *l, const char *w) {
    size_t n = strlen(w);
    if ((size_t)(l->e - l->s) < n || memcmp(l->s, w, n)) return 0;
    l->s += n;
    return 1;
}

/* A quoted Python string (no escapes: none of the keys or dtypes need them). */
static int pystr(struct lex *l, char *out, size_t size) {
    ws(l);
    if (l->s >= l->e || (*l->s != '\'' && *l->s != '"')) return 0;
    char q = *l->s++;
    size_t n = 0;
    while (l->s < l->e && *l->s != q) {
        if (*l->s == '\\' || n + 1 >= size) return 0;
        out[n++] = *l->s++;
    }
    if (l->s >= l->e) return 0;
    l->s++;
    out[n] = '\0';
    return 1;
}

static int descr(const char *d, struct hdr *h, const char *path, struct pt_error *err) {
    if (!strcmp(d, "bfloat16") || !strcmp(d, "<bfloat16")) {   /* not NumPy's; some writers name it so */
        h->dtype = TENSORCMP_BF16;
        h->size = 2;
        h->big = 0;
        return 0;
    }
    const char *p = d;
    h->big = host_big();
    if (*p == '<' || *p == '|') { h->big = 0; p++; }
    else if (*p == '>') { h->big = 1; p++; }
    else if (*p == '=') p++;
    char k = *p;
    char *end;
    long sz = strtol(p + 1, &end, 10);
    if (!k || *end || end == p + 1) sz = -1;
    static const struct { char k; long sz; int dt; } map[] = {
        {'b', 1, TENSORCMP_BOOL}, {'?', 1, TENSORCMP_BOOL}, {'i', 1, TENSORCMP_I8}, {'u', 1, TENSORCMP_U8}, {'i', 2, TENSORCMP_I16}, {'u', 2, TENSORCMP_U16},
        {'i', 4, TENSORCMP_I32}, {'u', 4, TENSORCMP_U32}, {'i', 8, TENSORCMP_I64}, {'u', 8, TENSORCMP_U64}, {'f', 2, TENSORCMP_F16}, {'f', 4, TENSORCMP_F32},
        {'f', 8, TENSORCMP_F64}};
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (map[i].k == k && map[i].sz == sz) {
            h->dtype = map[i].dt;
            h->size = (int)sz;
            return 0;
        }
    if (k == 'O') return pt_errorf(err, "%s: holds Python objects (dtype '%s'), which only Python can read", path, d);
    if (k == 'U' || k == 'S' || k == 'a')
        return pt_errorf(err, "%s: holds strings (dtype '%s'), not numbers", path, d);
    if (k == 'c') return pt_errorf(err, "%s: holds complex numbers (dtype '%s'), which are not compared", path, d);
    return pt_errorf(err, "%s: unsupported dtype '%s' (expected bool, int8-64, uint8-64, float16/32/64)", path, d);
}

static int parse_header(const char *text, size_t len, struct hdr *h, const char *path, struct pt_error *err) {
    struct lex l = {text, text + len};
    char key[64], val[64];
    ws(&l);
    if (!lit(&l, "{")) return pt_errorf(err, "%s: the header is not a Python dict", path);
    for (;;) {
        ws(&l);
        if (lit(&l, "}")) break;
        if (!pystr(&l, key, sizeof key)) return pt_errorf(err, "%s: bad key in the header dict", path);
        ws(&l);
        if (!lit(&l, ":")) return pt_errorf(err, "%s: header dict: ':' expected after '%s'", path, key);
        ws(&l);
        if (!strcmp(key, "descr")) {
            if (l.s < l.e && *l.s == '[')
                return pt_errorf(err, "%s: a structured dtype (descr is a list) is not a tensor", path);
            if (!pystr(&l, val, sizeof val)) return pt_errorf(err, "%s: header: 'descr' is not a dtype string", path);
            if (descr(val, h, path, err) != 0) return -1;
            h->have_descr = 1;
        } else if (!strcmp(key, "fortran_order")) {
            if (lit(&l, "True")) h->fortran = 1;
            else if (lit(&l, "False")) h->fortran = 0;
            else return pt_errorf(err, "%s: header: 'fortran_order' is not True or False", path);
            h->have_fortran = 1;
        } else if (!strcmp(key, "shape")) {
            if (!lit(&l, "(")) return pt_errorf(err, "%s: header: 'shape' is not a tuple", path);
            h->ndim = 0;
            for (;;) {
                ws(&l);
                if (lit(&l, ")")) break;
                if (l.s >= l.e || *l.s < '0' || *l.s > '9')
                    return pt_errorf(err, "%s: header: 'shape' holds something other than sizes", path);
                uint64_t v = 0;
                while (l.s < l.e && *l.s >= '0' && *l.s <= '9') {
                    if (v > ((uint64_t)1 << 58)) return pt_errorf(err, "%s: header: a dimension is too large", path);
                    v = v * 10 + (uint64_t)(*l.s++ - '0');
                }
                lit(&l, "L");   /* Python 2 longs */
                if (h->ndim == TENSORCMP_MAXDIM) return pt_errorf(err, "%s: more than %d dimensions", path, TENSORCMP_MAXDIM);
                h->shape[h->ndim++] = v;
                ws(&l);
                if (lit(&l, ",")) continue;
                if (lit(&l, ")")) break;
                return pt_errorf(err, "%s: header: bad 'shape' tuple", path);
            }
            h->have_shape = 1;
        } else
            return pt_errorf(err, "%s: unexpected key '%s' in the header", path, key);
        ws(&l);
        if (lit(&l, ",")) continue;
        if (lit(&l, "}")) break;
        return pt_errorf(err, "%s: header dict: ',' or '}' expected", path);
    }
    if (!h->have_descr || !h->have_fortran || !h->have_shape)
        return pt_errorf(err, "%s: the header lacks %s", path,
                         !h->have_descr ? "'descr'" : !h->have_fortran ? "'fortran_order'" : "'shape'");
    return 0;
}

/* ---- data ---- */

static double half(uint16_t h) {
    int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
    double v;
    if (e == 0) v = ldexp(m, -24);
    else if (e == 31) v = m ? NAN : INFINITY;
    else v = ldexp(m + 1024, e - 25);
    return s ? -v : v;
}

static uint64_t load(const unsigned char *b, int size, int big) {
    uint64_t v = 0;
    for (int i = 0; i < size; i++) v |= (uint64_t)b[big ? size - 1 - i : i] << (8 * i);
    return v;
}

static double convert(const unsigned char *b, const struct hdr *h) {
    uint64_t u = load(b, h->size, h->big);
    switch (h->dtype) {
    case TENSORCMP_BOOL: return u ? 1.0 : 0.0;
    case TENSORCMP_I8: return (double)(int8_t)u;
    case TENSORCMP_U8: return (double)(uint8_t)u;
    case TENSORCMP_I16: return (double)(int16_t)u;
    case TENSORCMP_U16: return (double)(uint16_t)u;
    case TENSORCMP_I32: return (double)(int32_t)u;
    case TENSORCMP_U32: return (double)(uint32_t)u;
    case TENSORCMP_I64: return (double)(int64_t)u;
    case TENSORCMP_U64: return (double)u;
    case TENSORCMP_F16: return half((uint16_t)u);
    case TENSORCMP_BF16: {
        uint32_t w = (uint32_t)u << 16;
        float f;
        memcpy(&f, &w, 4);
        return f;
    }
    case TENSORCMP_F32: {
        uint32_t w = (uint32_t)u;
        float f;
        memcpy(&f, &w, 4);
        return f;
    }
    default: {
        double d;
        memcpy(&d, &u, 8);
        return d;
    }
    }
}

static int read_file(int fd, const char *path, off_t fsize, struct tensorcmp_tensor *out, struct pt_error *err) {
    unsigned char pre[12];
    if (fsize < 10 || fs_pread_all(fd, pre, fsize < 12 ? (size_t)fsize : 12, 0) != 0)
        return pt_errorf(err, "%s: truncated: %lld bytes, too short for a .npy header", path, (long long)fsize);
    if (memcmp(pre, "\x93NUMPY", 6)) return pt_errorf(err, "%s: not a NumPy .npy file (no \\x93NUMPY magic)", path);
    int major = pre[6], minor = pre[7];
    uint64_t hlen;
    off_t off;
    if (major == 1) { hlen = load(pre + 8, 2, 0); off = 10; }
    else if (major == 2 || major == 3) {
        if (fsize < 12) return pt_errorf(err, "%s: truncated in the .npy preamble", path);
        hlen = load(pre + 8, 4, 0);
        off = 12;
    } else return pt_errorf(err, "%s: unsupported .npy format version %d.%d", path, major, minor);
    if (hlen > (uint64_t)(fsize - off))
        return pt_errorf(err, "%s: the header length (%llu bytes) runs past the end of the file (%lld bytes)", path,
                         (unsigned long long)hlen, (long long)fsize);
    if (hlen > NPY_MAX_HEADER)
        return pt_errorf(err, "%s: a header of %llu bytes is not a tensor's", path, (unsigned long long)hlen);
    char *text = malloc((size_t)hlen + 1);
    if (!text) return pt_errorf(err, "out of memory");
    if (fs_pread_all(fd, text, (size_t)hlen, off) != 0) {
        free(text);
        return pt_errorf(err, "%s: read error in the header", path);
    }
    text[hlen] = '\0';
    struct hdr h;
    memset(&h, 0, sizeof h);
    int rc = parse_header(text, (size_t)hlen, &h, path, err);
    free(text);
    if (rc != 0) return -1;
    off += (off_t)hlen;
    /* element count, overflow-checked, then bounded by the real data */
    uint64_t n = 1;
    for (int i = 0; i < h.ndim; i++) {
        if (h.shape[i] && n > UINT64_MAX / h.shape[i])
            return pt_errorf(err, "%s: the shape's element count overflows", path);
        n *= h.shape[i];
    }
    uint64_t avail = (uint64_t)(fsize - off);
    if (n > avail / (uint64_t)h.size)
        return pt_errorf(err, "%s: truncated: the shape needs %llu elements of %d bytes, the file holds %llu bytes of data",
                         path, (unsigned long long)n, h.size, (unsigned long long)avail);
    if (n > NPY_MAX_ELEMS)
        return pt_errorf(err, "%s: %llu elements is more than probetop compares (%llu)", path, (unsigned long long)n,
                         (unsigned long long)NPY_MAX_ELEMS);
    out->ndim = h.ndim;
    memcpy(out->shape, h.shape, sizeof h.shape);
    out->dtype = h.dtype;
    out->n = (size_t)n;
    out->v = NULL;
    if (!n) return 0;
    out->v = malloc((size_t)n * sizeof *out->v);
    unsigned char *chunk = malloc(1 << 16);
    if (!out->v || !chunk) {
        free(out->v);
        free(chunk);
        out->v = NULL;
        return pt_errorf(err, "out of memory reading %s", path);
    }
    /* Fortran order: element k of the file is the multi-index with the first
     * dimension varying fastest; walk that index and its C offset together. */
    int fort = h.fortran && h.ndim > 1;
    uint64_t idx[TENSORCMP_MAXDIM] = {0}, cstride[TENSORCMP_MAXDIM];
    if (fort) {
        uint64_t s = 1;
        for (int i = h.ndim - 1; i >= 0; i--) { cstride[i] = s; s *= h.shape[i]; }
    }
    uint64_t coff = 0;
    size_t per = (1 << 16) / (size_t)h.size;
    for (uint64_t k = 0; k < n;) {
        size_t take = n - k < per ? (size_t)(n - k) : per;
        if (fs_pread_all(fd, chunk, take * (size_t)h.size, off + (off_t)(k * (uint64_t)h.size)) != 0) {
            free(chunk);
            free(out->v);
            out->v = NULL;
            return pt_errorf(err, "%s: read error in the data", path);
        }
        for (size_t j = 0; j < take; j++, k++) {
            double v = convert(chunk + j * (size_t)h.size, &h);
            if (!fort) { out->v[k] = v; continue; }
            out->v[coff] = v;
            for (int d = 0; d < h.ndim; d++) {
                idx[d]++;
                coff += cstride[d];
                if (idx[d] < h.shape[d]) break;
                coff -= idx[d] * cstride[d];
                idx[d] = 0;
            }
        }
    }
    free(chunk);
    return 0;
}

int npy_read(const char *path, struct tensorcmp_tensor *out, struct pt_error *err) {
    memset(out, 0, sizeof *out);
    /* O_NONBLOCK: opening a FIFO must not wait for a writer */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return pt_errorf(err, "%s: %s", path, strerror(errno));
    struct stat st;
    int rc;
    if (fstat(fd, &st) != 0) rc = pt_errorf(err, "%s: %s", path, strerror(errno));
    else if (S_ISDIR(st.st_mode)) rc = pt_errorf(err, "%s: is a folder, not a .npy file", path);
    else if (!S_ISREG(st.st_mode)) rc = pt_errorf(err, "%s: not a regular file", path);
    else rc = read_file(fd, path, st.st_size, out, err);
    close(fd);
    return rc;
}

int npy_tensor_load(void *ctx, const struct tree *t, const struct tparam *p, struct tensorcmp_tensor *out,
                    struct pt_error *err) {
    (void)ctx;
    memset(out, 0, sizeof *out);
    const char *dn = tree_s(t, p->data_name);
    if (!dn || !*dn || !strcmp(dn, "-1")) return pt_errorf(err, "no tensor file for this param");
    char esc[512];
    /* a data_name is a file name inside dump_tensor_data, never a path */
    if (strchr(dn, '/') || !strcmp(dn, ".") || !strcmp(dn, ".."))
        return pt_errorf(err, "data_name \"%s\" is not a file name", pt_escape(dn, strlen(dn), esc, sizeof esc));
    if (util_ends_with(dn, ".pt"))
        return pt_errorf(err, "%s is a PyTorch .pt file: probetop reads .npy tensors only",
                         pt_escape(dn, strlen(dn), esc, sizeof esc));
    char path[8192];
    snprintf(path, sizeof path, "%s/dump_tensor_data/%s", t->path ? t->path : ".", dn);
    return npy_read(path, out, err);
}

static int has_pt(const struct tree *t) {
    for (size_t i = 0; i < t->nparams; i++) {
        const char *dn = tree_s(t, t->params[i].data_name);
        if (dn && util_ends_with(dn, ".pt")) return 1;
    }
    return 0;
}

const char *npy_setup_opts(struct cmp_opts *o, const struct tree *npu, const struct tree *bench) {
    o->tensor = NULL;
    o->tensor_ctx = NULL;
    if (strcmp(npu->task, "tensor") || strcmp(bench->task, "tensor")) return NULL;
    if (has_pt(npu) || has_pt(bench)) return "tensor files are PyTorch .pt: comparing statistics";
    o->tensor = npy_tensor_load;
    return NULL;
}
