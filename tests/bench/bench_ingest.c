/* bench_ingest: the foundation's figures, one measurement per process so
 * that peak RSS belongs to that measurement alone.
 *
 *   bench_ingest parse DIR     cJSON parse-only MB/s over every dump.json (1 and 2 threads)
 *   bench_ingest ingest DIR    load_dataset MB/s, memory per present cell, peak RSS
 *   bench_ingest data2db DIR OUT   trenddb_write_dump rows/s, peak RSS
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "src/io/load.h"
#include "src/io/common/json.h"
#include "src/io/trenddb/write_trenddb.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static long peak_rss_mb(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss / 1024;
}

struct blob { char *buf; size_t len; };
struct job { struct blob *b; size_t n, next; pthread_mutex_t mu; };

static void *parse_worker(void *arg) {
    struct job *j = arg;
    for (;;) {
        pthread_mutex_lock(&j->mu);
        size_t i = j->next++;
        pthread_mutex_unlock(&j->mu);
        if (i >= j->n) return NULL;
        cJSON *t = cJSON_ParseWithLength(j->b[i].buf, j->b[i].len);
        if (!t) fprintf(stderr, "cJSON rejected file %zu (bare NaN/Infinity tokens?)\n", i);
        cJSON_Delete(t);
    }
}

static int cmd_parse(const char *dir) {
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "find '%s' -name dump.json | sort", dir);
    FILE *p = popen(cmd, "r");
    struct blob *b = NULL;
    size_t n = 0, total = 0;
    char line[4096];
    while (p && fgets(line, sizeof line, p)) {
        line[strcspn(line, "\n")] = '\0';
        b = realloc(b, (n + 1) * sizeof *b);
        struct pt_error err;
        if (json_read_file(line, (size_t)1 << 34, &b[n].buf, &b[n].len, &err) != 0) { fprintf(stderr, "%s\n", err.msg); continue; }
        total += b[n].len;
        n++;
    }
    if (p) pclose(p);
    for (int threads = 1; threads <= 2; threads++) {
        struct job j = {.b = b, .n = n};
        pthread_mutex_init(&j.mu, NULL);
        pthread_t t[2];
        double t0 = now();
        for (int i = 0; i < threads; i++) pthread_create(&t[i], NULL, parse_worker, &j);
        for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
        double dt = now() - t0;
        printf("cjson-parse-only threads=%d files=%zu MB=%.1f seconds=%.2f MB/s=%.1f\n", threads, n, total / 1e6, dt,
               total / 1e6 / dt);
    }
    return 0;
}

static int cmd_ingest(const char *dir) {
    struct load_opts lo;
    struct dataset *ds;
    struct pt_error err;
    load_opts_init(&lo);
    double t0 = now();
    if (load_dataset(dir, &lo, &ds, &err) != 0) { fprintf(stderr, "%s\n", err.msg); return 1; }
    double dt = now() - t0;
    const struct cube *c = ds->cube;
    size_t present = 0, alloc = 0;
    for (int m = 0; m < c->nmetrics; m++) {
        present += cube_count_present(c, m);
        alloc += (size_t)c->metrics[m].nstats * c->metrics[m].ntargets * (size_t)c->nsteps * (size_t)c->nranks * sizeof(float);
    }
    printf("ingest files=%zu MB=%.1f seconds=%.2f MB/s=%.1f steps=%d ranks=%d targets=%u overflow_records=%zu\n",
           ds->files_read, ds->bytes_read / 1e6, dt, ds->bytes_read / 1e6 / dt, c->nsteps, c->nranks,
           names_count(c->names), ds->ovf.n);
    printf("cube present_values=%zu value_bytes=%zu bytes_per_present_value=%.2f ratio_to_float32_payload=%.2f\n",
           present, alloc, present ? (double)alloc / present : 0, present ? (double)alloc / present / 4.0 : 0);
    printf("ingest peak_rss_MB=%ld\n", peak_rss_mb());
    dataset_free(ds);
    return 0;
}

static int cmd_data2db(const char *dir, const char *out) {
    struct load_opts lo;
    struct pt_error err;
    struct tdb_result res;
    struct dataset *ds = calloc(1, sizeof *ds);
    char mk[4200];
    snprintf(mk, sizeof mk, "mkdir -p '%s'", out);
    if (system(mk) != 0) return 1;
    load_opts_init(&lo);
    double t0 = now();
    if (trenddb_write_dump(dir, out, &lo, ds, &res, &err) != 0) { fprintf(stderr, "%s\n", err.msg); return 1; }
    double dt = now() - t0;
    printf("data2db MB=%.1f seconds=%.2f rows=%zu rows/s=%.0f targets=%zu peak_rss_MB=%ld\n", ds->bytes_read / 1e6, dt,
           res.rows, res.rows / dt, res.targets, peak_rss_mb());
    dataset_free(ds);
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 3 && !strcmp(argv[1], "parse")) return cmd_parse(argv[2]);
    if (argc >= 3 && !strcmp(argv[1], "ingest")) return cmd_ingest(argv[2]);
    if (argc >= 4 && !strcmp(argv[1], "data2db")) return cmd_data2db(argv[2], argv[3]);
    fprintf(stderr, "usage: bench_ingest parse DIR | ingest DIR | data2db DIR OUTDIR\n");
    return 2;
}
