/* read_graph: dump.json / construct.json / stack.json into a struct tree.
 *
 * dump.json goes through the pull tokenizer record by record: each record
 * becomes a small value tree in a scratch arena (reset per record), which
 * is flattened into params and dropped.  The tokenizer is used rather than
 * cJSON because msProbe's output depends on whether a number was written
 * as an int ("2") or a float ("2.0"), which cJSON forgets. */
#include "src/io/dump/read_graph.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/compare/compare.h"
#include "model/util/arena.h"
#include "model/util/fs.h"
#include "model/util/rankdirs.h"
#include "model/util/util.h"
#include "src/io/common/json.h"
#include "src/io/dump/dump_stream.h"
#include "src/io/dump/graph_jv.h"
#include "src/io/dump/origin_light.h"
#include "src/io/dump/read_dump.h"
#include "src/io/dump/read_stack.h"


/* ---- Python text of values ---- */

struct sbuf { char *b; size_t n, cap; int oom; };

static void sb_add(struct sbuf *s, const char *t, size_t len) {
    if (s->oom) return;
    if (util_grow((void **)&s->b, &s->cap, s->n + len + 1, 1) != 0) { s->oom = 1; return; }
    memcpy(s->b + s->n, t, len);
    s->n += len;
    s->b[s->n] = '\0';
}
static void sb_str(struct sbuf *s, const char *t) { sb_add(s, t, strlen(t)); }

static void py_num(const struct jv *v, struct sbuf *s) {
    char buf[64];
    if (v->is_int) {
        /* Python keeps big ints exact: print the literal */
        sb_add(s, v->s, v->slen);
        return;
    }
    sb_str(s, cmp_pyfloat(v->d, buf, sizeof buf));
}

/* str(value) (top) or repr(value) (inside containers). */
static void py_text(const struct jv *v, struct sbuf *s, int top) {
    switch (v->t) {
    case J_NULL: sb_str(s, "None"); break;
    case J_TRUE: sb_str(s, "True"); break;
    case J_FALSE: sb_str(s, "False"); break;
    case J_NUM: py_num(v, s); break;
    case J_STR:
        if (top) sb_add(s, v->s, v->slen);
        else {
            int dq = memchr(v->s, '\'', v->slen) && !memchr(v->s, '"', v->slen);
            sb_str(s, dq ? "\"" : "'");
            for (size_t i = 0; i < v->slen; i++) {
                char c = v->s[i];
                if (c == '\\') sb_str(s, "\\\\");
                else if (c == '\n') sb_str(s, "\\n");
                else if (c == '\t') sb_str(s, "\\t");
                else if (c == '\'' && !dq) sb_str(s, "\\'");
                else sb_add(s, &c, 1);
            }
            sb_str(s, dq ? "\"" : "'");
        }
        break;
    case J_ARR:
        sb_str(s, "[");
        for (uint32_t i = 0; i < v->n; i++) {
            if (i) sb_str(s, ", ");
            py_text(&v->kids[i], s, 0);
        }
        sb_str(s, "]");
        break;
    case J_OBJ:
        sb_str(s, "{");
        for (uint32_t i = 0; i < v->n; i++) {
            struct jv k = {.t = J_STR, .s = v->keys[i], .slen = v->klens[i]};
            if (i) sb_str(s, ", ");
            py_text(&k, s, 0);
            sb_str(s, ": ");
            py_text(&v->kids[i], s, 0);
        }
        sb_str(s, "}");
        break;
    }
}

static uint32_t pool_text(struct tree *t, const struct jv *v, struct sbuf *s) {
    s->n = 0;
    if (s->b) s->b[0] = '\0';
    py_text(v, s, 1);
    if (s->oom) return TREE_NONE;
    return tree_str(t, s->b ? s->b : "", s->n);
}

static void to_tval(struct tree *t, const struct jv *v, struct tval *o, struct sbuf *s) {
    memset(o, 0, sizeof *o);
    if (!v) { o->kind = TV_NONE; return; }
    switch (v->t) {
    case J_NULL: o->kind = TV_NONE; break;
    case J_TRUE: case J_FALSE: o->kind = TV_BOOL; o->integer = v->t == J_TRUE; break;
    case J_NUM:
        if (v->is_int) { o->kind = TV_INT; o->integer = v->i; o->text = tree_str(t, v->s, v->slen); }
        else { o->kind = TV_FLOAT; o->real = v->d; }
        break;
    case J_STR: o->kind = TV_STR; o->text = tree_str(t, v->s, v->slen); break;
    default: o->kind = TV_STR; o->is_repr = 1; o->text = pool_text(t, v, s); break;
    }
}

/* CRC-32 (zlib's polynomial 0xedb88320), the table written out: a table
 * filled on first use would be shared state between reader threads. */
static const uint32_t crc_table[256] = {
    0x00000000u, 0x77073096u, 0xee0e612cu, 0x990951bau, 0x076dc419u, 0x706af48fu,
    0xe963a535u, 0x9e6495a3u, 0x0edb8832u, 0x79dcb8a4u, 0xe0d5e91eu, 0x97d2d988u,
    0x09b64c2bu, 0x7eb17cbdu, 0xe7b82d07u, 0x90bf1d91u, 0x1db71064u, 0x6ab020f2u,
    0xf3b97148u, 0x84be41deu, 0x1adad47du, 0x6ddde4ebu, 0xf4d4b551u, 0x83d385c7u,
    0x136c9856u, 0x646ba8c0u, 0xfd62f97au, 0x8a65c9ecu, 0x14015c4fu, 0x63066cd9u,
    0xfa0f3d63u, 0x8d080df5u, 0x3b6e20c8u, 0x4c69105eu, 0xd56041e4u, 0xa2677172u,
    0x3c03e4d1u, 0x4b04d447u, 0xd20d85fdu, 0xa50ab56bu, 0x35b5a8fau, 0x42b2986cu,
    0xdbbbc9d6u, 0xacbcf940u, 0x32d86ce3u, 0x45df5c75u, 0xdcd60dcfu, 0xabd13d59u,
    0x26d930acu, 0x51de003au, 0xc8d75180u, 0xbfd06116u, 0x21b4f4b5u, 0x56b3c423u,
    0xcfba9599u, 0xb8bda50fu, 0x2802b89eu, 0x5f058808u, 0xc60cd9b2u, 0xb10be924u,
    0x2f6f7c87u, 0x58684c11u, 0xc1611dabu, 0xb6662d3du, 0x76dc4190u, 0x01db7106u,
    0x98d220bcu, 0xefd5102au, 0x71b18589u, 0x06b6b51fu, 0x9fbfe4a5u, 0xe8b8d433u,
    0x7807c9a2u, 0x0f00f934u, 0x9609a88eu, 0xe10e9818u, 0x7f6a0dbbu, 0x086d3d2du,
    0x91646c97u, 0xe6635c01u, 0x6b6b51f4u, 0x1c6c6162u, 0x856530d8u, 0xf262004eu,
    0x6c0695edu, 0x1b01a57bu, 0x8208f4c1u, 0xf50fc457u, 0x65b0d9c6u, 0x12b7e950u,
    0x8bbeb8eau, 0xfcb9887cu, 0x62dd1ddfu, 0x15da2d49u, 0x8cd37cf3u, 0xfbd44c65u,
    0x4db26158u, 0x3ab551ceu, 0xa3bc0074u, 0xd4bb30e2u, 0x4adfa541u, 0x3dd895d7u,
    0xa4d1c46du, 0xd3d6f4fbu, 0x4369e96au, 0x346ed9fcu, 0xad678846u, 0xda60b8d0u,
    0x44042d73u, 0x33031de5u, 0xaa0a4c5fu, 0xdd0d7cc9u, 0x5005713cu, 0x270241aau,
    0xbe0b1010u, 0xc90c2086u, 0x5768b525u, 0x206f85b3u, 0xb966d409u, 0xce61e49fu,
    0x5edef90eu, 0x29d9c998u, 0xb0d09822u, 0xc7d7a8b4u, 0x59b33d17u, 0x2eb40d81u,
    0xb7bd5c3bu, 0xc0ba6cadu, 0xedb88320u, 0x9abfb3b6u, 0x03b6e20cu, 0x74b1d29au,
    0xead54739u, 0x9dd277afu, 0x04db2615u, 0x73dc1683u, 0xe3630b12u, 0x94643b84u,
    0x0d6d6a3eu, 0x7a6a5aa8u, 0xe40ecf0bu, 0x9309ff9du, 0x0a00ae27u, 0x7d079eb1u,
    0xf00f9344u, 0x8708a3d2u, 0x1e01f268u, 0x6906c2feu, 0xf762575du, 0x806567cbu,
    0x196c3671u, 0x6e6b06e7u, 0xfed41b76u, 0x89d32be0u, 0x10da7a5au, 0x67dd4accu,
    0xf9b9df6fu, 0x8ebeeff9u, 0x17b7be43u, 0x60b08ed5u, 0xd6d6a3e8u, 0xa1d1937eu,
    0x38d8c2c4u, 0x4fdff252u, 0xd1bb67f1u, 0xa6bc5767u, 0x3fb506ddu, 0x48b2364bu,
    0xd80d2bdau, 0xaf0a1b4cu, 0x36034af6u, 0x41047a60u, 0xdf60efc3u, 0xa867df55u,
    0x316e8eefu, 0x4669be79u, 0xcb61b38cu, 0xbc66831au, 0x256fd2a0u, 0x5268e236u,
    0xcc0c7795u, 0xbb0b4703u, 0x220216b9u, 0x5505262fu, 0xc5ba3bbeu, 0xb2bd0b28u,
    0x2bb45a92u, 0x5cb36a04u, 0xc2d7ffa7u, 0xb5d0cf31u, 0x2cd99e8bu, 0x5bdeae1du,
    0x9b64c2b0u, 0xec63f226u, 0x756aa39cu, 0x026d930au, 0x9c0906a9u, 0xeb0e363fu,
    0x72076785u, 0x05005713u, 0x95bf4a82u, 0xe2b87a14u, 0x7bb12baeu, 0x0cb61b38u,
    0x92d28e9bu, 0xe5d5be0du, 0x7cdcefb7u, 0x0bdbdf21u, 0x86d3d2d4u, 0xf1d4e242u,
    0x68ddb3f8u, 0x1fda836eu, 0x81be16cdu, 0xf6b9265bu, 0x6fb077e1u, 0x18b74777u,
    0x88085ae6u, 0xff0f6a70u, 0x66063bcau, 0x11010b5cu, 0x8f659effu, 0xf862ae69u,
    0x616bffd3u, 0x166ccf45u, 0xa00ae278u, 0xd70dd2eeu, 0x4e048354u, 0x3903b3c2u,
    0xa7672661u, 0xd06016f7u, 0x4969474du, 0x3e6e77dbu, 0xaed16a4au, 0xd9d65adcu,
    0x40df0b66u, 0x37d83bf0u, 0xa9bcae53u, 0xdebb9ec5u, 0x47b2cf7fu, 0x30b5ffe9u,
    0xbdbdf21cu, 0xcabac28au, 0x53b39330u, 0x24b4a3a6u, 0xbad03605u, 0xcdd70693u,
    0x54de5729u, 0x23d967bfu, 0xb3667a2eu, 0xc4614ab8u, 0x5d681b02u, 0x2a6f2b94u,
    0xb40bbe37u, 0xc30c8ea1u, 0x5a05df1bu, 0x2d02ef8du,
};

static uint32_t crc32_text(const char *s, size_t n) {
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) c = crc_table[(c ^ (unsigned char)s[i]) & 0xff] ^ (c >> 8);
    return c ^ 0xffffffffu;
}

/* ---- flattening (probetop-rules(7), GRAPH BUILDING: Params) ---- */

struct flat {
    struct tree *t;
    int rec;
    struct sbuf name;     /* current full_op_name */
    struct sbuf tmp;
    struct sbuf pn;       /* a param name's stored form (tree_pname_mark) */
    int oom;
    /* Short texts most params repeat (type, dtype, shape, data_name "-1",
     * the CRC of an empty value, "None", "[]"): each is put in the pool
     * once and shared, so that a tree takes a fraction of the pool it took
     * when every param had its own copy.  Open addressing of pool offsets,
     * TREE_NONE empty; full at INTERN_MAX texts, when new ones are copied
     * as before. */
    uint32_t *itab; size_t icap, in;
};

static void flat_free(struct flat *f) {
    free(f->name.b);
    free(f->tmp.b);
    free(f->pn.b);
    free(f->itab);
}

#define INTERN_LEN 64          /* longer texts are not shared */
#define INTERN_MAX (1u << 16)

/* s[0..n) in the pool: a shared copy when short, else its own. */
static uint32_t pool_intern(struct flat *f, const char *s, size_t n) {
    struct tree *t = f->t;
    if (n > INTERN_LEN) return tree_str(t, s, n);
    if (f->in * 2 >= f->icap && f->icap < 2 * (size_t)INTERN_MAX) {
        size_t nc = f->icap ? f->icap * 2 : 256;
        uint32_t *nt = malloc(nc * sizeof *nt);
        if (!nt) return tree_str(t, s, n);
        for (size_t i = 0; i < nc; i++) nt[i] = TREE_NONE;
        for (size_t i = 0; i < f->icap; i++)
            if (f->itab[i] != TREE_NONE) {
                const char *k = tree_s(t, f->itab[i]);
                size_t j = util_hash_fast(k, strlen(k), 0) & (nc - 1);
                while (nt[j] != TREE_NONE) j = (j + 1) & (nc - 1);
                nt[j] = f->itab[i];
            }
        free(f->itab);
        f->itab = nt;
        f->icap = nc;
    }
    if (!f->icap) return tree_str(t, s, n);
    size_t i = util_hash_fast(s, n, 0) & (f->icap - 1);
    for (; f->itab[i] != TREE_NONE; i = (i + 1) & (f->icap - 1)) {
        const char *k = tree_s(t, f->itab[i]);
        if (strnlen(k, n + 1) == n && !memcmp(k, s, n)) return f->itab[i];
    }
    uint32_t off = tree_str(t, s, n);
    if (off != TREE_NONE && f->in < INTERN_MAX && memchr(s, '\0', n) == NULL) {
        f->itab[i] = off;
        f->in++;
    }
    return off;
}

static uint32_t pool_ctext(struct flat *f, const char *s) { return pool_intern(f, s, strlen(s)); }

/* pool_text, shared when short. */
static uint32_t pool_itext(struct flat *f, const struct jv *v) {
    struct sbuf *s = &f->tmp;
    s->n = 0;
    if (s->b) s->b[0] = '\0';
    py_text(v, s, 1);
    if (s->oom) return TREE_NONE;
    return pool_intern(f, s->b ? s->b : "", s->n);
}

static struct tparam *new_param(struct flat *f, int state) {
    struct tparam *p = tree_add_param(f->t, f->rec);
    if (!p) { f->oom = 1; return NULL; }
    p->state = (uint8_t)state;
    return p;
}

/* The name as the record's name + a shared suffix when it starts with the
 * record's name (nearly all do: a tree's names took about two thirds of
 * its pool when each had its own copy), else whole (tree.h). */
static void finish_name(struct flat *f, struct tparam *p, const char *name) {
    size_t len = strlen(name), skip;
    char mark = tree_pname_mark(f->t, f->rec, name, len, &skip);
    if (!mark) p->name = tree_str(f->t, name, len);
    else {
        f->pn.n = 0;
        sb_add(&f->pn, &mark, 1);
        sb_add(&f->pn, name + skip, len - skip);
        p->name = f->pn.oom ? TREE_NONE
                  : mark == TREE_PN_SFX ? pool_intern(f, f->pn.b, f->pn.n) : tree_str(f->t, f->pn.b, f->pn.n);
    }
    p->output_map = strstr(name, ".output.") && !strstr(name, ".input.");
    if (p->name == TREE_NONE) f->oom = 1;
}

static void null_item(struct flat *f, int state, const char *name) {
    struct tparam *p = new_param(f, state);
    if (!p) return;
    p->is_null = 1;
    p->data_name = pool_ctext(f, "-1");
    finish_name(f, p, name);
}

static int last_segment_is(const char *name, const char *const *words) {
    const char *d = strrchr(name, '.');
    const char *last = d ? d + 1 : name;
    for (; *words; words++)
        if (!strcmp(last, *words)) return 1;
    return 0;
}

static int jv_is(const struct jv *v, const char *s) {
    return v && v->t == J_STR && v->slen == strlen(s) && !memcmp(v->s, s, v->slen);
}

/* Stat k of p (k < 0: all four) set to v. */
static void stat_set(struct flat *f, struct tparam *p, int k, const struct tval *v) {
    for (int i = k < 0 ? 0 : k; i < (k < 0 ? 4 : k + 1); i++)
        if (tree_stat_set(f->t, (size_t)(p - f->t->params), i, v) != 0) f->oom = 1;
}

/* The members a tensor's object is read for, found in one walk over its
 * keys (eleven graph_jv_get calls walked them eleven times); the last of
 * duplicates, as json.load keeps. */
enum { LK_TYPE, LK_DTYPE, LK_SHAPE, LK_VALUE, LK_MD5, LK_DATA_NAME, LK_MAX, LK_MIN, LK_MEAN, LK_NORM, LK_REQUIRES_GRAD, LK_N };
static void leaf_members(const struct jv *o, const struct jv *m[LK_N]) {
    static const struct { const char *k; unsigned char len; } keys[LK_N] = {
        {"type", 4}, {"dtype", 5}, {"shape", 5}, {"value", 5}, {"md5", 3}, {"data_name", 9},
        {"Max", 3}, {"Min", 3}, {"Mean", 4}, {"Norm", 4}, {"requires_grad", 13}};
    for (int k = 0; k < LK_N; k++) m[k] = NULL;
    if (!o || o->t != J_OBJ) return;
    for (uint32_t i = 0; i < o->n; i++)
        for (int k = 0; k < LK_N; k++)
            if (o->klens[i] == keys[k].len && !memcmp(o->keys[i], keys[k].k, keys[k].len)) {
                m[k] = &o->kids[i];
                break;
            }
}

static struct tparam *leaf_item(struct flat *f, const struct jv *o, int state, const char *name) {
    struct tree *t = f->t;
    struct tparam *p = new_param(f, state);
    if (!p) return NULL;
    const struct jv *m[LK_N];
    leaf_members(o, m);
    const struct jv *type = m[LK_TYPE], *dtype = m[LK_DTYPE], *shape = m[LK_SHAPE];
    const struct jv *value = m[LK_VALUE], *md5 = m[LK_MD5], *dn = m[LK_DATA_NAME];
    if (type && type->t == J_STR) p->type = pool_intern(f, type->s, type->slen);
    if (shape) p->shape = pool_itext(f, shape);
    struct tval sv;
    for (int i = 0; i < 4; i++) {
        to_tval(t, m[LK_MAX + i], &sv, &f->tmp);
        stat_set(f, p, i, &sv);
    }
    struct tval rg;
    to_tval(t, m[LK_REQUIRES_GRAD], &rg, &f->tmp);
    if (tree_rg_set(t, p, &rg) != 0) f->oom = 1;
    if (value) p->value = pool_itext(f, value);
    if (md5 && !(md5->t == J_STR && md5->slen == 0) && md5->t != J_NULL && !(md5->t == J_FALSE)) {
        p->md5 = pool_itext(f, md5);
        p->has_md5 = 1;
    }
    const char *full = name;
    char dnbuf[4096];
    if (dn && dn->t == J_STR && dn->slen) {
        p->data_name = pool_intern(f, dn->s, dn->slen);
        size_t dl = dn->slen < sizeof dnbuf ? dn->slen : sizeof dnbuf - 1;   /* cut as snprintf cut it */
        memcpy(dnbuf, dn->s, dl);
        dnbuf[dl] = '\0';
        char *dot = strrchr(dnbuf, '.');
        if (dot) *dot = '\0';
        full = dnbuf;
    } else p->data_name = pool_ctext(f, "-1");
    int has_dtype = dtype && !(dtype->t == J_NULL || dtype->t == J_FALSE || (dtype->t == J_STR && dtype->slen == 0) ||
                               (dtype->t == J_NUM && dtype->d == 0) || ((dtype->t == J_ARR || dtype->t == J_OBJ) && dtype->n == 0));
    if (has_dtype) p->dtype = pool_itext(f, dtype);
    else {
        static const char *const ends[] = {"src", "dst", "group_src", "group_dst", NULL};
        if (type) p->dtype = pool_itext(f, type);
        if (jv_is(type, "torch.Size")) {
            p->shape = value ? pool_itext(f, value) : pool_ctext(f, "None");
        } else if (jv_is(type, "slice")) {
            char sh[64];
            if (value && value->t == J_ARR) {
                int rect = value->n > 0;
                uint32_t m = 0;
                for (uint32_t i = 0; i < value->n && rect; i++) {
                    if (value->kids[i].t != J_ARR) rect = 0;
                    else if (i == 0) m = value->kids[i].n;
                    else if (value->kids[i].n != m) rect = 0;
                }
                if (rect) snprintf(sh, sizeof sh, "(%u, %u)", value->n, m);
                else snprintf(sh, sizeof sh, "(%u,)", value->n);
            } else snprintf(sh, sizeof sh, "()");
            p->shape = pool_ctext(f, sh);
        } else if (jv_is(type, "ellipsis")) {
            p->shape = pool_ctext(f, "[]");
            to_tval(t, value, &sv, &f->tmp);
            stat_set(f, p, -1, &sv);
        } else if (last_segment_is(name, ends)) {
            uint32_t txt = value ? p->value : pool_ctext(f, "None");
            p->shape = pool_ctext(f, "[]");
            stat_set(f, p, -1, &(struct tval){.kind = TV_STR, .text = txt});
            p->md5 = txt;
        } else if (jv_is(type, "torch.ProcessGroup")) {
            const struct jv *gr = graph_jv_get(o, "group_ranks");
            uint32_t txt = gr ? pool_itext(f, gr) : pool_ctext(f, "None");
            p->shape = pool_ctext(f, "[]");
            stat_set(f, p, -1, &(struct tval){.kind = TV_STR, .text = txt});
            p->md5 = txt;
            const struct jv *gid = graph_jv_get(o, "group_id");
            if (gid && tree_comm_set(t, (size_t)(p - t->params), pool_itext(f, gid), TREE_NONE) != 0) f->oom = 1;
        } else {
            const char *tn = "NoneType";
            if (value) switch (value->t) {
                case J_TRUE: case J_FALSE: tn = "bool"; break;
                case J_NUM: tn = value->is_int ? "int" : "float"; break;
                case J_STR: tn = "str"; break;
                case J_ARR: tn = "list"; break;
                case J_OBJ: tn = "dict"; break;
                default: break;
            }
            char dt[64];
            snprintf(dt, sizeof dt, "<class '%s'>", tn);
            p->dtype = pool_ctext(f, dt);
            p->shape = pool_ctext(f, "[]");
            to_tval(t, value, &sv, &f->tmp);
            stat_set(f, p, -1, &sv);
        }
    }
    if (p->md5 == TREE_NONE || !*tree_s(t, p->md5)) {
        const char *txt = value ? tree_s(t, p->value) : "";
        char hex[16];
        /* by hand, not snprintf "%08x": most params of a statistics dump take this */
        uint32_t crc = crc32_text(txt, strlen(txt));
        for (int i = 7; i >= 0; i--, crc >>= 4) hex[i] = "0123456789abcdef"[crc & 15];
        p->md5 = pool_intern(f, hex, 8);
    }
    finish_name(f, p, full);
    return p;
}

static void walk(struct flat *f, const struct jv *v, int state, int pgrad, int depth) {
    if (f->oom || depth > 400) return;
    const char *name = f->name.b;
    if (v->t == J_NULL) { null_item(f, state, name); return; }
    if (v->t == J_ARR) {
        size_t keep = f->name.n;
        for (uint32_t i = 0; i < v->n; i++) {
            if (!pgrad) {
                char ix[24];
                ix[0] = '.';
                sb_add(&f->name, ix, util_put_uint(ix, 1, i));   /* not snprintf: every item of every list */
            }
            walk(f, &v->kids[i], state, pgrad, depth + 1);
            f->name.n = keep;
            f->name.b[keep] = '\0';
        }
        return;
    }
    if (v->t != J_OBJ || v->n == 0) return;
    const struct jv *ct = graph_jv_get(v, "class_type");
    if (jv_is(ct, "torch.distributed.P2POp")) {
        const struct jv *tensor = graph_jv_get(v, "tensor");
        struct tparam *p;
        if (tensor && tensor->t == J_OBJ) p = leaf_item(f, tensor, state, name);
        else { null_item(f, state, name); p = f->oom ? NULL : &f->t->params[f->t->nparams - 1]; }
        if (!p) return;
        const struct jv *op = graph_jv_get(v, "op"), *gid = graph_jv_get(v, "group_id");
        uint32_t po = op ? pool_itext(f, op) : TREE_NONE, go = gid ? pool_itext(f, gid) : TREE_NONE;
        if ((op || gid) && tree_comm_set(f->t, (size_t)(p - f->t->params), go, po) != 0) f->oom = 1;
        return;
    }
    const struct jv *type = graph_jv_get(v, "type");
    if (type && type->t == J_STR) { leaf_item(f, v, state, name); return; }
    size_t keep = f->name.n;
    for (uint32_t i = 0; i < v->n; i++) {
        sb_str(&f->name, ".");
        sb_add(&f->name, v->keys[i], v->klens[i]);
        walk(f, &v->kids[i], state, pgrad, depth + 1);
        f->name.n = keep;
        f->name.b[keep] = '\0';
    }
}

static int is_pgrad_name(const char *name) {
    const char *d = strrchr(name, '.');
    const char *last = d ? d + 1 : name;
    if (!strcmp(last, "parameters_grad")) return 1;
    if (!d) return 0;
    const char *e = d;
    const char *b = e;
    while (b > name && b[-1] != '.') b--;
    return (size_t)(e - b) == 15 && !memcmp(b, "parameters_grad", 15);
}

/* One record: flatten and append. */
static int add_record(struct tree *t, const char *name, size_t nlen, const struct jv *v, struct flat *f) {
    int r = tree_add_record(t, name, nlen);
    if (r < 0) return -1;
    f->rec = r;
    f->name.n = 0;
    sb_add(&f->name, name, nlen);
    if (v->t != J_OBJ) return f->name.oom ? -1 : 0;
    if (is_pgrad_name(f->name.b)) {
        walk(f, v, PS_PGRAD, 1, 0);
    } else {
        static const struct { const char *key, *suffix; int state; } io[] = {
            {"input_args", ".input", PS_INPUT}, {"input_kwargs", ".input", PS_INPUT},
            {"input", ".input", PS_INPUT}, {"output", ".output", PS_OUTPUT},
            {"parameters", ".parameters", PS_PARAMETERS}};
        for (size_t k = 0; k < sizeof io / sizeof io[0]; k++) {
            const struct jv *x = graph_jv_get(v, io[k].key);
            if (!x) continue;
            f->name.n = nlen;
            f->name.b[nlen] = '\0';
            sb_str(&f->name, io[k].suffix);
            walk(f, x, io[k].state, 0, 0);
            /* md5 mode: an element of a list-valued field is an object with md5 */
            if (!t->md5_mode && x->t == J_ARR && k != 1 && k != 4)
                for (uint32_t i = 0; i < x->n; i++)
                    if (x->kids[i].t == J_OBJ && graph_jv_get(&x->kids[i], "md5")) { t->md5_mode = 1; break; }
        }
    }
    return f->oom || f->name.oom || f->tmp.oom ? -1 : 0;
}

/* The part of dump.json already stored in the tree is given back to the
 * system 256 kB at a time (records are copied into the tree as they are
 * read, and the tokenizer never looks behind the record it is in), so a
 * large dump and its tree are not both whole in memory.  Only whole pages
 * inside the buffer; what is given back reads as zeros, which matters only
 * for the line number of a later syntax error: graph_read then reads the
 * file again without giving anything back, for the same message.  With
 * the read-ahead below, a MB each made the read of the second dump of
 * the 8.5 MB compare pair 500 kB higher than its tree needs, the
 * compare's peak (measured with address randomisation off, where the
 * peak is the same run to run).  pg: the page size. */
#define RELEASE_STEP ((size_t)1 << 18)
static void release_read(const char *buf, const char *pos, uintptr_t *done, size_t pg) {
    uintptr_t b = *done ? *done : ((uintptr_t)buf + pg - 1) & ~(uintptr_t)(pg - 1);
    uintptr_t e = (uintptr_t)pos & ~(uintptr_t)(pg - 1);
    if (e <= b || e - b < RELEASE_STEP) return;
    if (madvise((void *)b, e - b, MADV_DONTNEED) == 0) *done = e;   /* advice: on failure kept */
}

/* The window read ahead of the tokenizer (dump_stream.h): refilled when
 * less than half of it is left before a record starts (records are a few
 * hundred bytes to a few hundred kB). */
#define DUMP_AHEAD ((size_t)1 << 18)
static int stream_ahead(struct dump_stream *ds, struct json_lex *lx, struct pt_error *err) {
    size_t at = (size_t)(lx->pos - ds->buf);
    if (dump_stream_whole(ds) || ds->filled - at >= DUMP_AHEAD / 2) return 0;
    if (dump_stream_fill(ds, at + DUMP_AHEAD, err) != 0) return -1;
    lx->end = ds->buf + ds->filled;
    return 0;
}

/* After a failure: 1 when the window may have cut the input (then the
 * window from cp on is twice as long, and the tokenizer back at cp parses
 * that part again: a record of n bytes is parsed at most about twice over
 * in all), 0 when the failure is the file's (the whole file was in), -1 a
 * read error. */
static int stream_retry(struct dump_stream *ds, struct json_lex *lx, const struct json_lex *cp, struct pt_error *err) {
    if (dump_stream_whole(ds)) return 0;
    size_t at = (size_t)(cp->pos - ds->buf);
    if (dump_stream_fill(ds, at + 2 * (ds->filled - at) + DUMP_AHEAD, err) != 0) return -1;
    *lx = *cp;
    lx->end = ds->buf + ds->filled;
    lx->ib = NULL;   /* the index is made again from here */
    return 1;
}

/* released: NULL to read the whole file and keep it whole (for the line
 * number of an error); else read a window at a time, the part behind
 * given back, and set when a part was given back */
static int read_dump(struct tree *t, const char *path, int *released, struct pt_error *err) {
    uintptr_t done = 0;
    struct dump_stream ds;
    if (dump_stream_open(&ds, path, UTIL_DUMP_MAX_BYTES, err) != 0) return -1;
    size_t len = ds.len;
    if (!len) {
        dump_stream_close(&ds);
        return pt_errorf(err, "%s: empty file: not an msProbe dump.json", path);
    }
    if (dump_stream_fill(&ds, released ? DUMP_AHEAD : SIZE_MAX, err) != 0) {
        dump_stream_close(&ds);
        return -1;
    }
    const char *buf = ds.buf;
    long pgl = sysconf(_SC_PAGESIZE);
    size_t pg = pgl > 0 ? (size_t)pgl : 4096;
    /* gen_dump's and msProbe's dumps run at about one record per 900 bytes,
     * one param per 230, and the pool holds about a twentieth of the bytes
     * (names are the record's and a shared suffix): reserving a little
     * more up front saves copying the arrays as they double (the untouched
     * tail of a reservation costs address space, not memory; but a block
     * of 4 MB or more is backed by huge pages, whose touched 2 MB pieces
     * are resident whole: the pool's is no larger than it needs) */
    tree_reserve(t, len / 600 + 16, len / 150 + 64, len / 8 + 4096);
    struct jparse jp;
    memset(&jp, 0, sizeof jp);
    json_lex_init(&jp.lx, buf, ds.filled, path, err);
    struct flat f = {.t = t};
    int rc = -1, saw_data = 0;
    enum json_tok tok = json_lex_next(&jp.lx);
    if (tok != JT_OBJ_BEGIN) {
        if (tok != JT_ERROR) pt_errorf(err, "%s: expected a JSON object at the top", path);
        goto out;
    }
    for (;;) {
        if (stream_ahead(&ds, &jp.lx, err) != 0) goto out;
        struct json_lex cp = jp.lx;
        tok = json_lex_next(&jp.lx);
        if (tok == JT_OBJ_END) break;
        if (tok != JT_KEY) goto retry_top;
        int is_data = JSON_IS(&jp.lx, "data");
        char key[32] = "";
        if (!is_data) json_lex_string(&jp.lx, key, sizeof key);
        tok = json_lex_next(&jp.lx);
        if (tok == JT_ERROR) goto retry_top;
        if (is_data) {
            saw_data = 1;
            if (tok == JT_NULL) continue;
            if (tok != JT_OBJ_BEGIN) { pt_errorf(err, "%s: \"data\" is not an object", path); goto out; }
            for (;;) {
                if (stream_ahead(&ds, &jp.lx, err) != 0) goto out;
                struct json_lex rcp = jp.lx;
                tok = json_lex_next(&jp.lx);
                if (tok == JT_OBJ_END) break;
                if (tok != JT_KEY) goto retry_rec;
                util_arena_reset(&jp.ar);
                size_t nl;
                const char *name = graph_jv_text(&jp, &nl);
                if (!name) goto oom;
                struct jv v;
                tok = json_lex_next(&jp.lx);
                if (tok == JT_ERROR) goto retry_rec;
                if (graph_jv_parse(&jp, tok, &v) != 0) {
                    if (jp.oom) goto oom;
                    goto retry_rec;
                }
                if (add_record(t, name, nl, &v, &f) != 0) goto oom;
                if (released) release_read(buf, jp.lx.pos, &done, pg);
                continue;
            retry_rec:   /* a record cut by the window is parsed again whole */
                jp.nitems = jp.nkeys = 0;   /* what the cut parse left on the stacks */
                if (stream_retry(&ds, &jp.lx, &rcp, err) > 0) continue;
                goto out;
            }
        } else if (tok == JT_STRING && (!strcmp(key, "task") || !strcmp(key, "level") || !strcmp(key, "framework"))) {
            char *dst = !strcmp(key, "task") ? t->task : !strcmp(key, "level") ? t->level : t->framework;
            size_t cap = !strcmp(key, "task") ? sizeof t->task : !strcmp(key, "level") ? sizeof t->level : sizeof t->framework;
            json_lex_string(&jp.lx, dst, cap);
        } else if (json_lex_skip(&jp.lx, tok) != 0) goto retry_top;
        continue;
    retry_top:
        if (stream_retry(&ds, &jp.lx, &cp, err) > 0) continue;
        goto out;
    }
    if (!saw_data) { pt_errorf(err, "%s: no \"data\" object: not an msProbe dump.json", path); goto out; }
    t->pytorch = !t->framework[0] || !strcmp(t->framework, "pytorch");
    t->has_tensor_files = !strcmp(t->task, "tensor");
    rc = 0;
    goto out;
oom:
    pt_errorf(err, "%s: out of memory", path);
out:
    graph_jv_free(&jp);
    flat_free(&f);
    dump_stream_close(&ds);
    if (released) *released = done != 0;
    return rc;
}

/* The records of a dump.json from the first read's capture (graph_read_cap):
 * each by its name, the wanted ones parsed from their bytes alone, which
 * are read (pread) in windows that hold one wanted record, or several
 * close together, never the whole file.  0, 1 when the bytes are not what
 * the capture says (the file changed), -1 out of memory. */
#define CAP_GAP 512                  /* bytes between two wanted records read rather than skipped */
#define CAP_WINDOW (1u << 16)        /* most bytes a window spans, unless one record is longer */

/* Record r's bytes in the window [*w0, *w1) of the file (win), read
 * unless there already: from r on, over the wanted records close after it
 * that the load did not keep.  0, 1 the file is shorter, -1 out of memory. */
static int cap_window(int fd, const struct origin_cap *c, size_t r, int (*want)(const char *name), char **win,
                      size_t *wcap, uint64_t *w0, uint64_t *w1) {
    const struct origin_cap_rec *x = &c->v[r];
    if (x->v0 > c->size || x->vlen > c->size - x->v0) return 1;
    if (x->v0 >= *w0 && x->v0 + x->vlen <= *w1) return 0;
    uint64_t e = x->v0 + x->vlen;
    for (size_t k = r + 1; k < c->n; k++) {
        const struct origin_cap_rec *y = &c->v[k];
        if (!origin_cap_reparsed(c, k, want) || y->kept) continue;
        if (y->v0 < e || y->v0 - e > CAP_GAP || y->v0 + y->vlen - x->v0 > CAP_WINDOW || y->v0 + y->vlen > c->size)
            break;
        e = y->v0 + y->vlen;
    }
    size_t n = (size_t)(e - x->v0);
    if (util_grow((void **)win, wcap, n + 1, 1) != 0) return -1;
    if (fs_pread_all(fd, *win, n, (off_t)x->v0) != 0) return 1;
    *w0 = x->v0;
    *w1 = e;
    return 0;
}

static int read_cap(struct tree *t, int fd, const struct origin_cap *c, int (*want)(const char *name)) {
    struct jparse jp;
    memset(&jp, 0, sizeof jp);
    struct flat f = {.t = t};
    struct pt_error lerr;
    const struct jv none = {.t = J_NULL};
    char *win = NULL;
    size_t wcap = 0;
    uint64_t w0 = 0, w1 = 0;   /* the file's bytes [w0, w1) are in win */
    struct origin_light_cur lc = {0};
    int rc = 0;
    tree_reserve(t, c->n + 16, 64, c->nnames + 4096);
    for (size_t r = 0; r < c->n && rc == 0; r++) {
        const struct origin_cap_rec *x = &c->v[r];
        const char *name = origin_cap_name(c, r);
        if (!origin_cap_reparsed(c, r, want)) {   /* a light op: the params its items stand for */
            if (add_record(t, name, x->nlen, &none, &f) != 0 ||
                (x->light && origin_light_params(c, r, &lc, t, (int)t->nrecs - 1) != 0))
                rc = -1;
            continue;
        }
        const char *bytes = origin_cap_bytes(c, r);   /* kept by the load, else read here */
        if (!bytes) {
            int w = cap_window(fd, c, r, want, &win, &wcap, &w0, &w1);
            if (w != 0) { rc = w; break; }
            bytes = win + (x->v0 - w0);
        }
        util_arena_reset(&jp.ar);
        json_lex_init(&jp.lx, bytes, x->vlen, c->path, &lerr);
        struct jv v;
        enum json_tok tok = json_lex_next(&jp.lx);
        if (tok == JT_ERROR || graph_jv_parse(&jp, tok, &v) != 0) rc = jp.oom ? -1 : 1;
        else if (add_record(t, name, x->nlen, &v, &f) != 0) rc = -1;
    }
    free(win);
    graph_jv_free(&jp);
    flat_free(&f);
    return rc;
}

/* ---- construct.json (stack.json: read_stack.c) ---- */

static int clamp_int(const struct jv *v) {
    if (v->t != J_NUM || v->d != v->d) return 0;
    return v->d >= INT_MAX ? INT_MAX : v->d <= INT_MIN ? INT_MIN : (int)v->d;
}

/* The last top-level "megatron_micro_step_number" of construct.json (json.load
 * keeps the last duplicate): its position among the keys (-1 none) and
 * value.  A first pass of keys only, the values skipped. */
static long cons_megatron(const char *buf, size_t len, const char *path, int *steps) {
    struct jparse jp;
    memset(&jp, 0, sizeof jp);
    struct pt_error lerr;
    json_lex_init(&jp.lx, buf, len, path, &lerr);
    long at = -1;
    enum json_tok tok = json_lex_next(&jp.lx);
    for (long i = 0; tok == JT_OBJ_BEGIN; i++) {
        util_arena_reset(&jp.ar);
        size_t kl;
        const char *k = json_lex_next(&jp.lx) == JT_KEY ? graph_jv_text(&jp, &kl) : NULL;
        struct jv v;
        if (!k || (tok = json_lex_next(&jp.lx)) == JT_ERROR) break;   /* the second pass says why */
        if (kl == 26 && !memcmp(k, "megatron_micro_step_number", 26)) {
            if (graph_jv_parse(&jp, tok, &v) != 0) break;
            at = i;
            *steps = clamp_int(&v);
        } else if (json_lex_skip(&jp.lx, tok) != 0) break;
        tok = JT_OBJ_BEGIN;
    }
    graph_jv_free(&jp);
    return at;
}

/* construct.json is a few MB at scale: the pull tokenizer, one entry at a
 * time into the arena (not the whole file as one value tree, which was
 * twice the file), rather than cJSON (which was a tenth of a compare).
 * A bad entry is said only when the whole file is valid JSON, as when the
 * file was parsed whole first. */
static int read_construct(struct tree *t, const char *path, struct pt_error *err) {
    const char *buf;
    size_t len;
    if (json_map_file(path, UTIL_DUMP_MAX_BYTES, &buf, &len, err) != 0) return -1;
    if (!len) {
        json_unmap_file(buf, len);
        return pt_errorf(err, "%s: empty file: expected an object mapping node -> parent", path);
    }
    long ms = cons_megatron(buf, len, path, &t->megatron_steps);
    t->megatron = ms >= 0;
    struct jparse jp;
    memset(&jp, 0, sizeof jp);
    json_lex_init(&jp.lx, buf, len, path, err);
    struct pt_error bad = {.msg = ""};
    int rc = -1;
    enum json_tok tok = json_lex_next(&jp.lx);
    if (tok != JT_OBJ_BEGIN) {
        if (tok != JT_ERROR) pt_errorf(err, "%s: expected an object mapping node -> parent", path);
        goto out;
    }
    for (long i = 0;; i++) {
        if ((tok = json_lex_next(&jp.lx)) == JT_OBJ_END) break;
        if (tok != JT_KEY) goto out;
        util_arena_reset(&jp.ar);
        size_t kl;
        const char *key = graph_jv_text(&jp, &kl);
        struct jv v;
        if (!key || (tok = json_lex_next(&jp.lx)) == JT_ERROR || graph_jv_parse(&jp, tok, &v) != 0) {
            if (jp.oom) pt_errorf(err, "%s: out of memory", path);
            goto out;
        }
        if (i == ms || bad.msg[0]) continue;
        const struct jv *par = &v;
        int32_t micro = 0;
        if (t->megatron && v.t == J_ARR) {
            if (v.n != 2) {
                char esc[256];
                pt_errorf(&bad, "%s: \"%s\": a Megatron entry must be [parent, micro_step]", path,
                          pt_escape(key, kl, esc, sizeof esc));
                continue;
            }
            par = &v.kids[0];
            micro = clamp_int(&v.kids[1]);
        }
        const char *p = par->t == J_STR && par->slen ? par->s : NULL;
        if (tree_add_construct(t, key, kl, p, p ? par->slen : 0, micro) != 0) pt_errorf(&bad, "%s: out of memory", path);
    }
    rc = bad.msg[0] ? pt_errorf(err, "%s", bad.msg) : 0;
out:
    graph_jv_free(&jp);
    json_unmap_file(buf, len);
    return rc;
}

int graph_read(const char *dir, int flags, struct tree **out, struct pt_error *err) {
    *out = NULL;
    char base[4096], path[4200];
    struct stat st;
    if (stat(dir, &st) != 0) return pt_errorf(err, "%s: %s", dir, strerror(errno));
    if (S_ISREG(st.st_mode)) {
        snprintf(base, sizeof base, "%s", dir);
        char *slash = strrchr(base, '/');
        if (slash) *slash = '\0';
        else snprintf(base, sizeof base, ".");
    } else snprintf(base, sizeof base, "%s", dir);
    struct tree *t = tree_new();
    if (!t) return pt_errorf(err, "out of memory");
    t->path = strdup(base);
    if (S_ISREG(st.st_mode)) snprintf(path, sizeof path, "%s", dir);
    else snprintf(path, sizeof path, "%s/dump.json", base);
    if (!fs_is_file(path)) {
        tree_free(t);
        return pt_errorf(err, "%s: no dump.json here (expected a rank folder of an msProbe dump)", base);
    }
    int released = 0;
    if (read_dump(t, path, &released, err) != 0) {
        tree_free(t);
        if (!released) return -1;
        /* the message of an error after a part was given back: read again whole */
        if (!(t = tree_new()) || !(t->path = strdup(base))) {
            tree_free(t);
            return pt_errorf(err, "out of memory");
        }
        if (read_dump(t, path, NULL, err) == 0) pt_errorf(err, "%s: changed while it was read", path);
        tree_free(t);
        return -1;
    }
    tree_fit_params(t);   /* the reservation's last huge page back before the other files are read */
    if (!(flags & GRAPH_NO_STACK)) {
        snprintf(path, sizeof path, "%s/stack.json", base);
        if (fs_is_file(path)) {
            if (read_stack_file(t, path, err) != 0) { tree_free(t); return -1; }
            t->stack_file = 1;
        }
    }
    snprintf(path, sizeof path, "%s/construct.json", base);
    int has_cons = !((flags & GRAPH_NO_CONSTRUCT) && !(flags & GRAPH_BUILD)) && fs_is_file(path);
    if (has_cons && read_construct(t, path, err) != 0) { tree_free(t); return -1; }
    tree_fit(t);
    if (flags & GRAPH_BUILD) {
        if (!has_cons) {
            pt_errorf(err, "%s: no construct.json, so there is no model structure to draw "
                           "(the trend pane and the table compare still work)", base);
            tree_free(t);
            return -1;
        }
        if (tree_build(t, err) != 0) { tree_free(t); return -1; }
    }
    *out = t;
    return 0;
}

int graph_read_cap(const char *dir, const struct origin_cap *c, int (*want)(const char *name), struct tree **out,
                   struct pt_error *err) {
    *out = NULL;
    char base[4096], path[4200];
    struct stat st;
    if (c->bad || stat(dir, &st) != 0) return 1;
    /* the file graph_read would read, as the capture read it */
    if (S_ISREG(st.st_mode)) {
        snprintf(base, sizeof base, "%s", dir);
        char *slash = strrchr(base, '/');
        if (slash) *slash = '\0';
        else snprintf(base, sizeof base, ".");
        snprintf(path, sizeof path, "%s", dir);
    } else {
        snprintf(base, sizeof base, "%s", dir);
        snprintf(path, sizeof path, "%s/dump.json", base);
    }
    if (strcmp(path, c->path) != 0 || !c->size) return 1;
    int fd = open(path, O_RDONLY);
    if (fd < 0) return 1;
    /* the file as opened is the one the capture read */
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size != c->size ||
        (int64_t)st.st_mtim.tv_sec != c->mtime_s || (int64_t)st.st_mtim.tv_nsec != c->mtime_ns) {
        close(fd);
        return 1;
    }
    struct tree *t = tree_new();
    if (t) tree_unmap_records(t);   /* the origin search finds nothing by name */
    int rc = !t || !(t->path = strdup(base)) ? -1 : read_cap(t, fd, c, want);
    close(fd);
    if (rc != 0) {
        tree_free(t);
        return rc < 0 ? pt_errorf(err, "%s: out of memory", path) : 1;
    }
    *out = t;
    return 0;
}
