/* cmd_info: what a path holds, as text or one JSON object. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/cube/cube_lazy.h"
#include "src/cmd/cmd.h"
#include "src/cmd/cmd_visdb.h"
#include "src/io/load.h"
#include "model/util/pool.h"
#include "model/util/util.h"
#include "src/io/common/json.h"

/* Non-finite values per metric, all metrics in one pass (a lazy .trend.db:
 * one query, not one scan per metric). */
struct nf_tally { const struct cube *c; size_t *n; };

static int tally_cell(void *ctx, int metric, uint32_t lt, int step, int rank, const float *vals) {
    struct nf_tally *k = ctx;
    (void)lt, (void)step, (void)rank;
    for (int s = 0; s < k->c->metrics[metric].nstats; s++)
        if (!isfinite(vals[s]) && !cube_is_missing(vals[s])) k->n[metric]++;
    return 0;
}

/* A loaded cube: each metric counted on the pool's threads (its own k->n
 * slot; a metric's cells are only read), the same sums as one pass. */
static int tally_metric(void *ctx, size_t m, struct pt_error *e) {
    struct nf_tally *k = ctx;
    (void)e;
    k->n[m] = cube_count_nonfinite(k->c, (int)m, -1, -1);
    return 0;
}

/* The non-finite cells per metric into k (k->n owned by the caller, also
 * on failure), and a lazy .trend.db's rows that describe no tensor into
 * ds (a loaded input's reader counted them).  0, or -1 with err set. */
static int tally(struct dataset *ds, struct nf_tally *k, struct pt_error *err) {
    size_t notensor = 0;
    k->c = ds->cube;
    if (!(k->n = calloc((size_t)ds->cube->nmetrics + 1, sizeof *k->n))) return pt_errorf(err, "out of memory");
    if (ds->nonfinite) {   /* counted by the reader: a summary cube has no cells */
        memcpy(k->n, ds->nonfinite, (size_t)ds->cube->nmetrics * sizeof *k->n);
    } else if (!cube_is_lazy(ds->cube)) {
        if (util_pool_for((size_t)ds->cube->nmetrics, tally_metric, k, err) != 0) return -1;
    } else if (cube_each_nonfinite(ds->cube, -1, -1, -1, tally_cell, k, err) != 0)
        return -1;
    if (cube_lazy_notensor(ds->cube, &notensor, err) != 0)
        return -1;
    ds->notensor_rows += notensor;
    return 0;
}

static void print_text(const struct dataset *ds, const size_t *nonfinite) {
    const struct cube *c = ds->cube;
    char esc[1024];
    printf("path        %s\n", pt_escape(ds->path, strlen(ds->path), esc, sizeof esc));
    if (ds->source && strcmp(ds->source, ds->path))
        printf("opened      %s\n", pt_escape(ds->source, strlen(ds->source), esc, sizeof esc));
    printf("format      %s", formats_name(ds->format));
    /* header fields are the file's bytes: escaped, so that none reaches the terminal as a control sequence */
    char fw[256], lv[256], tk[256];
    if (ds->framework || ds->level || ds->task)
        printf(" (%s%s%s%s%s)", ds->framework ? pt_escape(ds->framework, strlen(ds->framework), fw, sizeof fw) : "",
               ds->level ? ", level " : "", ds->level ? pt_escape(ds->level, strlen(ds->level), lv, sizeof lv) : "",
               ds->task ? ", task " : "", ds->task ? pt_escape(ds->task, strlen(ds->task), tk, sizeof tk) : "");
    printf("\n");
    if (ds->ndbfiles > 1) {
        printf("databases  ");
        for (size_t i = 0; i < ds->ndbfiles; i++) printf(" %s", pt_escape(ds->dbfiles[i], strlen(ds->dbfiles[i]), esc, sizeof esc));
        printf("\n");
    }
    printf("steps       %d", c->nsteps);
    char lo[40], hi[40];   /* as the panes write them (model/cube/cube.h, step_text) */
    if (c->nsteps)
        printf(" (%s..%s)", cube_step_text(c, 0, lo, sizeof lo), cube_step_text(c, c->nsteps - 1, hi, sizeof hi));
    if (ds->micro_step == 1) {
        int origins = 0;
        for (int i = 0; i < c->nsteps; i++)
            if (i == 0 || c->steps[i].origin != c->steps[i - 1].origin) origins++;
        printf(", micro steps of %d step%s", origins, origins == 1 ? "" : "s");
    }
    printf("\nranks       %d", c->nranks);
    if (c->nranks) printf(" (%d..%d)", c->ranks[0], c->ranks[c->nranks - 1]);
    printf("\ntargets     %u\n", names_count(c->names));
    printf("labels      %u\n", names_label_count(c->names));
    printf("metrics     %d\n", c->nmetrics);
    int width = 16;   /* the names' column: as wide as the longest (moe_router_weight_hook) */
    for (int m = 0; m < c->nmetrics; m++)
        if ((int)strlen(pt_escape(c->metrics[m].name, strlen(c->metrics[m].name), esc, sizeof esc)) > width)
            width = (int)strlen(esc);
    for (int m = 0; m < c->nmetrics; m++) {
        const struct cube_metric *cm = &c->metrics[m];
        printf("  %-*s %6u targets  stats ", width, pt_escape(cm->name, strlen(cm->name), esc, sizeof esc), cm->ntargets);
        for (int s = 0; s < cm->nstats; s++)
            printf("%s%s", s ? "," : "", pt_escape(cm->stats[s], strlen(cm->stats[s]), esc, sizeof esc));
        printf("  non-finite %zu\n", nonfinite[m]);
    }
    if (ds->ovf_levels) {
        size_t cnt[4] = {0};
        for (size_t i = 0; i < ds->ovf.n; i++) cnt[ds->ovf.v[i].level]++;
        printf("overflow    %zu critical, %zu high, %zu medium\n", cnt[OVF_CRITICAL], cnt[OVF_HIGH], cnt[OVF_MEDIUM]);
    }
    if (ds->notensor_rows)   /* probetop-rules(7), OVERFLOW LEVELS: missing data, not NaN */
        printf("no tensor   %zu row%s describing no tensor (all NaN/NULL): missing data, not counted as NaN\n",
               ds->notensor_rows, ds->notensor_rows == 1 ? "" : "s");
    if (ds->anomalies.n || ds->anomalies.nfiles)   /* msProbe's monitor anomaly reports */
        printf("anomalies   %zu msProbe anomaly reports in %zu file%s, %zu on a heat-map cell\n", ds->anomalies.n,
               ds->anomalies.nfiles, ds->anomalies.nfiles == 1 ? "" : "s", ds->anomalies.placed);
    printf("files read  %zu (%.1f MB)\n", ds->files_read, (double)ds->bytes_read / 1e6);
    printf("skipped     %zu\n", ds->nskipped);
    for (size_t i = 0; i < ds->nskipped; i++) printf("  %s\n", pt_escape(ds->skipped[i], strlen(ds->skipped[i]), esc, sizeof esc));
    if (ds->npartial) printf("partial     %zu (read but for a cut last row)\n", ds->npartial);
    for (size_t i = 0; i < ds->npartial; i++) printf("  %s\n", pt_escape(ds->partial[i], strlen(ds->partial[i]), esc, sizeof esc));
    for (size_t i = 0; i < ds->nwarnings; i++)
        printf("warning     %s\n", pt_escape(ds->warnings[i], strlen(ds->warnings[i]), esc, sizeof esc));
    printf("load time   %.3f s\n", ds->load_seconds);
}

static void print_json(const struct dataset *ds, const size_t *nonfinite) {
    const struct cube *c = ds->cube;
    printf("{\"path\": ");
    json_fput_str(stdout, ds->path);
    printf(", \"source\": ");
    json_fput_str(stdout, ds->source ? ds->source : ds->path);
    printf(", \"format\": \"%s\", \"micro_step\": %s", formats_name(ds->format),
           ds->micro_step == 1 ? "true" : ds->micro_step == 0 ? "false" : "null");
    printf(", \"framework\": ");
    if (ds->framework) json_fput_str(stdout, ds->framework); else printf("null");
    printf(", \"level\": ");
    if (ds->level) json_fput_str(stdout, ds->level); else printf("null");
    printf(", \"steps\": [");
    for (int i = 0; i < c->nsteps; i++) printf("%s%d", i ? ", " : "", c->steps[i].value);
    printf("], \"step_origin\": [");
    for (int i = 0; i < c->nsteps; i++) printf("%s%d", i ? ", " : "", c->steps[i].origin);
    printf("], \"ranks\": [");
    for (int i = 0; i < c->nranks; i++) printf("%s%d", i ? ", " : "", c->ranks[i]);
    printf("], \"targets\": %u, \"labels\": %u, \"metrics\": [", names_count(c->names), names_label_count(c->names));
    for (int m = 0; m < c->nmetrics; m++) {
        printf("%s", m ? ", " : "");
        json_fput_str(stdout, c->metrics[m].name);
    }
    printf("], \"statistics\": {");
    for (int m = 0; m < c->nmetrics; m++) {
        printf("%s", m ? ", " : "");
        json_fput_str(stdout, c->metrics[m].name);
        printf(": [");
        for (int s = 0; s < c->metrics[m].nstats; s++) {
            printf("%s", s ? ", " : "");
            json_fput_str(stdout, c->metrics[m].stats[s]);
        }
        printf("]");
    }
    printf("}, \"metric_targets\": {");
    for (int m = 0; m < c->nmetrics; m++) {
        printf("%s", m ? ", " : "");
        json_fput_str(stdout, c->metrics[m].name);
        printf(": %u", c->metrics[m].ntargets);
    }
    printf("}, \"nonfinite\": {");
    for (int m = 0; m < c->nmetrics; m++) {
        printf("%s", m ? ", " : "");
        json_fput_str(stdout, c->metrics[m].name);
        printf(": %zu", nonfinite[m]);
    }
    printf("}, \"overflow\": ");
    if (ds->ovf_levels) {
        size_t cnt[4] = {0};
        for (size_t i = 0; i < ds->ovf.n; i++) cnt[ds->ovf.v[i].level]++;
        printf("{\"critical\": %zu, \"high\": %zu, \"medium\": %zu}", cnt[OVF_CRITICAL], cnt[OVF_HIGH], cnt[OVF_MEDIUM]);
    } else {
        printf("null");
    }
    printf(", \"anomalies\": {\"reports\": %zu, \"files\": %zu, \"placed\": %zu}", ds->anomalies.n, ds->anomalies.nfiles,
           ds->anomalies.placed);
    printf(", \"notensor_rows\": %zu", ds->notensor_rows);
    printf(", \"files_read\": %zu, \"bytes_read\": %llu, \"skipped\": [", ds->files_read,
           (unsigned long long)ds->bytes_read);
    for (size_t i = 0; i < ds->nskipped; i++) {
        printf("%s", i ? ", " : "");
        json_fput_str(stdout, ds->skipped[i]);
    }
    printf("], \"partial\": [");
    for (size_t i = 0; i < ds->npartial; i++) {
        printf("%s", i ? ", " : "");
        json_fput_str(stdout, ds->partial[i]);
    }
    printf("], \"warnings\": [");
    for (size_t i = 0; i < ds->nwarnings; i++) {
        printf("%s", i ? ", " : "");
        json_fput_str(stdout, ds->warnings[i]);
    }
    printf("], \"load_seconds\": %.6f}\n", ds->load_seconds);
}

static int run(int argc, char **argv) {
    const char *path = NULL;
    int json = 0, np = 0;
    struct load_opts lo;
    load_opts_init(&lo);
    lo.lazy = 1;   /* a .trend.db by queries within --mem, as the analyzer reads it */
    lo.summary = 1;   /* a monitor tree: its cube's shape and counts, not its cells */
    for (int i = 1; i < argc; i++) {
        int m = 0, bad = 0;
        const char *v;
        if (!strcmp(argv[i], "--json")) { json = 1; continue; }
        if ((v = opt_value(argc, argv, &i, "--mem", &m, &bad)) || m) {
            if (bad) return EXIT_USAGE;
            if (util_parse_size(v, &lo.mem_budget) != 0) {
                fprintf(stderr, "probetop info: --mem wants a size such as 512M or 2G, not '%s'\n", v);
                return EXIT_USAGE;
            }
            continue;
        }
        if ((v = opt_value(argc, argv, &i, "--format", &m, &bad)) || m) {
            if (bad) return EXIT_USAGE;
            if (formats_parse(v, &lo.format) != 0) {
                char names[256];
                fprintf(stderr, "probetop info: --format takes auto, %s, not '%s'\n", formats_names(names, sizeof names, 0), CMD_ESC(v));
                return EXIT_USAGE;
            }
            continue;
        }
        if ((v = opt_value(argc, argv, &i, "--micro_step", &m, &bad)) || m) {
            if (bad || opt_bool(v, &lo.micro_step) != 0) {
                fprintf(stderr, "probetop info: --micro_step takes true or false\n");
                return EXIT_USAGE;
            }
            continue;
        }
        if ((v = opt_value(argc, argv, &i, "--mapping", &m, &bad)) || m) { if (bad) return EXIT_USAGE; lo.mapping = v; continue; }
        if ((v = opt_value(argc, argv, &i, "--db", &m, &bad)) || m) { if (bad) return EXIT_USAGE; lo.db_name = v; continue; }
        if ((v = opt_value(argc, argv, &i, "--pattern", &m, &bad)) || m) {
            if (bad) return EXIT_USAGE;
            if (load_opts_add_pattern(&lo, v) != 0) {
                fprintf(stderr, "probetop info: --pattern takes NAME=REGEX (at most %d), not '%s'\n", LOAD_MAX_PATTERNS, CMD_ESC(v));
                return EXIT_USAGE;
            }
            continue;
        }
        if (cmd_operand(&cmd_info_entry, argv[i], &path, &np) != 0) return EXIT_USAGE;
    }
    if (cmd_operands_done(&cmd_info_entry, np) != 0) return EXIT_USAGE;
    /* graphs, not trend data: described by src/cmd/cmd_visdb.c */
    if (cmd_visdb_is(path)) return cmd_visdb_info(path, json);
    struct dataset *ds = cmd_load(path, &lo);
    if (!ds) return EXIT_USAGE;
    struct pt_error err;
    struct nf_tally k;
    int rc = tally(ds, &k, &err);
    if (cube_lazy_changed(ds->cube)) {   /* another process wrote it meanwhile: from a private copy */
        free(k.n);
        dataset_free(ds);
        lo.snapshot = 1;
        if (!(ds = cmd_load(path, &lo))) return EXIT_USAGE;
        rc = tally(ds, &k, &err);
    }
    if (rc != 0) {
        fprintf(stderr, "probetop info: %s\n", CMD_ESC(err.msg));
        free(k.n);
        dataset_free(ds);
        return EXIT_USAGE;
    }
    if (json) print_json(ds, k.n);
    else print_text(ds, k.n);
    free(k.n);
    dataset_free(ds);
    return EXIT_OK;
}

const struct cmd_entry cmd_info_entry = {
    .name = "info",
    .usage = "probetop info PATH [--json] [--format NAME] [--micro_step true|false] [--mapping FILE] [--db NAME]\n"
             "                     [--mem SIZE] [--pattern NAME=REGEX]...",
    .summary = "describe what a dump, monitor folder, .trend.db or .vis.db holds",
    .help = "  --json               one JSON object: format, steps, ranks, targets, metrics, statistics,\n"
            "                       nonfinite (metric -> count), overflow, anomalies (msProbe's monitor\n"
            "                       anomaly reports: reports, files, placed), notensor_rows (rows that\n"
            "                       describe no tensor: missing data, not NaN), skipped, warnings,\n"
            "                       load_seconds\n"
            "  --format NAME        force the input format instead of detecting it: auto, or a format\n"
            "                       name of `man probetop` (--format)\n"
            "  --micro_step B       true (default): split steps into micro steps as msProbe's data2db\n"
            "  --mapping FILE       JSON {\"old\": \"new\"} substring replacements for names\n"
            "  --db NAME            which .trend.db of a folder to open (default: the first by name)\n"
            "  --pattern NAME=REGEX a text training log's series NAME: the lines REGEX matches, its\n"
            "                       groups (?<step>...) and (?<value>...); repeatable (probetop-formats(5))\n"
            "  --mem SIZE           a .trend.db is read by queries, and what is laid out in memory\n"
            "                       stays within SIZE (default: a quarter of the memory, at most 1G)\n",
    .run = run,
};
