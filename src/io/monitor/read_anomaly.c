/* read_anomaly: msProbe's monitor anomaly reports (probetop-formats(5),
 * MONITOR ANOMALY REPORTS): `anomaly_detected/<rank folder>/anomaly.json`
 * and the analyser's `anomaly_analyse.json`, one JSON object each whose
 * values are the reported entries.  Read as msProbe's analyser reads them:
 * every sub-folder holding an anomaly.json, an entry with a key msProbe
 * does not know skipped with a note, missing keys taking msProbe's
 * defaults.  The JSON goes through the pull tokenizer (src/io/common/json.h), no
 * tree: a NaN cascade can report every tag of every step, and the entries
 * before a truncation still count.  The list is sorted in msProbe's
 * first-anomaly order and placed on the cube by model/overflow/anomaly.c. */
#include "src/io/monitor/read_anomaly.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model/util/fs.h"
#include "src/io/load.h"
#include "src/io/common/reader.h"
#include "src/io/common/json.h"

#define ANOMALY_MAX_BYTES ((size_t)1 << 30)

/* The raw text [a, b) with every run of white space as one space: how a
 * group_mates value that is not a list of ranks is shown.  NULL without
 * memory. */
static char *squeezed(const char *a, const char *b) {
    char *s = malloc((size_t)(b - a) + 1);
    size_t n = 0;
    if (!s) return NULL;
    for (const char *p = a; p < b; p++) {
        int ws = *p == ' ' || *p == '\n' || *p == '\r' || *p == '\t';
        if (ws && (n == 0 || s[n - 1] == ' ')) continue;
        s[n++] = ws ? ' ' : *p;
    }
    while (n && s[n - 1] == ' ') n--;
    s[n] = '\0';
    return s;
}

/* group_mates (first token t): a list of ranks as "[0, 1]", anything else
 * as its JSON text.  NULL without memory or on a JSON error (lx->failed). */
static char *read_mates(struct json_lex *lx, enum json_tok t) {
    const char *start = lx->tok_start;
    if (t != JT_ARR_BEGIN) {
        if (json_lex_skip(lx, t) != 0) return NULL;
        return t == JT_NULL ? strdup("") : squeezed(start, lx->pos);
    }
    size_t cap = 64, len = 0;
    char *s = malloc(cap);
    if (!s) return NULL;
    s[len++] = '[';
    int ok = 1;
    for (;;) {
        t = json_lex_next(lx);
        if (t == JT_ARR_END || t == JT_ERROR) break;
        if (t != JT_NUMBER || lx->num != floor(lx->num) || fabs(lx->num) > 1e15) {
            ok = 0;
            if (json_lex_skip(lx, t) != 0) break;
            continue;
        }
        if (len + 24 > cap) {
            char *g = realloc(s, cap *= 2);
            if (!g) { free(s); return NULL; }
            s = g;
        }
        len += (size_t)snprintf(s + len, cap - len, "%s%lld", len > 1 ? ", " : "", (long long)lx->num);
    }
    if (t == JT_ERROR || lx->failed) { free(s); return NULL; }
    s[len++] = ']';   /* cap - len >= 24 - at most 19 written: room for "]" and the NUL */
    s[len] = '\0';
    if (ok) return s;
    free(s);
    return squeezed(start, lx->pos);
}

/* The current string token, decoded, as a new string; NULL without memory. */
static char *lex_strdup(const struct json_lex *lx) {
    char *s = malloc(lx->slen + 1);
    if (s && json_lex_string(lx, s, lx->slen + 1) < 0) s[0] = '\0';   /* a bad escape: shown empty */
    return s;
}

static const char *const known_keys[] = {"rank",     "step",     "micro_step", "pp_stage", "vpp_stage",
                                         "call_id",  "tag_name", "message",    "group_mates"};
enum { K_INTS = 6, K_TAG = 6, K_MSG, K_MATES, K_N };

/* One entry, the lexer just past its '{', into l (its key is key).  1
 * added, 0 skipped with a note, -1 without memory (err), -2 a JSON error
 * (lx->err). */
static int read_entry(struct json_lex *lx, const char *key, const char *what, struct anomaly_list *l, uint32_t file,
                      struct dataset *ds, struct pt_error *err) {
    /* msProbe's defaults for a missing member (its GradAnomalyData); a
     * member given twice counts once, the last (as Python's json) */
    struct anomaly a = {.file = file};
    int32_t *ints[K_INTS] = {&a.rank, &a.step, &a.micro_step, &a.pp_stage, &a.vpp_stage, &a.call_id};
    char *str[K_N] = {0};
    char unknown[128] = "", kesc[256];
    const char *bad = NULL;
    int has_unknown = 0;
    int rc = 1;
    for (;;) {
        enum json_tok t = json_lex_next(lx);
        if (t == JT_OBJ_END) break;
        if (t != JT_KEY) { rc = -2; break; }
        int k = 0;
        while (k < K_N && !json_lex_is(lx, known_keys[k], strlen(known_keys[k]))) k++;
        if (k == K_N && !has_unknown++) json_lex_string(lx, unknown, sizeof unknown);
        t = json_lex_next(lx);
        if (t == JT_ERROR) { rc = -2; break; }
        if (k < K_INTS) {
            double d = lx->num;
            if (t == JT_NUMBER && isfinite(d) && d == floor(d) && d >= INT32_MIN && d <= INT32_MAX) *ints[k] = (int32_t)d;
            else if (!bad) bad = known_keys[k];
        } else if ((k == K_TAG || k == K_MSG) && t == JT_STRING) {
            free(str[k]);
            if (!(str[k] = lex_strdup(lx))) { rc = pt_errorf(err, "anomaly reports: out of memory"); break; }
        } else if (k == K_TAG || k == K_MSG) {
            if (!bad) bad = known_keys[k];
        } else if (k == K_MATES) {
            free(str[k]);
            if (!(str[k] = read_mates(lx, t))) { rc = lx->failed ? -2 : pt_errorf(err, "anomaly reports: out of memory"); break; }
            continue;
        }
        if (json_lex_skip(lx, t) != 0) { rc = -2; break; }
    }
    if (rc == 1 && (has_unknown || bad)) {
        pt_escape(key, strlen(key), kesc, sizeof kesc);
        if (has_unknown) {
            char fesc[160];
            dataset_warn(ds, "%s: entry \"%s\": unknown key \"%s\" (msProbe skips such an entry too); skipped", what,
                         kesc, pt_escape(unknown, strlen(unknown), fesc, sizeof fesc));
        } else {
            dataset_warn(ds, "%s: entry \"%s\": %s is not %s; skipped", what, kesc, bad,
                         bad == known_keys[K_TAG] || bad == known_keys[K_MSG] ? "a string" : "an integer");
        }
        rc = 0;
    }
    if (rc == 1) {
        a.tag_name = str[K_TAG];
        a.message = str[K_MSG];
        a.group_mates = str[K_MATES];
        if (anomaly_push(l, &a, err) != 0) rc = -1;
    }
    for (int k = K_TAG; k < K_N; k++) free(str[k]);
    return rc;
}

int anomaly_parse(const char *text, size_t len, const char *what, struct anomaly_list *l, struct dataset *ds,
                  struct pt_error *err) {
    struct pt_error pe = {{0}};
    struct json_lex lx;
    json_lex_init(&lx, text, len, what, &pe);
    enum json_tok t = json_lex_next(&lx);
    if (t == JT_ERROR) {
        dataset_warn(ds, "%s; its anomaly reports are not shown", pe.msg);
        return 0;
    }
    if (t != JT_OBJ_BEGIN) {
        dataset_warn(ds, "%s: expected a JSON object of anomaly entries; not read", what);
        return 0;
    }
    long file = anomaly_add_file(l, what);
    if (file < 0) return pt_errorf(err, "anomaly reports: out of memory");
    size_t before = l->n;
    char kesc[256];
    for (;;) {
        t = json_lex_next(&lx);
        if (t == JT_OBJ_END) t = json_lex_next(&lx);   /* JT_END, or text after the object */
        if (t == JT_END || t == JT_ERROR) break;
        char *key = lex_strdup(&lx);   /* t is JT_KEY: the lexer allows nothing else here */
        if (!key) return pt_errorf(err, "anomaly reports: out of memory");
        t = json_lex_next(&lx);
        int rc = 0;
        if (t == JT_OBJ_BEGIN) {
            rc = read_entry(&lx, key, what, l, (uint32_t)file, ds, err);
        } else if (t != JT_ERROR) {
            dataset_warn(ds, "%s: entry \"%s\": not a JSON object; skipped", what, pt_escape(key, strlen(key), kesc, sizeof kesc));
            if (json_lex_skip(&lx, t) != 0) rc = -2;
        } else {
            rc = -2;
        }
        free(key);
        if (rc == -1) return -1;
        if (rc == -2) { t = JT_ERROR; break; }
    }
    /* a file cut short (a writer at work) or broken further on: what came before stands */
    if (t == JT_ERROR)
        dataset_warn(ds, "%s; %s", pe.msg, l->n > before ? "the entries before it are shown" : "no entry of it is shown");
    return 0;
}

static int read_file(const char *path, struct anomaly_list *l, struct dataset *ds, struct pt_error *err) {
    char *buf;
    size_t len;
    int got = reader_read_file(ds, path, ANOMALY_MAX_BYTES, &buf, &len);
    if (got != 0) return got < 0 ? pt_errorf(err, "out of memory") : 0;
    size_t had = l->nfiles;
    int rc = anomaly_parse(buf, len, path, l, ds, err);
    free(buf);
    if (rc == 0 && l->nfiles > had) {   /* read as reports (not a note) */
        ds->files_read++;
        ds->bytes_read += len;
    }
    return rc;
}

/* An anomaly_detected folder: every sub-folder's anomaly.json (as msProbe's
 * analyser reads them), else the analyser's anomaly_analyse.json. */
static int read_folder(const char *dir, struct anomaly_list *l, struct dataset *ds, struct pt_error *err) {
    size_t n;
    char **names = fs_list_dir(dir, 0, &n);
    if (!names) {
        dataset_warn(ds, "%s: cannot list: %s", dir, strerror(errno));
        return 0;
    }
    int rc = 0, found = 0;
    char p[PATH_MAX];
    for (size_t i = 0; i < n && rc == 0; i++) {
        snprintf(p, sizeof p, "%s/%s/%s", dir, names[i], ANOMALY_JSON);
        if (!fs_is_file(p)) continue;
        found = 1;
        rc = read_file(p, l, ds, err);
    }
    fs_free_list(names, n);
    snprintf(p, sizeof p, "%s/%s", dir, ANALYSE_JSON);
    if (rc == 0 && !found && fs_is_file(p)) {
        rc = read_file(p, l, ds, err);
        l->analyse = 1;
    }
    return rc;
}

int anomaly_read_path(const char *path, struct anomaly_list *l, struct dataset *ds, struct pt_error *err) {
    if (fs_is_dir(path)) return read_folder(path, l, ds, err);
    if (fs_base_is(path, ANALYSE_JSON)) l->analyse = 1;
    return read_file(path, l, ds, err);
}

int anomaly_attach(const char *tree, struct dataset *ds, struct pt_error *err) {
    char dir[PATH_MAX];
    if (snprintf(dir, sizeof dir, "%s/%s", tree, ANOMALY_DIR) >= (int)sizeof dir || !fs_is_dir(dir)) return 0;
    if (read_folder(dir, &ds->anomalies, ds, err) != 0) return -1;
    anomaly_sort(&ds->anomalies);
    return anomaly_place(&ds->anomalies, ds->cube, err);
}
