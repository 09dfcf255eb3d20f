/* bench_lex: the JSON tokenizer alone, in memory, one thread: every token
 * of every dump.json under DIR (or of every FILE named), each scan variant
 * and number path, best of N passes; and the page cache's rate for the same
 * files (read() into one buffer), the ceiling a reader could reach.
 * Times are the thread's CPU time, not wall time: on a machine shared with
 * other work a pass preempted midway does not count the other programs'
 * turns (the figures are per CPU second).
 *
 *   bench_lex [-n N] [-s SCAN] DIR|FILE...   (-s 0|1|2, 4|5|6 two-pass skipping, 8|9|10 two-pass
 *                                              tokens: that scan alone, numbers by decfloat, for profiling)
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "src/io/common/json.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

struct blob { char *buf; size_t len; char *path; };
struct set { struct blob *b; size_t n, cap, total; };

static void add_file(struct set *s, const char *path) {
    struct pt_error err;
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 64;
        s->b = realloc(s->b, s->cap * sizeof *s->b);
        if (!s->b) exit(1);
    }
    struct blob *b = &s->b[s->n];
    if (json_read_file(path, (size_t)1 << 34, &b->buf, &b->len, &err) != 0) { fprintf(stderr, "%s\n", err.msg); return; }
    b->path = strdup(path);
    s->total += b->len;
    s->n++;
}

static void add_tree(struct set *s, const char *dir, int depth) {
    struct stat st;
    if (stat(dir, &st) != 0) return;
    if (!S_ISDIR(st.st_mode)) { add_file(s, dir); return; }
    DIR *d = opendir(dir);
    if (!d || depth > 6) { if (d) closedir(d); return; }
    struct dirent *e;
    char p[4096];
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (stat(p, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) add_tree(s, p, depth + 1);
        else if (!strcmp(e->d_name, "dump.json")) add_file(s, p);
    }
    closedir(d);
}

/* Every token of every file; the count of tokens (so nothing is optimised away). */
static long lex_all(const struct set *s, int scan, int slow) {
    long ntok = 0;
    for (size_t i = 0; i < s->n; i++) {
        struct pt_error err;
        struct json_lex lx;
        json_lex_init(&lx, s->b[i].buf, s->b[i].len, s->b[i].path, &err);
        lx.scan = (uint8_t)(scan & 3);
        lx.walk = (uint8_t)(scan >> 2);
        lx.slow_numbers = (uint8_t)slow;
        enum json_tok t;
        while ((t = json_lex_next(&lx)) != JT_END && t != JT_ERROR) ntok++;
        if (t == JT_ERROR) fprintf(stderr, "%s\n", err.msg);
    }
    return ntok;
}

/* The first level of every file, each member's value skipped whole
 * (json_lex_skip: what a reader does with the values it does not want). */
static long skip_all(const struct set *s, int scan) {
    long n = 0;
    for (size_t i = 0; i < s->n; i++) {
        struct pt_error err;
        struct json_lex lx;
        json_lex_init(&lx, s->b[i].buf, s->b[i].len, s->b[i].path, &err);
        lx.scan = (uint8_t)(scan & 3);
        lx.walk = (uint8_t)(scan >> 2);
        enum json_tok t = json_lex_next(&lx);
        if (t != JT_OBJ_BEGIN && t != JT_ARR_BEGIN) continue;
        while ((t = json_lex_next(&lx)) != JT_OBJ_END && t != JT_ARR_END && t != JT_ERROR) {
            if (t == JT_KEY) t = json_lex_next(&lx);
            if (json_lex_skip(&lx, t) != 0) break;
            n++;
        }
    }
    return n;
}

/* The same files read again from the page cache into one buffer. */
static double cache_rate(const struct set *s) {
    size_t cap = 0;
    char *buf = NULL;
    double t0 = now();
    for (size_t i = 0; i < s->n; i++) {
        size_t len;
        struct pt_error err;
        if (json_read_reuse(s->b[i].path, (size_t)1 << 34, &buf, &cap, &len, &err) != 0) fprintf(stderr, "%s\n", err.msg);
    }
    double t = now() - t0;
    free(buf);
    return (double)s->total / 1e9 / t;
}

int main(int argc, char **argv) {
    int n = 5, a = 1, only = -1;
    for (; a + 1 < argc && argv[a][0] == '-'; a += 2) {
        if (!strcmp(argv[a], "-n")) n = atoi(argv[a + 1]);
        else if (!strcmp(argv[a], "-s")) only = atoi(argv[a + 1]);
    }
    if (a >= argc) { fprintf(stderr, "usage: bench_lex [-n N] DIR|FILE...\n"); return 2; }
    struct set s = {0};
    for (; a < argc; a++) add_tree(&s, argv[a], 0);
    if (!s.n) { fprintf(stderr, "bench_lex: no dump.json found\n"); return 1; }
    double best_cache = 0;
    for (int i = 0; i < n; i++) {
        double r = cache_rate(&s);
        if (r > best_cache) best_cache = r;
    }
    printf("bench_lex: %zu files, %.0f MB; page cache read %.2f GB/s per CPU second (best of %d)\n", s.n, (double)s.total / 1e6,
           best_cache, n);
    static const char *scan_name[] = {"portable", "SSE2", "AVX2", "?", "portable, index", "SSE2, index", "AVX2, index", "?",
                                      "portable, tokens", "SSE2, tokens", "AVX2, tokens"};
    int best = json_scan_best();
    for (int slow = 1; slow >= 0; slow--)
        for (int scan = 0; scan <= (best | JSON_SCAN_TOKENS); scan++) {
            /* tokens: one pass and the two-pass token walk (index = one pass for tokens) */
            if ((scan & 3) > best || (scan & JSON_SCAN_INDEX) || (slow && scan > best)) continue;
            if (only >= 0 && (scan != only || slow)) continue;
            double bt = 1e30;
            long ntok = 0;
            for (int i = 0; i < n; i++) {
                double t0 = now();
                ntok = lex_all(&s, scan, slow);
                double t = now() - t0;
                if (t < bt) bt = t;
            }
            printf("tokenizer, %-15s scan, numbers by %-9s %.2f GB/s per CPU second (%ld tokens, %.1f ns each; best of %d)\n",
                   scan_name[scan], slow ? "strtod:" : "decfloat:", (double)s.total / 1e9 / bt, ntok, bt * 1e9 / (double)ntok, n);
        }
    for (int scan = 0; scan <= (best | JSON_SCAN_INDEX); scan++) {   /* skipping: one pass, two passes */
        if ((scan & 3) > best) continue;
        if (only >= 0 && scan != only) continue;
        double bt = 1e30;
        for (int i = 0; i < n; i++) {
            double t0 = now();
            skip_all(&s, scan);
            double t = now() - t0;
            if (t < bt) bt = t;
        }
        printf("skipping values whole, %-15s scan: %.2f GB/s per CPU second (best of %d)\n", scan_name[scan],
               (double)s.total / 1e9 / bt, n);
    }
    for (size_t i = 0; i < s.n; i++) { free(s.b[i].buf); free(s.b[i].path); }
    free(s.b);
    return 0;
}
