/* search: PCRE2 search with limits, label selection, prompt history. */
#include "model/cube/search.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- regex ---- */

void search_init(struct search *s) {
    memset(s, 0, sizeof *s);
}

/* The match context and match data outlive every pattern; made on first
 * use so a zeroed struct needs no init call. */
static int ensure_ctx(struct search *s) {
    if (!s->mctx) {
        s->mctx = pcre2_match_context_create(NULL);
        if (!s->mctx) return -1;
        pcre2_set_match_limit(s->mctx, SEARCH_MATCH_LIMIT);
        pcre2_set_depth_limit(s->mctx, SEARCH_DEPTH_LIMIT);
        pcre2_set_heap_limit(s->mctx, SEARCH_HEAP_LIMIT);
    }
    if (!s->md) {
        s->md = pcre2_match_data_create(1, NULL);
        if (!s->md) return -1;
    }
    return 0;
}

/* 1-based column of byte offset off: characters before it, plus one (a
 * byte that is not a UTF-8 continuation byte starts a character). */
static size_t column_of(const char *p, size_t off) {
    size_t col = 1;
    for (size_t i = 0; i < off && p[i]; i++)
        if (((unsigned char)p[i] & 0xc0) != 0x80) col++;
    return col;
}

int search_compile(struct search *s, const char *pattern, unsigned flags, struct pt_error *err) {
    if (!pattern) pattern = "";
    if (ensure_ctx(s) != 0) return pt_errorf(err, "search: out of memory");
    if (!pattern[0]) {
        search_clear(s);
        s->flags = flags;
        return 0;
    }
    uint32_t opts = PCRE2_UTF | PCRE2_MATCH_INVALID_UTF;
    if (!(flags & SEARCH_CASE)) opts |= PCRE2_CASELESS;
    /* PCRE2_LITERAL allows only a few options; UCP is not one of them. */
    if (flags & SEARCH_LITERAL) opts |= PCRE2_LITERAL;
    else opts |= PCRE2_UCP;
    int ec;
    PCRE2_SIZE off;
    pcre2_code *code = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, opts, &ec, &off, NULL);
    if (!code) {
        PCRE2_UCHAR msg[256];
        if (pcre2_get_error_message(ec, msg, sizeof msg) < 0) strcpy((char *)msg, "unknown error");
        return pt_errorf(err, "regex error at column %zu: %s", column_of(pattern, off), (const char *)msg);
    }
    char *copy = strdup(pattern);
    if (!copy) {
        pcre2_code_free(code);
        return pt_errorf(err, "search: out of memory");
    }
    search_clear(s);
    s->code = code;
    s->pattern = copy;
    s->flags = flags;
    return 0;
}

void search_clear(struct search *s) {
    pcre2_code_free(s->code);
    s->code = NULL;
    free(s->pattern);
    s->pattern = NULL;
    s->why[0] = '\0';
}

void search_free(struct search *s) {
    search_clear(s);
    pcre2_match_data_free(s->md);
    pcre2_match_context_free(s->mctx);
    memset(s, 0, sizeof *s);
}

static int run(struct search *s, const char *subject, size_t len, size_t from, uint32_t opts) {
    if (ensure_ctx(s) != 0) {
        strcpy(s->why, "out of memory");
        return -1;
    }
    int rc = pcre2_match(s->code, (PCRE2_SPTR)subject, len, from, opts, s->md, s->mctx);
    if (rc >= 0) return 1;   /* 0: matched, ovector too small for the groups */
    if (rc == PCRE2_ERROR_NOMATCH) return 0;
    switch (rc) {
    case PCRE2_ERROR_MATCHLIMIT:
        strcpy(s->why, "pattern too complex: PCRE2 match limit reached (catastrophic backtracking?)");
        break;
    case PCRE2_ERROR_DEPTHLIMIT:
        strcpy(s->why, "pattern too complex: PCRE2 depth limit reached (catastrophic backtracking?)");
        break;
    case PCRE2_ERROR_HEAPLIMIT:
        strcpy(s->why, "pattern too complex: PCRE2 heap limit reached");
        break;
    default: {
        PCRE2_UCHAR msg[128];
        if (pcre2_get_error_message(rc, msg, sizeof msg) < 0) strcpy((char *)msg, "unknown error");
        snprintf(s->why, sizeof s->why, "search failed: %s", (const char *)msg);
    }
    }
    return -1;
}

int search_match(struct search *s, const char *subject, size_t len) {
    if (!s->code) return 1;
    return run(s, subject ? subject : "", subject ? len : 0, 0, 0);
}

int search_find(struct search *s, const char *subject, size_t len, size_t from, size_t *so, size_t *eo) {
    if (!s->code || !subject || from >= len) return 0;
    int rc = run(s, subject, len, from, PCRE2_NOTEMPTY);
    if (rc != 1) return rc;
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(s->md);
    *so = ov[0];
    *eo = ov[1];
    return 1;
}

int search_match_target(struct search *s, const struct names *n, uint32_t target) {
    if (!s->code) return 1;
    if (target >= names_count(n)) return 0;
    const struct target *t = names_target(n, target);
    int rc = search_match(s, names_str(n, target), t->len);
    if (rc != 0) return rc;
    const uint32_t *ids;
    uint32_t count;
    names_target_labels(n, target, &ids, &count);
    for (uint32_t i = 0; i < count; i++) {
        const char *txt = names_label_text(n, ids[i]);
        if ((rc = search_match(s, txt, strlen(txt))) != 0) return rc;
    }
    return 0;
}

/* ---- label selection ---- */

long search_labels_mask(const struct names *n, const uint32_t *sel, size_t nsel, uint8_t *mask,
                        struct pt_error *err) {
    uint32_t nt = names_count(n), nl = names_label_count(n);
    if (nsel == 0) {
        memset(mask, 1, nt);
        return nt;
    }
    for (size_t i = 0; i < nsel; i++)
        if (sel[i] >= nl) return pt_errorf(err, "label selection: no label #%u (there are %u)", sel[i], nl);
    uint32_t *count = calloc(nt ? nt : 1, sizeof *count), *stamp = calloc(nt ? nt : 1, sizeof *stamp);
    if (!count || !stamp) {
        free(count);
        free(stamp);
        return pt_errorf(err, "label selection: out of memory");
    }
    /* One clause per distinct text: selecting "layers.0" as layer and as
     * module is the same condition, and AND-ing it twice changes nothing. */
    uint32_t ntexts = 0;
    for (size_t i = 0; i < nsel; i++) {
        const char *text = names_label_text(n, sel[i]);
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++) seen = strcmp(names_label_text(n, sel[j]), text) == 0;
        if (seen) continue;
        uint32_t k = ++ntexts;
        for (int c = 0; c < LABEL_NCAT; c++) {
            uint32_t id = names_label_find(n, text, c);
            if (id == NAMES_NONE) continue;
            const struct label *l = names_label(n, id);
            for (uint32_t j = 0; j < l->ntargets; j++) {
                uint32_t t = l->targets[j];
                if (t < nt && stamp[t] != k) {
                    stamp[t] = k;
                    count[t]++;
                }
            }
        }
    }
    long marked = 0;
    for (uint32_t t = 0; t < nt; t++) {
        mask[t] = count[t] == ntexts;
        marked += mask[t];
    }
    free(count);
    free(stamp);
    return marked;
}

int search_labels_targets(const struct names *n, const uint32_t *sel, size_t nsel, uint32_t **out,
                          uint32_t *nout, struct pt_error *err) {
    uint32_t nt = names_count(n);
    *out = NULL;
    *nout = 0;
    uint8_t *mask = malloc(nt ? nt : 1);
    if (!mask) return pt_errorf(err, "label selection: out of memory");
    long m = search_labels_mask(n, sel, nsel, mask, err);
    if (m < 0) {
        free(mask);
        return -1;
    }
    uint32_t *v = malloc((m ? (size_t)m : 1) * sizeof *v);
    if (!v) {
        free(mask);
        return pt_errorf(err, "label selection: out of memory");
    }
    uint32_t k = 0;
    for (uint32_t t = 0; t < nt; t++)
        if (mask[t]) v[k++] = t;
    free(mask);
    *out = v;
    *nout = k;
    return 0;
}

struct label_key {
    int cat;
    const char *text;
    uint32_t id;
};

static int label_key_cmp(const void *pa, const void *pb) {
    const struct label_key *a = pa, *b = pb;
    if (a->cat != b->cat) return a->cat < b->cat ? -1 : 1;
    int c = strcmp(a->text, b->text);
    if (c) return c;
    return (a->id > b->id) - (a->id < b->id);
}

int search_labels_sorted(const struct names *n, uint32_t **out, uint32_t *nout, struct pt_error *err) {
    uint32_t nl = names_label_count(n);
    *out = NULL;
    *nout = 0;
    struct label_key *k = malloc((nl ? nl : 1) * sizeof *k);
    uint32_t *v = malloc((nl ? nl : 1) * sizeof *v);
    if (!k || !v) {
        free(k);
        free(v);
        return pt_errorf(err, "label list: out of memory");
    }
    for (uint32_t i = 0; i < nl; i++)
        k[i] = (struct label_key){ names_label(n, i)->cat, names_label_text(n, i), i };
    qsort(k, nl, sizeof *k, label_key_cmp);
    for (uint32_t i = 0; i < nl; i++) v[i] = k[i].id;
    free(k);
    *out = v;
    *nout = nl;
    return 0;
}
