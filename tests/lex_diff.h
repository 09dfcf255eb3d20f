/* lex_diff.h: the pull tokenizer's transcript on an input, for comparing
 * its scan variants (portable, SSE2, AVX2) and number paths (decfloat,
 * strtod), and json_lex_next_item, with each other: every token's kind, absolute offsets, string
 * flags and number bits, what json_lex_skip did, and the final message.
 * Used by tests/unit/test_decfloat.c, test_json_index.c and tests/fuzz/fuzz_lexdiff.c.
 *
 * piece = 0 lexes the whole buffer at once; otherwise the input comes in
 * pieces of that many bytes through json_lex_refill, as trace_parse reads
 * a file.  Every skip_every-th container is skipped whole (0: none). */
#ifndef PT_LEX_DIFF_H
#define PT_LEX_DIFF_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "src/io/common/json.h"

struct lexdiff_rec {
    int tok, esc, skipped;
    uint64_t start, end;   /* absolute offsets of the token, and lx->pos after it */
    uint64_t bits;         /* JT_NUMBER: the double's bits */
};

struct lexdiff_out {
    struct lexdiff_rec *r;
    size_t n, cap;
    char msg[256];
};

static inline void lexdiff_free(struct lexdiff_out *o) {
    free(o->r);
    memset(o, 0, sizeof *o);
}

static inline void lexdiff_push(struct lexdiff_out *o, const struct json_lex *lx, int tok, int skipped) {
    if (o->n == o->cap) {
        o->cap = o->cap ? o->cap * 2 : 256;
        o->r = realloc(o->r, o->cap * sizeof *o->r);
        if (!o->r) abort();
    }
    struct lexdiff_rec *r = &o->r[o->n++];
    memset(r, 0, sizeof *r);
    r->tok = tok;
    r->skipped = skipped;
    r->end = lx->off0 + (uint64_t)(lx->pos - lx->buf);
    if (tok == JT_KEY || tok == JT_STRING || tok == JT_NUMBER)
        r->start = lx->off0 + (uint64_t)(lx->tok_start - lx->buf);
    if (tok == JT_KEY || tok == JT_STRING) r->esc = lx->has_esc;
    if (tok == JT_NUMBER) memcpy(&r->bits, &lx->num, sizeof r->bits);
}

/* A scan to compare with this or'ed: every token through
 * json_lex_next_item (which reads an array's next item itself, else
 * calls json_lex_next), as the dump parser's item lists read them;
 * an object's members "key": { through json_lex_key_open, as its records,
 * or through json_lex_member (any key, or the '}'), as its keyword inputs. */
#define LEXDIFF_ITEMS 16
/* ... and an object's next member through json_lex_key_open or json_lex_member first, with
 * keys of at most this many bytes (the dump's record keys). */
#define LEXDIFF_KEY_MAX 16
#define LEXDIFF_SCANS 12

/* Every scan to compare (json_scan_default's values): each variant this
 * processor runs, with one pass and with each two-pass walk, and the
 * one-pass walks through json_lex_next_item; the count. */
static inline int lexdiff_scans(int out[LEXDIFF_SCANS]) {
    int n = 0, best = json_scan_best();
    for (int walk = 0; walk <= JSON_SCAN_TOKENS; walk += JSON_SCAN_INDEX)
        for (int v = JSON_SCAN_PORTABLE; v <= best; v++) out[n++] = v | walk;
    for (int v = JSON_SCAN_PORTABLE; v <= best; v++) out[n++] = v | LEXDIFF_ITEMS;
    return n;
}

/* Lexes data (len bytes) to the end or the first error; the transcript into *o.
 * scan: a variant, JSON_SCAN_INDEX or JSON_SCAN_TOKENS or'ed for the two-pass walks. */
static inline void lexdiff_run(const char *data, size_t len, int scan, int slow, size_t piece, unsigned skip_every,
                               struct lexdiff_out *o) {
    struct pt_error err;
    struct json_lex lx;
    memset(o, 0, sizeof *o);
    memset(&err, 0, sizeof err);
    char *buf = malloc(len + 1);
    if (!buf) abort();
    size_t fed = piece && piece < len ? piece : len;
    if (fed) memcpy(buf, data, fed);
    json_lex_init(&lx, fed ? buf : NULL, fed, "lexdiff", &err);
    lx.scan = (uint8_t)(scan & 3);
    lx.walk = (uint8_t)((scan >> 2) & 3);
    int items = (scan & LEXDIFF_ITEMS) != 0;
    lx.slow_numbers = (uint8_t)slow;
    if (piece) { lx.streaming = 1; lx.more = fed < len; }
    unsigned containers = 0;
    enum json_tok pending = JT_ERROR;   /* a skip to take again after a refill */
    for (size_t guard = 0; guard < 4 * len + 16; guard++) {
        enum json_tok t, m = JT_ERROR;
        /* every other token json_lex_member first (a key, its '{' too, or
         * the '}'), the others json_lex_key_open */
        if (pending == JT_ERROR && items && (o->n & 1)) m = json_lex_member(&lx, LEXDIFF_KEY_MAX);
        if (m == JT_KEY || m == JT_OBJ_END) {
            t = m;   /* as json_lex_next gives it */
        } else if (pending == JT_ERROR && items && (m == JT_OBJ_BEGIN || json_lex_key_open(&lx, LEXDIFF_KEY_MAX))) {
            /* the key as json_lex_next gives it (':' straight after its quote), then its '{' */
            const char *pos = lx.pos, *ts = lx.tok_start;
            lx.tok_start = lx.str - 1;
            lx.pos = lx.str + lx.slen + 2;
            lexdiff_push(o, &lx, JT_KEY, 0);
            lx.tok_start = ts;
            lx.pos = pos;
            t = JT_OBJ_BEGIN;
        } else {
            t = pending != JT_ERROR ? pending : items ? json_lex_next_item(&lx) : json_lex_next(&lx);
        }
        int skipped = 0, more = t == JT_MORE;
        if (!more && (pending != JT_ERROR ||
                      ((t == JT_OBJ_BEGIN || t == JT_ARR_BEGIN) && skip_every && ++containers % skip_every == 0))) {
            int r = json_lex_skip(&lx, t);
            pending = r == 1 ? t : JT_ERROR;
            more = r == 1;
            skipped = r == 0 ? 1 : -1;
        }
        if (more) {   /* refill: the unread bytes first, then the next piece */
            size_t keep = (size_t)(lx.end - lx.pos), done = (size_t)(lx.off0 + (uint64_t)(lx.end - lx.buf));
            size_t add = len - done < piece ? len - done : piece;
            memmove(buf, lx.pos, keep);
            memcpy(buf + keep, data + done, add);
            json_lex_refill(&lx, buf, keep + add, done + add < len);
            continue;
        }
        lexdiff_push(o, &lx, t, skipped);
        if (t == JT_ERROR || t == JT_END || skipped < 0) break;
    }
    snprintf(o->msg, sizeof o->msg, "%s", lx.failed || lx.tok == JT_ERROR ? err.msg : "");
    free(buf);
}

/* The index of the first record where a and b differ, or -1 (messages too). */
static inline long lexdiff_cmp(const struct lexdiff_out *a, const struct lexdiff_out *b) {
    size_t n = a->n < b->n ? a->n : b->n;
    for (size_t i = 0; i < n; i++)
        if (memcmp(&a->r[i], &b->r[i], sizeof a->r[i])) return (long)i;
    if (a->n != b->n || strcmp(a->msg, b->msg)) return (long)n;
    return -1;
}

#endif
