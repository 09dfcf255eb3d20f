/* parse_dump: one dump.json, streamed through the pull tokenizer, into the
 * rows msProbe's data2db imports and the overflow levels of its records. */
#define _GNU_SOURCE   /* memmem, memrchr */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/io/common/json.h"
#include "src/io/common/json_scan.h"
#include "src/io/dump/dump_classify.h"
#include "src/io/dump/microstep.h"
#include "src/io/dump/origin_light.h"
#include "src/io/dump/parse_dump_elem.h"
#include "src/io/dump/read_construct.h"
#include "src/io/dump/read_dump.h"
#include "src/io/dump/rec_skel.h"
#include "model/layout/layout.h"
#include "model/overflow/origin.h"
#include "model/util/bigmem.h"
#include "model/util/rankdirs.h"
#include "model/util/util.h"

const char *const dump_metric_names[DM_N] = {"forward", "backward", "recompute", "parameters_grad"};
const char *const dump_stat_names[4] = {"norm", "max", "min", "mean"};

#define NAME_MAX_LEN DUMP_NAME_MAX
#define KW_NAME_MAX 128   /* a keyword input's name, its NUL included (longer ones are cut) */

/* ---- --mapping (src/io/common/mapping.h) ---- */

/* Replaces all occurrences of each pair in turn, into buf; returns length. */
static size_t apply_mapping(const struct mapping *m, char *buf, size_t len, size_t size) {
    char tmp[NAME_MAX_LEN];
    for (size_t k = 0; m && k < m->n; k++) {
        const char *from = m->from[k], *to = m->to[k];
        size_t fl = strlen(from), tl = strlen(to), o = 0;
        const char *p = buf, *end = buf + len;
        if (!memmem(buf, len, from, fl)) continue;
        while (p < end) {
            const char *hit = memmem(p, (size_t)(end - p), from, fl);
            size_t chunk = hit ? (size_t)(hit - p) : (size_t)(end - p);
            if (o + chunk >= sizeof tmp) chunk = sizeof tmp - 1 - o;
            memcpy(tmp + o, p, chunk);
            o += chunk;
            if (!hit) break;
            if (o + tl >= sizeof tmp) break;
            memcpy(tmp + o, to, tl);
            o += tl;
            p = hit + fl;
        }
        if (o >= size) o = size - 1;
        memcpy(buf, tmp, o);
        buf[o] = '\0';
        len = o;
    }
    return len;
}

static void set_warning(struct dump_file *f, const char *msg);

/* ---- file state ---- */

#define VET_MAX 32

struct pstate {
    struct json_lex lx;
    struct pt_error err;
    struct dump_file *f;
    const struct dump_opts *opt;
    const struct microstep *ms;   /* NULL when construct.json was not read */
    int use_r;                    /* micro mode with non-empty R */
    /* per-record scratch */
    struct elem *in, *kw, *out;
    size_t nin, nkw, nout, capin, capkw, capout;
    char **kwnames;               /* capkwn slots of KW_NAME_MAX bytes, or NULL when not used yet */
    size_t capkwn;
    /* row: a trend row (the array form msProbe's importer reads); the
     * others, a plain object, only count for the overflow check's weights */
    struct { char name[256]; struct elem e; uint8_t row; } *params;
    size_t nparams, capparams;
    size_t imported;              /* records that produced rows */
    /* origin_keep: the records kept for the origin search (origin_cap.h);
     * of the record being read, its flags there (ORIGIN_IN, ORIGIN_OUT) and
     * whether they must be had from parsing it again; of the last statistic,
     * whether the origin search reads it as NaN/Inf */
    struct origin_cap *cap;
    uint8_t oflags, reread, stat_nonfinite;
    /* of the record being read: where its value starts, and the values in
     * it the light capture may step over (origin_light.h: from, to, as
     * offsets from rec0, in order; at most VET_MAX, the rest are read) */
    const char *rec0;
    uint32_t vet[2 * VET_MAX];
    size_t nvet;
    int data_seen;
    size_t rename_failures;
    int fast;                     /* tensor objects read from their bytes (parse_dump_elem.h) */
    struct elem_tmpl *tm;         /* and the skeletons they are matched against (dump_scratch's; NULL: none) */
    /* a record's pieces between its lists (rec_skel.h; parse_members' L_) */
    struct rec_skel sk_pre, sk_mid, sk_post, sk_kwa, sk_kwb;
    size_t mcur;                  /* microstep_find_near's place in ms */
};

static const char *nonfinite_text(double v) {
    return isnan(v) ? "nan" : v > 0 ? "inf" : "-inf";
}

/* A statistic value: sets v and has for the trend, *anom and its text for probetop-rules(7), OVERFLOW LEVELS. */
static int parse_stat(struct pstate *ps, enum json_tok t, double *v, int *has, int *anom, char *atext) {
    struct json_lex *lx = &ps->lx;
    *has = 0;
    *anom = 0;
    ps->stat_nonfinite = 0;
    switch (t) {
    case JT_NUMBER:
        *v = lx->num;
        *has = 1;
        if (!isfinite(lx->num)) {
            *anom = 1;
            strcpy(atext, nonfinite_text(lx->num));
        }
        ps->stat_nonfinite = !isfinite(lx->num);
        return 0;
    case JT_TRUE: *v = 1; *has = 1; return 0;
    case JT_FALSE: *v = 0; *has = 1; return 0;
    case JT_NULL: return 0;
    case JT_STRING: {
        char buf[80];
        if (json_lex_string(lx, buf, sizeof buf) < 0) return 0;
        ps->stat_nonfinite = (uint8_t)origin_text_nonfinite(buf);
        if (!strcasecmp(buf, "inf") || !strcasecmp(buf, "-inf") || !strcasecmp(buf, "nan")) {
            *anom = 1;
            for (char *p = buf; *p; p++) *p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
            memcpy(atext, buf, strlen(buf) + 1);   /* at most "-inf" */
        }
        cJSON s = {.type = cJSON_String, .valuestring = buf};
        *has = json_number(&s, v);
        return 0;
    }
    case JT_OBJ_BEGIN:
    case JT_ARR_BEGIN:
        return json_lex_skip(lx, t);
    default:
        return -1;
    }
}

/* Parses the value whose first token is t into e.  Objects: a tensor or
 * other typed value (own members only); arrays: anomalous if any element
 * is, recursively. */
static int parse_elem(struct pstate *ps, enum json_tok t, struct elem *e) {
    struct json_lex *lx = &ps->lx;
    /* read fast, the whole of e is set there; else (e perhaps half set) from nothing */
    if (t == JT_OBJ_BEGIN && ps->fast && parse_dump_elem_fast(lx, ps->cap != NULL, e, &ps->reread, ps->tm))
        return 0;
    memset(e, 0, sizeof *e);
    e->o.norm = NAN;
    if (t == JT_ARR_BEGIN) {
        for (;;) {
            enum json_tok c = json_lex_next(lx);
            if (c == JT_ARR_END) return 0;
            if (c == JT_ERROR) return -1;
            struct elem sub;
            if (parse_elem(ps, c, &sub) != 0) return -1;
            if (sub.o.anomalous && !e->o.anomalous) {
                e->o.anomalous = 1;
                snprintf(e->o.what, sizeof e->o.what, "%s", sub.o.what);
            }
        }
    }
    if (t != JT_OBJ_BEGIN) return t == JT_ERROR ? -1 : (t == JT_END ? -1 : 0);
    char type[64] = "", dtype[40] = "";
    double norm = NAN;
    int norm_num = 0;
    /* as the origin search reads the item: the keys it reads seen once,
     * type and dtype as strings, Max or Min non-finite */
    unsigned seen = 0;
    int type_str = 0, dtype_str = 0, mm_nonfinite = 0;
    for (;;) {
        enum json_tok k = json_lex_next(lx);
        if (k == JT_OBJ_END) break;
        if (k != JT_KEY) return -1;
        if (ps->cap && (lx->has_esc || JSON_IS(lx, "data_name") || JSON_IS(lx, "class_type")))
            ps->reread = 1;   /* "M\u0061x" is Max there, data_name names the item, a P2POp is read otherwise */
        int which = -1;   /* 0 Norm, 1 Max, 2 Min, 3 Mean */
        if (JSON_IS(lx, "type")) which = 10;
        else if (JSON_IS(lx, "dtype")) which = 11;
        else if (JSON_IS(lx, "Norm")) which = 0;
        else if (JSON_IS(lx, "Max")) which = 1;
        else if (JSON_IS(lx, "Min")) which = 2;
        else if (JSON_IS(lx, "Mean")) which = 3;
        enum json_tok v = json_lex_next(lx);
        if (v == JT_ERROR) return -1;
        if (v == JT_OBJ_BEGIN) ps->reread = 1;   /* a P2POp's tensor, statistics unseen here */
        unsigned bit = which == 10 ? 1 : which == 11 ? 2 : which == 1 ? 4 : which == 2 ? 8 : 0;
        if (seen & bit) ps->reread = 1;   /* Python keeps the last, this pass every one */
        seen |= bit;
        if (which >= 10) {
            if (v == JT_STRING) {
                char *dst = which == 10 ? type : dtype;
                size_t cap = which == 10 ? sizeof type : sizeof dtype;
                long n = json_lex_string(lx, dst, cap);
                if (n < 0 || (size_t)n >= cap - 1) ps->reread = 1;   /* cut: compared whole there */
                if (which == 10) type_str = 1;
                else dtype_str = n > 0;   /* an empty dtype is none there */
            } else {
                if (which == 11 && v != JT_NULL) ps->reread = 1;   /* a dtype not a string */
                if (json_lex_skip(lx, v) != 0) return -1;
            }
            continue;
        }
        if (which < 0) {
            if (json_lex_skip(lx, v) != 0) return -1;
            continue;
        }
        int has, anom;
        char atext[8] = "";
        if (parse_stat(ps, v, &e->v[which], &has, &anom, atext) != 0) return -1;
        if ((which == 1 || which == 2) && ps->stat_nonfinite) mm_nonfinite = 1;
        if (has) e->present |= (uint8_t)(1u << which);
        if (which == 0) {
            norm_num = has && v == JT_NUMBER;
            norm = e->v[0];
        } else if (anom && !e->o.anomalous) {
            static const char *const sn[4] = {"Norm", "Max", "Min", "Mean"};
            e->o.anomalous = e->o.plain_anomalous = 1;
            snprintf(e->o.what, sizeof e->o.what, "%s=%s", sn[which], atext);
        }
    }
    parse_dump_elem_finish(e, type, strlen(type), dtype, strlen(dtype), norm, norm_num, type_str, dtype_str, mm_nonfinite);
    return 0;
}

/* Parses a top-level array (input_args, input, output) into list. */
/* A value [from, to) of the record the light capture may step over. */
static void vet_add(struct pstate *ps, const char *from, const char *to) {
    if (ps->nvet == VET_MAX || (uint64_t)(to - ps->rec0) > UINT32_MAX) return;
    ps->vet[2 * ps->nvet] = (uint32_t)(from - ps->rec0);
    ps->vet[2 * ps->nvet++ + 1] = (uint32_t)(to - ps->rec0);
}

/* Parses a top-level array (input_args, input, output) into list.  For
 * the light capture (origin_light.h), when records are kept: each input
 * item read plain, and an output list of items all read from their bytes,
 * are vetted. */
static int parse_list(struct pstate *ps, enum json_tok t, struct elem **list, size_t *n, size_t *cap, uint8_t oflag) {
    struct json_lex *lx = &ps->lx;
    *n = 0;
    if (t != JT_ARR_BEGIN) return json_lex_skip(lx, t);
    const char *l0 = lx->tok_start;
    int vet = ps->cap != NULL, all = vet;
    for (;;) {
        enum json_tok c = json_lex_next_item(lx);
        if (c == JT_ARR_END) {
            if (all && oflag == ORIGIN_OUT) vet_add(ps, l0, lx->pos);
            return 0;
        }
        if (c == JT_ERROR) return -1;
        if (util_grow0((void **)list, cap, *n + 1, sizeof **list) != 0) return pt_errorf(&ps->err, "out of memory");
        const char *i0 = lx->tok_start;
        struct elem *e = &(*list)[(*n)++];
        if (parse_elem(ps, c, e) != 0) return -1;
        if (e->nonfinite) ps->oflags |= oflag;   /* a top-level item: <record>.input.<i> */
        all &= e->fast;
        if (vet && e->plain && oflag == ORIGIN_IN) vet_add(ps, i0, lx->pos);
    }
}

static int parse_kwargs(struct pstate *ps, enum json_tok t) {
    struct json_lex *lx = &ps->lx;
    ps->nkw = 0;
    if (t != JT_OBJ_BEGIN) return json_lex_skip(lx, t);
    for (;;) {
        /* a keyword by its key, and in the same step the '{' of an object
         * value (a tensor, a typed scalar) or the '}' after the last
         * (json_lex_member: a key without escapes, at most KW_NAME_MAX - 1
         * bytes, so never cut; a null value, nearly half of them, read
         * after); anything else token by token */
        enum json_tok k = ps->fast ? json_lex_member(lx, KW_NAME_MAX - 1) : JT_ERROR;
        int opened = k == JT_OBJ_BEGIN;
        if (k == JT_ERROR) k = json_lex_next(lx);
        else if (k == JT_OBJ_BEGIN) k = JT_KEY;
        if (k == JT_OBJ_END) return 0;
        if (k != JT_KEY) return -1;
        if (util_grow0((void **)&ps->kw, &ps->capkw, ps->nkw + 1, sizeof *ps->kw) != 0 ||
            util_grow0((void **)&ps->kwnames, &ps->capkwn, ps->nkw + 1, sizeof *ps->kwnames) != 0)
            return pt_errorf(&ps->err, "out of memory");
        /* each slot's buffer is made once and read into again by every
         * record after (a strdup and a free a keyword cost a tenth of a
         * keyword's read, callgrind): the name cut at KW_NAME_MAX - 1 */
        if (!ps->kwnames[ps->nkw] && !(ps->kwnames[ps->nkw] = malloc(KW_NAME_MAX)))
            return pt_errorf(&ps->err, "out of memory");
        if (!lx->has_esc && lx->slen < KW_NAME_MAX) {   /* json_lex_string's copy, without its call */
            memcpy(ps->kwnames[ps->nkw], lx->str, lx->slen);
            ps->kwnames[ps->nkw][lx->slen] = '\0';
        } else {
            json_lex_string(lx, ps->kwnames[ps->nkw], KW_NAME_MAX);
        }
        if (lx->has_esc) ps->reread = 1;
        int top = !memchr(lx->str, '.', lx->slen);   /* <record>.input.<name>: top level without a dot */
        if (parse_elem(ps, opened ? JT_OBJ_BEGIN : json_lex_next(lx), &ps->kw[ps->nkw]) != 0) return -1;
        if (top && ps->kw[ps->nkw].nonfinite) ps->oflags |= ORIGIN_IN;
        ps->nkw++;
    }
}

static int add_param(struct pstate *ps, const char *name, const struct elem *e, int row) {
    if (util_grow0((void **)&ps->params, &ps->capparams, ps->nparams + 1, sizeof *ps->params) != 0)
        return pt_errorf(&ps->err, "out of memory");
    /* (not snprintf "%s": this runs for every weight of every record) */
    char *dst = ps->params[ps->nparams].name;
    size_t l = strnlen(name, sizeof ps->params[ps->nparams].name - 1);
    memcpy(dst, name, l);
    dst[l] = '\0';
    ps->params[ps->nparams].row = (uint8_t)row;
    ps->params[ps->nparams++].e = *e;
    return 0;
}

/* One member name -> value of `parameters` or of a parameters_grad record:
 * only an array whose first element is an object yields a row (from that
 * first object), as msProbe's importer reads them.  A plain object (the
 * way a module's weights are dumped) is kept for the overflow check only
 * (probetop-rules(7), OVERFLOW LEVELS). */
static int parse_param_member(struct pstate *ps, const char *name, enum json_tok v) {
    struct json_lex *lx = &ps->lx;
    if (v == JT_OBJ_BEGIN) {
        struct elem e;
        if (parse_elem(ps, v, &e) != 0) return -1;
        return add_param(ps, name, &e, 0);
    }
    if (v != JT_ARR_BEGIN) return json_lex_skip(lx, v);
    enum json_tok first = json_lex_next(lx);
    if (first == JT_ARR_END) return 0;
    struct elem e;
    int is_obj = first == JT_OBJ_BEGIN;
    if (parse_elem(ps, first, &e) != 0) return -1;
    for (;;) {   /* the rest of the array */
        enum json_tok c = json_lex_next(lx);
        if (c == JT_ARR_END) break;
        if (c == JT_ERROR || json_lex_skip(lx, c) != 0) return -1;
    }
    if (!is_obj) return 0;
    return add_param(ps, name, &e, 1);
}

/* The forward `parameters` object. */
static int parse_params(struct pstate *ps, enum json_tok t) {
    struct json_lex *lx = &ps->lx;
    ps->nparams = 0;
    if (t != JT_OBJ_BEGIN) return json_lex_skip(lx, t);
    for (;;) {
        enum json_tok k = json_lex_next(lx);
        if (k == JT_OBJ_END) return 0;
        if (k != JT_KEY) return -1;
        char name[256];
        json_lex_string(lx, name, sizeof name);
        if (parse_param_member(ps, name, json_lex_next(lx)) != 0) return -1;
    }
}

/* The row r (the file's next, its name at r->name, n bytes) filled. */
static int fill_row(struct pstate *ps, struct dump_tensor_row *r, size_t n, int32_t call, int32_t micro, int metric,
                    const struct elem *e) {
    r->len = (uint32_t)n;
    r->call = call;
    r->micro = micro;
    r->entry = (uint32_t)ps->imported;
    r->metric = (uint8_t)metric;
    r->present = e->present;
    memcpy(r->v, e->v, sizeof r->v);
    ps->f->nrows++;
    return 0;
}

/* prefix + sep + (word, wl bytes, or index) and a NUL at d; its length. */
static inline size_t put_name(char *d, const char *prefix, size_t plen, const char *sep, size_t seplen, const char *word,
                              size_t wl, size_t index) {
    memcpy(d, prefix, plen);
    memcpy(d + plen, sep, seplen);
    size_t n = plen + seplen;
    if (word) { memcpy(d + n, word, wl); n += wl; }
    else n = util_put_uint(d, n, index);
    d[n] = '\0';
    return n;
}

/* A row named prefix + sep + (index or word), e.g. "Functional.linear" +
 * ".input." + 0.  Hot: no printf here. */
static int add_row(struct pstate *ps, const char *prefix, size_t plen, const char *sep, size_t seplen,
                   const char *word, size_t index, int32_t call, int32_t micro, int metric, const struct elem *e) {
    struct dump_file *f = ps->f;
    char name[NAME_MAX_LEN + 300];
    if (!e->usable) return 0;
    size_t wl = word ? strlen(word) : 0;
    if (plen + seplen + (word ? wl : 20) >= sizeof name) return 0;
    if (f->nrows == f->caprows &&
        util_grow0((void **)&f->rows, &f->caprows, f->nrows + 1, sizeof *f->rows) != 0)
        return -1;
    struct dump_tensor_row *r = &f->rows[f->nrows];
    size_t room = plen + seplen + (word ? wl : 20) + 1;
    if (!ps->opt->layout && f->alen + room <= f->acap && f->alen + room <= UINT32_MAX) {
        /* the name made in the arena where it is kept, the same bytes
         * util_strpool_put leaves there, without building it on the stack
         * first (a third of a row's cost, callgrind); no room left, the
         * put below grows the arena */
        size_t n = put_name(f->arena + f->alen, prefix, plen, sep, seplen, word, wl, index);
        r->name = (uint32_t)f->alen;
        f->alen += n + 1;
        return fill_row(ps, r, n, call, micro, metric, e);
    }
    size_t n = put_name(name, prefix, plen, sep, seplen, word, wl, index);
    if (ps->opt->layout) {
        char renamed[sizeof name + 8];
        struct pt_error e;
        int rc = layout_rename(ps->opt->layout, f->rank, layout_dump_chunk(name, n), name, n, renamed, sizeof renamed, &e);
        if (rc < 0) {
            if (!ps->rename_failures++) {
                char msg[1200];
                snprintf(msg, sizeof msg, "--parallel: %s (such names are kept as dumped)", e.msg);
                set_warning(f, msg);
            }
        } else if (rc == 1) {
            n = strlen(renamed);
            memcpy(name, renamed, n + 1);
        }
    }
    if (util_strpool_put(&f->arena, &f->alen, &f->acap, name, n, &r->name) != 0) return -1;
    return fill_row(ps, r, n, call, micro, metric, e);
}

static int is_digits(const char *s, size_t n) {
    if (!n) return 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9') return 0;
    return 1;
}

/* A record's member, for the origin search (pstate.reread): an input list
 * (bit 1 input, 2 input_args), keyword inputs (4) or an output list (8)
 * with value v; `want` the form this pass reads items from.  Another form,
 * the origin search reads items there this pass does not; a key given
 * twice, Python keeps the last.  Returns seen with bit. */
static unsigned member_seen(struct pstate *ps, unsigned bit, enum json_tok want, enum json_tok v, unsigned seen) {
    if (bit && ((v != JT_NULL && v != want) || (seen & bit))) ps->reread = 1;
    return seen | bit;
}

/* The trend import's key of a record (key[NAME_MAX_LEN], its length and
 * micro step set): its metric, or -1 when it is not imported.  Classified
 * even without rows: a parameters_grad record reads differently. */
static int import_key(struct pstate *ps, const char *name, size_t nlen, const struct microstep_entry *me, char *key,
                      size_t *klen, int32_t *micro) {
    if (ps->opt->micro_step && ps->use_r) {
        if (!me) return -1;
        size_t l = strlen(me->newkey);
        if (l >= NAME_MAX_LEN) l = NAME_MAX_LEN - 1;
        *micro = me->micro;
        memcpy(key, me->newkey, l);
        key[l] = '\0';
        *klen = l;
    } else {
        size_t l = nlen < NAME_MAX_LEN ? nlen : NAME_MAX_LEN - 1;
        memcpy(key, name, l);
        key[l] = '\0';
        *klen = strlen(key);   /* (a name cut at a \u0000) */
    }
    *klen = apply_mapping(ps->opt->mapping, key, *klen, NAME_MAX_LEN);
    /* without rows the metric only tells a parameters_grad record, which
     * classify finds only in a key holding those words */
    if (!ps->opt->want_rows && !util_find(key, *klen, "parameters_grad", 15)) return -1;
    return dump_classify(key, klen);
}

/* Learning the record skeleton's pieces (rec_skel.h) from the members the
 * tokens read: st, the piece being read (L_PRE from the record's '{' to
 * its first list's '[', L_MID from that list's ']' to the second's '[',
 * L_POST from that one's ']' to the record's '}'; L_KWB, after
 * input_kwargs' '}' to the output list's '[' when input_kwargs holds items
 * (then the bytes up to its '{' are a piece of their own); L_OFF, none),
 * from where it started; bits, the members of L_MID or L_KWB read
 * (member_seen's bits, 16 is_recompute), recompute, is_recompute's value
 * there. */
enum { L_OFF, L_PRE, L_MID, L_KWB, L_POST };
struct rec_learn {
    int st;
    const char *from;
    unsigned bits;
    int recompute;
};

/* The members of a record from the next key on to its '}': seen, the
 * members read before (member_seen), recompute is_recompute's value. */
static int parse_members(struct pstate *ps, int is_pgrad, unsigned *seen, int *recompute, struct rec_learn *ln) {
    struct json_lex *lx = &ps->lx;
    for (;;) {
        enum json_tok k = json_lex_next(lx);
        if (k == JT_OBJ_END) {
            if (ln->st == L_POST) rec_skel_learn(&ps->sk_post, ln->from, (size_t)(lx->pos - ln->from), 0, 0);
            return 0;
        }
        if (k != JT_KEY) return -1;
        if (lx->has_esc) {
            ps->reread = 1;
            ln->st = L_OFF;
        }
        if (is_pgrad) {
            /* every member is a parameter name -> [gradient] */
            char pname[256];
            json_lex_string(lx, pname, sizeof pname);
            if (parse_param_member(ps, pname, json_lex_next(lx)) != 0) return -1;
            continue;
        }
        enum { K_IN, K_KW, K_OUT, K_PARAMS, K_RECOMP, K_OTHER } which = K_OTHER;
        int key_input = JSON_IS(lx, "input");
        if (JSON_IS(lx, "input_args") || key_input) which = K_IN;
        else if (JSON_IS(lx, "output")) which = K_OUT;
        else if (JSON_IS(lx, "input_kwargs")) which = K_KW;
        else if (JSON_IS(lx, "parameters")) which = K_PARAMS;
        else if (JSON_IS(lx, "is_recompute")) which = K_RECOMP;
        enum json_tok v = json_lex_next(lx);
        if (v == JT_ERROR) return -1;
        unsigned bit = which == K_IN ? (key_input ? 1 : 2) : which == K_KW ? 4 : which == K_OUT ? 8 : 0;
        *seen = member_seen(ps, bit, which == K_KW ? JT_OBJ_BEGIN : JT_ARR_BEGIN, v, *seen);
        /* a piece goes on only through the members and values it may hold:
         * the first list, or an empty input_kwargs, is_recompute true or
         * false, each once, then the output list; nothing after it */
        int lst = ln->st;
        ln->st = L_OFF;
        if (lst == L_PRE && which == K_IN && v == JT_ARR_BEGIN) {
            rec_skel_learn(&ps->sk_pre, ln->from, (size_t)(lx->pos - ln->from), (uint8_t)bit, 0);
            ln->st = L_MID;   /* from the list's end, below */
            ln->bits = 0;
            ln->recompute = 0;
        } else if (lst == L_MID && !(ln->bits & bit) && which == K_KW && v == JT_OBJ_BEGIN) {
            /* up to its '{', for when it holds items; L_MID goes on while it is empty, below */
            rec_skel_learn(&ps->sk_kwa, ln->from, (size_t)(lx->pos - ln->from), (uint8_t)((ln->bits | bit) & 15),
                           (uint8_t)ln->recompute);
            ln->st = L_MID;
            ln->bits |= bit;
        } else if ((lst == L_MID || lst == L_KWB) && !(ln->bits & 16) && which == K_RECOMP &&
                   (v == JT_TRUE || v == JT_FALSE)) {
            ln->st = lst;
            ln->bits |= 16;
            ln->recompute = v == JT_TRUE;
        } else if ((lst == L_MID || lst == L_KWB) && which == K_OUT && v == JT_ARR_BEGIN) {
            /* recompute: L_MID starts from 0; L_KWB leaves it (2) unless it holds is_recompute */
            rec_skel_learn(lst == L_MID ? &ps->sk_mid : &ps->sk_kwb, ln->from, (size_t)(lx->pos - ln->from),
                           (uint8_t)((ln->bits & 15) | bit),
                           (uint8_t)(lst == L_MID || (ln->bits & 16) ? ln->recompute : 2));
            ln->st = L_POST;
        }
        int rc = 0;
        switch (which) {
        case K_IN: rc = parse_list(ps, v, &ps->in, &ps->nin, &ps->capin, ORIGIN_IN); break;
        case K_OUT: rc = parse_list(ps, v, &ps->out, &ps->nout, &ps->capout, ORIGIN_OUT); break;
        case K_KW: rc = parse_kwargs(ps, v); break;
        case K_PARAMS: rc = parse_params(ps, v); break;
        case K_RECOMP: *recompute = v == JT_TRUE; break;
        case K_OTHER: rc = json_lex_skip(lx, v); break;
        }
        if (rc != 0) return -1;
        if (ln->st == L_MID && which == K_KW && ps->nkw) *ln = (struct rec_learn){L_KWB, lx->pos, 0, 0};
        if (ln->st != L_OFF && (which == K_IN || which == K_OUT)) ln->from = lx->pos;
    }
}

/* A record read through its skeleton (rec_skel.h): the pieces matched
 * whole, the lists between them read as parse_list reads them.  1 when
 * the record was read to its '}'; 0 at the first piece that does not
 * match, lx after the last one matched or list read, seen, recompute and
 * ln as the tokens would have left them there (parse_members goes on). */
static int parse_skeleton(struct pstate *ps, unsigned *seen, int *recompute, struct rec_learn *ln) {
    struct json_lex *lx = &ps->lx;
    int i = rec_skel_match(&ps->sk_pre, lx->pos, lx->end);
    if (i < 0 || json_lex_open_at(lx, lx->pos + ps->sk_pre.k[i].len - 1) != 0) return 0;
    *seen = ps->sk_pre.k[i].a;
    if (parse_list(ps, JT_ARR_BEGIN, &ps->in, &ps->nin, &ps->capin, ORIGIN_IN) != 0) return -1;
    *ln = (struct rec_learn){L_MID, lx->pos, 0, 0};
    const struct rec_skel_lit *m = NULL;
    if ((i = rec_skel_match(&ps->sk_mid, lx->pos, lx->end)) >= 0) {
        m = &ps->sk_mid.k[i];
    } else if ((i = rec_skel_match(&ps->sk_kwa, lx->pos, lx->end)) >= 0) {
        /* input_kwargs with items: up to its '{', the items, from its '}' */
        const struct rec_skel_lit *a = &ps->sk_kwa.k[i];
        if (json_lex_open_at(lx, lx->pos + a->len - 1) != 0) return 0;
        *seen |= a->a;
        *recompute = a->b;
        if (parse_kwargs(ps, JT_OBJ_BEGIN) != 0) return -1;
        *ln = (struct rec_learn){L_KWB, lx->pos, 0, 0};
        if ((i = rec_skel_match(&ps->sk_kwb, lx->pos, lx->end)) >= 0) m = &ps->sk_kwb.k[i];
    }
    if (!m || json_lex_open_at(lx, lx->pos + m->len - 1) != 0) return 0;
    *seen |= m->a;
    if (m->b != 2) *recompute = m->b;
    if (parse_list(ps, JT_ARR_BEGIN, &ps->out, &ps->nout, &ps->capout, ORIGIN_OUT) != 0) return -1;
    *ln = (struct rec_learn){L_POST, lx->pos, 0, 0};
    if ((i = rec_skel_match(&ps->sk_post, lx->pos, lx->end)) < 0) return 0;
    json_lex_close_at(lx, lx->pos + ps->sk_post.k[i].len - 1);
    return 1;
}

/* One record of data: key already decoded into name; value starts at t. */
static int parse_record(struct pstate *ps, const char *name, size_t nlen, uint32_t pos, enum json_tok t) {
    struct json_lex *lx = &ps->lx;
    struct dump_file *f = ps->f;
    const struct microstep_entry *me = ps->ms ? microstep_find_near(ps->ms, name, nlen, &ps->mcur) : NULL;
    if (t != JT_OBJ_BEGIN) return json_lex_skip(lx, t);   /* msProbe skips non-object records */

    /* what the trend import makes of the key */
    char key[NAME_MAX_LEN];
    size_t klen = 0;
    int32_t micro = 0;
    int metric = import_key(ps, name, nlen, me, key, &klen, &micro);
    int import = metric >= 0;

    ps->nin = ps->nout = ps->nkw = ps->nparams = 0;
    int recompute = 0;
    int is_pgrad = import && metric == DM_PARAMS_GRAD;
    /* the origin search reads a parameters_grad record otherwise */
    if (ps->cap && (is_pgrad || util_find(name, nlen, "parameters_grad", 15))) ps->reread = 1;
    unsigned seen = 0;   /* input_args, input_kwargs, input, output: Python keeps the last of each */
    struct rec_learn ln = {ps->fast && !is_pgrad ? L_PRE : L_OFF, lx->pos, 0, 0};
    int done = 0;
    if (ln.st && !lx->more && !lx->failed && (done = parse_skeleton(ps, &seen, &recompute, &ln)) < 0) return -1;
    if (!done && parse_members(ps, is_pgrad, &seen, &recompute, &ln) != 0) return -1;

    /* overflow level of the record, whatever the trend import makes of it */
    /* the weights of a forward record (a parameters_grad record's are
     * gradients) */
    size_t npar = is_pgrad ? 0 : ps->nparams;
    if (ps->nin || ps->nout || ps->nkw || npar) {
        struct ovf_elem ib[64], kb[64], ob[64], pb[16];
        const char *pnb[16];
        struct ovf_elem *iv = ps->nin <= 64 ? ib : malloc(ps->nin * sizeof *iv);
        struct ovf_elem *kv = ps->nkw <= 64 ? kb : malloc(ps->nkw * sizeof *kv);
        struct ovf_elem *ov = ps->nout <= 64 ? ob : malloc(ps->nout * sizeof *ov);
        struct ovf_elem *pv = npar <= 16 ? pb : malloc(npar * sizeof *pv);
        const char **pn = npar <= 16 ? pnb : malloc(npar * sizeof *pn);
        if (!iv || !kv || !ov || !pv || !pn) {
            if (iv != ib) free(iv);
            if (kv != kb) free(kv);
            if (ov != ob) free(ov);
            if (pv != pb) free(pv);
            if (pn != pnb) free(pn);
            return pt_errorf(&ps->err, "out of memory");
        }
        for (size_t i = 0; i < ps->nin; i++) iv[i] = ps->in[i].o;
        for (size_t i = 0; i < ps->nkw; i++) kv[i] = ps->kw[i].o;
        for (size_t i = 0; i < ps->nout; i++) ov[i] = ps->out[i].o;
        for (size_t i = 0; i < npar; i++) pv[i] = ps->params[i].e.o, pn[i] = ps->params[i].name;
        struct ovf_io io = {.in = iv, .nin = ps->nin, .kw = kv, .kwnames = (const char *const *)ps->kwnames,
                            .nkw = ps->nkw, .out = ov, .nout = ps->nout, .par = pv, .parnames = pn, .npar = npar};
        enum ovf_level lvl = ovf_classify(name, &io);
        int rc = 0;
        if (lvl != OVF_NONE) {
            char what[256];
            ovf_describe(&io, what, sizeof what);
            struct ovf_entry oe = {.step = f->step, .micro = me ? me->micro : -1, .rank = f->rank,
                                   .pos = pos, .level = (uint8_t)lvl, .jump = (uint8_t)ovf_heuristic(&io),
                                   .name = (char *)name, .what = what};
            rc = ovf_list_add(&f->ovf, &oe);
        }
        if (iv != ib) free(iv);
        if (kv != kb) free(kv);
        if (ov != ob) free(ov);
        if (pv != pb) free(pv);
        if (pn != pnb) free(pn);
        if (rc != 0) return pt_errorf(&ps->err, "out of memory");
    }

    if (!import || !ps->opt->want_rows) return 0;
    if (metric == DM_FORWARD && recompute) metric = DM_RECOMPUTE;
    /* target prefix and call index (probetop-rules(7), TREND TARGETS) */
    int32_t call = 0;
    size_t plen = klen;
    const char *last = memrchr(key, '.', klen);
    const char *lp = last ? last + 1 : key;
    if (is_digits(lp, klen - (size_t)(lp - key))) {
        long long c = 0;
        for (const char *p = lp; p < key + klen && c < 1000000000LL; p++) c = c * 10 + (*p - '0');
        call = (int32_t)c;
        plen = last ? (size_t)(last - key) : 0;
    }
    int rc = 0;
    if (metric == DM_PARAMS_GRAD) {
        for (size_t i = 0; i < ps->nparams && !rc; i++)
            if (ps->params[i].row)
                rc = add_row(ps, key, plen, ".", 1, ps->params[i].name, 0, call, micro, metric, &ps->params[i].e);
    } else {
        for (size_t i = 0; i < ps->nin && !rc; i++)
            rc = add_row(ps, key, plen, ".input.", 7, NULL, i, call, micro, metric, &ps->in[i]);
        for (size_t i = 0; i < ps->nout && !rc; i++)
            rc = add_row(ps, key, plen, ".output.", 8, NULL, i, call, micro, metric, &ps->out[i]);
        if (metric != DM_BACKWARD)
            for (size_t i = 0; i < ps->nparams && !rc; i++)
                if (ps->params[i].row)
                    rc = add_row(ps, key, plen, ".parameters.", 12, ps->params[i].name, 0, call, micro, metric,
                                 &ps->params[i].e);
    }
    if (rc) return pt_errorf(&ps->err, "out of memory");
    ps->imported++;
    return 0;
}

static int parse_data(struct pstate *ps, enum json_tok t) {
    struct json_lex *lx = &ps->lx;
    if (ps->cap && ps->data_seen++) ps->cap->bad = 1;   /* records counted again from 0 */
    if (t != JT_OBJ_BEGIN) {
        ps->f->contributes = 0;
        return json_lex_skip(lx, t);
    }
    ps->f->contributes = 1;
    uint32_t pos = 0;
    char name[NAME_MAX_LEN + 1];   /* one more: a name that fills it is too long */
    for (;;) {
        enum json_tok v;
        long n;
        /* the next record's key and '{' in one step (json_lex_key_open: a
         * short name without escapes), anything else token by token */
        if (ps->fast && json_lex_key_open(lx, NAME_MAX_LEN - 1)) {
            n = (long)lx->slen;
            memcpy(name, lx->str, lx->slen);
            name[n] = '\0';
            ps->reread = 0;
            v = JT_OBJ_BEGIN;
        } else {
            enum json_tok k = json_lex_next(lx);
            if (k == JT_OBJ_END) return 0;
            if (k != JT_KEY) return -1;
            n = lx->has_esc ? json_lex_string(lx, name, sizeof name)
                            : (long)(lx->slen < sizeof name ? lx->slen : sizeof name - 1);
            if (!lx->has_esc) { memcpy(name, lx->str, (size_t)n); name[n] = '\0'; }
            if (n < 0) return -1;
            if (n >= NAME_MAX_LEN) {   /* cut, it would be another name: skipped, and said */
                if (ps->cap) ps->cap->bad = 1;
                if (!ps->f->long_names++) ps->f->long_name_line = json_line_of(lx->buf, lx->tok_start);
                if (json_lex_skip(lx, json_lex_next(lx)) != 0) return -1;
                pos++;
                continue;
            }
            ps->reread = (uint8_t)lx->has_esc;   /* a name cut at a \u0000 there */
            v = json_lex_next(lx);
        }
        ps->oflags = 0;
        const char *v0 = lx->tok_start;
        ps->rec0 = v0;
        ps->nvet = 0;
        if (parse_record(ps, name, (size_t)n, pos++, v) != 0) return -1;
        if (ps->cap && v != JT_ERROR &&
            origin_light_add(ps->cap, name, (size_t)n, (uint64_t)(v0 - lx->buf), (uint64_t)(lx->pos - v0), ps->oflags,
                           ps->reread, ps->reread || origin_is_comm(name) ? v0 : NULL, ps->vet, ps->nvet) != 0)
            return pt_errorf(&ps->err, "out of memory");
        ps->f->nentries++;
    }
}

static void header_string(struct pstate *ps, enum json_tok v, char **dst) {
    if (v == JT_STRING) {
        char buf[64];
        json_lex_string(&ps->lx, buf, sizeof buf);
        free(*dst);
        *dst = strdup(buf);
    } else {
        json_lex_skip(&ps->lx, v);
    }
}

void dump_file_free(struct dump_file *f) {
    free(f->path);
    free(f->dir);
    free(f->warning);
    free(f->rows);
    free(f->arena);
    ovf_list_free(&f->ovf);
    free(f->framework);
    free(f->level);
    free(f->task);
    origin_cap_free(f->ocap);
    memset(f, 0, sizeof *f);
}

static void set_warning(struct dump_file *f, const char *msg) {
    free(f->warning);
    f->warning = strdup(msg);
}

void dump_scratch_free(struct dump_scratch *s) {
    free(s->rbuf);
    free(s->tm);
    memset(s, 0, sizeof *s);
}

void parse_dump_file(const char *dir, const char *dump_json, const struct dump_opts *o, struct dump_file *f) {
    struct dump_scratch s = {0};
    parse_dump_file_buf(dir, dump_json, o, f, &s);
    dump_scratch_free(&s);
}

void parse_dump_file_buf(const char *dir, const char *dump_json, const struct dump_opts *o, struct dump_file *f,
                         struct dump_scratch *s) {
    struct pstate ps = {.f = f, .opt = o, .fast = parse_dump_elem_on()};
    char **rbuf = &s->rbuf;
    size_t *rcap = &s->rcap;
    /* The skeletons, the memo and the number cache, kept from the file
     * before: what they hold is bytes and what those bytes make, the same in
     * any file (parse_dump_elem.c: objects naming an item, the only ones
     * whose *reread hangs on the origin search, are neither memoized nor
     * made skeletons; slow_numbers reads neither; their clock only orders
     * which skeleton goes first and which is let go, so that its wrapping
     * after 4 G objects costs speed, not a byte).  Without room for them
     * the objects are read without (the same rows, more slowly). */
    if (ps.fast && !s->tm) s->tm = calloc(1, sizeof *s->tm);
    ps.tm = s->tm;
    struct construct cons = {0};
    struct microstep ms = {0};
    const char *buf = NULL;
    size_t len = 0, maplen = 0;
    int mapfd = -1;   /* buf mapped (parse_dump_text) */
    char cpath[4096];
    f->path = strdup(dump_json);
    f->dir = strdup(dir);
    f->micro_count = 1;
    if (!f->path || !f->dir) { pt_errorf(&f->error, "out of memory"); return; }

    snprintf(cpath, sizeof cpath, "%s/construct.json", dir);
    struct pt_error cerr;
    char cwhy[1200] = "";
    const struct microstep *cached = NULL;
    if (access(cpath, F_OK) != 0) {
        if (o->micro_step) set_warning(f, "construct.json missing: micro steps unknown, every record imported with its own call index");
    } else if (o->cons_cache && (cached = cons_cache_get(o->cons_cache, cpath, cwhy, sizeof cwhy, rbuf, rcap))) {
        ps.ms = cached;
        ps.use_r = cached->n > 0;
        if (o->micro_step) f->micro_count = cached->count;
    } else if (cwhy[0]) {
        set_warning(f, cwhy);   /* the cache read it and said why it is of no use */
    } else if (construct_read(cpath, &cons, &cerr) != 0) {
        char msg[1200];
        snprintf(msg, sizeof msg, "%s (micro steps unknown)", cerr.msg);
        set_warning(f, msg);
    } else if (microstep_build(&cons, &ms, &cerr) != 0) {
        set_warning(f, cerr.msg);
    } else {
        ps.ms = &ms;
        ps.use_r = ms.n > 0;
        if (o->micro_step) f->micro_count = ms.count;
    }

    struct stat st;
    if (o->origin_keep && stat(dump_json, &st) == 0 && S_ISREG(st.st_mode) &&
        !(ps.cap = origin_cap_new(dump_json, (uint64_t)st.st_size, (int64_t)st.st_mtim.tv_sec, (int64_t)st.st_mtim.tv_nsec))) {
        pt_errorf(&f->error, "out of memory");
        goto out;
    }
    if (parse_dump_text(dump_json, UTIL_DUMP_MAX_BYTES, rbuf, rcap, &buf, &len, &mapfd, &maplen, &f->error) != 0)
        goto out;
    f->bytes = len;
    if (o->want_rows) {
        /* about one usable tensor per 300 bytes of dump.json: grow once, not
         * log(n) times (the buffers may come recycled from an earlier file) */
        size_t guess = len / 300 + 16;
        if (f->caprows < guess) {
            struct dump_tensor_row *r = bigmem_realloc(f->rows, guess * sizeof *f->rows);
            if (r) { f->rows = r; f->caprows = guess; }
        }
        if (f->acap < guess * 96) {
            char *a = bigmem_realloc(f->arena, guess * 96);
            if (a) { f->arena = a; f->acap = guess * 96; }
        }
    }
    json_lex_init(&ps.lx, buf, len, dump_json, &ps.err);
    enum json_tok t = json_lex_next(&ps.lx);
    if (t == JT_ERROR) { f->error = ps.err; goto out; }
    if (t != JT_OBJ_BEGIN) {
        pt_errorf(&f->error, "%s: line %zu: expected a JSON object with a \"data\" member", dump_json,
                  buf ? json_line_of(buf, ps.lx.tok_start ? ps.lx.tok_start : buf) : 1);
        goto out;
    }
    int saw_data = 0;
    for (;;) {
        enum json_tok k = json_lex_next(&ps.lx);
        if (k == JT_OBJ_END) break;
        if (k != JT_KEY) goto parse_error;
        enum { H_DATA, H_TASK, H_LEVEL, H_FW, H_OTHER } h = H_OTHER;
        if (JSON_IS(&ps.lx, "data")) h = H_DATA;
        else if (JSON_IS(&ps.lx, "task")) h = H_TASK;
        else if (JSON_IS(&ps.lx, "level")) h = H_LEVEL;
        else if (JSON_IS(&ps.lx, "framework")) h = H_FW;
        enum json_tok v = json_lex_next(&ps.lx);
        if (v == JT_ERROR) goto parse_error;
        switch (h) {
        case H_DATA:
            saw_data = 1;
            if (v != JT_OBJ_BEGIN) {
                pt_errorf(&f->error, "%s: line %zu: key \"data\": expected an object of records", dump_json,
                          json_line_of(buf, ps.lx.tok_start));
                goto out;
            }
            if (parse_data(&ps, v) != 0) goto parse_error;
            break;
        case H_TASK: header_string(&ps, v, &f->task); break;
        case H_LEVEL: header_string(&ps, v, &f->level); break;
        case H_FW: header_string(&ps, v, &f->framework); break;
        case H_OTHER:
            if (json_lex_skip(&ps.lx, v) != 0) goto parse_error;
            break;
        }
    }
    if (json_lex_next(&ps.lx) != JT_END) goto parse_error;
    if (!saw_data) {
        pt_errorf(&f->error, "%s: no \"data\" member: not an msProbe dump.json", dump_json);
        goto out;
    }
    f->ok = 1;
    if (ps.cap && !ps.cap->bad && (uint64_t)len == ps.cap->size) {
        f->ocap = ps.cap;
        ps.cap = NULL;
    }
    goto out;
parse_error:
    f->error = ps.err;
    if (!f->error.msg[0]) pt_errorf(&f->error, "%s: malformed record structure", dump_json);
out:
    if (!f->ok) {
        /* a skipped file contributes nothing, not even its micro steps */
        f->nrows = 0;
        f->contributes = 0;
        ovf_list_free(&f->ovf);
    }
    parse_dump_text_done(buf, mapfd, maplen);
    free(ps.in);
    free(ps.kw);
    free(ps.out);
    for (size_t i = 0; i < ps.capkwn; i++) free(ps.kwnames[i]);
    free(ps.kwnames);
    free(ps.params);
    origin_cap_free(ps.cap);
    microstep_free(&ms);
    construct_free(&cons);
}
