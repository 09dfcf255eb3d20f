/* cmd_report: `probetop report RUN [BENCH] [--out FILE]`, a Markdown summary
 * for a ticket.  Every answer in it is the one the other commands compute,
 * through the same entry points: the load (info), the NaN/Inf entries with
 * their origin across ranks (overflow: load_dataset's ovf list, or
 * ovf_scan_cube for inputs without levels; ovf_origin_run, ovf_origin_entry,
 * ovf_first), msProbe's anomaly reports (the dataset's list, in its
 * first-anomaly order) and with BENCH the first divergence (compare --first:
 * graph_scan, graph_pair, cmp_scan_run, cmp_origin_first).  Each finding
 * names the command line that reproduces it.  The exit code is the gates':
 * 1 a finding (a NaN/Inf or an AnomalyNan report, an error-level
 * divergence), else 3 when something could not be read whole, else 0; 2 bad
 * usage or unreadable input.  --out writes a temporary file in the target's
 * folder and renames it over FILE once complete. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/util/util.h"
#include "model/compare/compare.h"
#include "model/compare/compare_run.h"
#include "model/cube/cube.h"
#include "model/curves/curves.h"
#include "model/curves/curves_verdict.h"
#include "model/overflow/anomaly.h"
#include "model/overflow/overflow.h"
#include "model/trace/trace.h"
#include "src/cmd/cmd.h"
#include "src/cmd/compare_answer.h"
#include "src/cmd/overflow_answer.h"
#include "src/io/compare/cmp_origin.h"
#include "src/io/compare/cmp_scan.h"
#include "src/io/dump/ovf_origin.h"
#include "src/io/dump/read_graph.h"
#include "src/io/load.h"

/* The exit codes of two gates as one: a finding wins, then unreadable input,
 * then a partial answer. */
static int rc_merge(int a, int b) {
    if (a == EXIT_FOUND || b == EXIT_FOUND) return EXIT_FOUND;
    if (a == EXIT_USAGE || b == EXIT_USAGE) return EXIT_USAGE;
    if (a == EXIT_INCOMPLETE || b == EXIT_INCOMPLETE) return EXIT_INCOMPLETE;
    return EXIT_OK;
}

/* A table cell: escaped, '|' and line ends made harmless, in backticks
 * when code. */
static void cell(FILE *f, const char *s, int code) {
    char buf[CMD_ESC_MAX];
    cmd_esc(s ? s : "", buf, sizeof buf);
    if (code) fputc('`', f);
    for (const char *p = buf; *p; p++) {
        if (*p == '|') fputs("\\|", f);
        else if (*p == '`' && code) fputc('\'', f);
        else fputc(*p, f);
    }
    if (code) fputc('`', f);
}

/* A shell word for a reproducing command line: single-quoted when needed. */
static void shword(FILE *f, const char *s) {
    char buf[CMD_ESC_MAX];
    cmd_esc(s, buf, sizeof buf);
    if (buf[0] && strspn(buf, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=+:,@") == strlen(buf)) {
        fputs(buf, f);
        return;
    }
    fputc('\'', f);
    for (const char *p = buf; *p; p++) {
        if (*p == '\'') fputs("'\\''", f);
        else fputc(*p, f);
    }
    fputc('\'', f);
}

static void repro(FILE *f, const char *cmd, const char *a, const char *b, const char *opt) {
    fprintf(f, "\nReproduce: `probetop %s ", cmd);
    shword(f, a);
    if (b) {
        fputc(' ', f);
        shword(f, b);
    }
    if (opt) fprintf(f, " %s", opt);
    fputs("`\n", f);
}

/* ---- what was read ---- */

static int count_distinct(const struct dataset *ds, int ranks) {
    int n = 0;
    for (size_t i = 0; i < ds->nrankdirs; i++) {
        int32_t k = ranks ? ds->rankdirs[i].rank : ds->rankdirs[i].step;
        size_t j = 0;
        while (j < i && (ranks ? ds->rankdirs[j].rank : ds->rankdirs[j].step) != k) j++;
        if (j == i) n++;
    }
    return n;
}

static void md_read(FILE *f, const struct dataset *ds, const char *path) {
    int steps = ds->nrankdirs ? count_distinct(ds, 0) : ds->cube ? ds->cube->nsteps : 0;
    int ranks = ds->nrankdirs ? count_distinct(ds, 1) : ds->cube ? ds->cube->nranks : 0;
    fprintf(f, "\n## What was read\n\n| input | format | steps | ranks | files read | skipped | partial | warnings |\n"
               "|---|---|--:|--:|--:|--:|--:|--:|\n| ");
    cell(f, path, 1);
    fprintf(f, " | %s | %d | %d | %zu | %zu | %zu | %zu |\n", formats_name(ds->format), steps, ranks, ds->files_read,
            ds->nskipped, ds->npartial, ds->nwarnings);
    size_t n = ds->nskipped + ds->npartial;
    for (size_t i = 0; i < n && i < 20; i++) {
        int sk = i < ds->nskipped;
        fprintf(f, "%s- %s: ", i ? "" : "\nNot read whole:\n\n", sk ? "skipped" : "partial (last row cut)");
        cell(f, sk ? ds->skipped[i] : ds->partial[i - ds->nskipped], 1);
        fputc('\n', f);
    }
    if (n > 20) fprintf(f, "- ... and %zu more (`probetop info` lists them)\n", n - 20);
}

/* ---- NaN/Inf (overflow) ---- */

static int md_overflow(FILE *f, const struct dataset *ds, const char *path, struct pt_error *err) {
    struct ovf_list scanned = {0};
    const struct ovf_list *l = &ds->ovf;
    if (!ds->ovf_levels) {
        if (ds->cube && ovf_scan_cube(ds->cube, &scanned, err) != 0) return EXIT_USAGE;
        l = &scanned;
    }
    struct ovf_origin_report origin = {0};
    if (ovf_origin_run(ds, &origin, err) != 0) {
        ovf_list_free(&scanned);
        return EXIT_USAGE;
    }
    /* overflow's own answer at its defaults: every level listed, the gate at critical */
    struct overflow_answer r = {.ds = ds, .l = l, .levels = ds->ovf_levels, .min_level = OVF_MEDIUM,
                                .fail_on = OVF_CRITICAL, .origin = &origin};
    if (overflow_answer_build(&r) != 0) {
        overflow_answer_free(&r);
        ovf_origin_report_free(&origin);
        ovf_list_free(&scanned);
        pt_errorf(err, "out of memory");
        return EXIT_USAGE;
    }
    const size_t *counts = r.counts;
    long first = r.first, o = r.first_is_origin ? r.first : -1;

    fprintf(f, "\n## NaN/Inf\n\n");
    if (ds->ovf_levels)
        fprintf(f, "| critical | high | medium |\n|--:|--:|--:|\n| %zu | %zu | %zu |\n", counts[OVF_CRITICAL],
                counts[OVF_HIGH], counts[OVF_MEDIUM]);
    else
        fprintf(f, "| non-finite cells |\n|--:|\n| %zu |\n", counts[OVF_NONE]);
    if (first < 0) {
        fprintf(f, "\nNo NaN or Inf found.\n");
    } else {
        const struct ovf_entry *e = &l->v[first];
        fprintf(f, "\nFirst occurrence%s:\n\n| level | step | micro step | rank | position | node | non-finite |\n"
                   "|---|--:|--:|--:|--:|---|---|\n| %s | %d | ",
                o >= 0 ? " (born here: origin across ranks)" : "",
                ds->ovf_levels ? ovf_level_name((enum ovf_level)e->level) : "non-finite", (int)e->step);
        if (e->micro >= 0) fprintf(f, "%d", (int)e->micro);
        else fputc('-', f);
        fprintf(f, " | %d | %u | ", (int)e->rank, (unsigned)e->pos);
        cell(f, e->name, 1);
        fputs(" | ", f);
        cell(f, e->what, 0);
        fputs(" |\n", f);
        if (origin.note[0] || origin.n) {
            fputs("\nOrigin across ranks (as `probetop overflow` prints it):\n\n```\n", f);
            if (origin.note[0]) fprintf(f, "%s\n", CMD_ESC(origin.note));
            ovf_origin_print_text(f, &origin);
            fputs("```\n", f);
        }
        repro(f, "overflow", path, NULL, NULL);
    }
    const struct anomaly_list *al = &ds->anomalies;
    if (al->n) {
        const struct anomaly *a = &al->v[0];
        fprintf(f, "\n## msProbe anomaly reports\n\n%zu report%s%s; the first in msProbe's first-anomaly order:\n\n"
                   "| level | step | micro step | rank | rule | op | tag |\n|---|--:|--:|--:|---|---|---|\n| %s | %d | %d | %d | %s | ",
                al->n, al->n == 1 ? "" : "s", al->analyse ? " (anomaly_analyse.json)" : "",
                ovf_level_name((enum ovf_level)anomaly_gate_level(a)), (int)a->step, (int)a->micro_step, (int)a->rank,
                anomaly_rule_name((enum anomaly_rule)a->rule));
        cell(f, a->op[0] ? a->op : "-", 0);
        fputs(" | ", f);
        cell(f, a->tag_name, 1);
        fputs(" |\n", f);
        repro(f, "overflow", path, NULL, NULL);
    }
    int rc = overflow_answer_exit(&r);
    overflow_answer_free(&r);
    ovf_origin_report_free(&origin);
    ovf_list_free(&scanned);
    return rc;
}

/* ---- the first divergence (compare --first) ---- */

static int md_compare(FILE *f, const char *run, const char *bench) {
    struct pt_error err = {{0}};
    struct graph_dirs d[2] = {{0}};
    int rc = EXIT_USAGE;
    struct cmp_scan_pair *pairs = NULL;
    struct compare_run_pair *sum = NULL;
    size_t n = 0;
    if (graph_scan(run, &d[0], &err) != 0 || graph_scan(bench, &d[1], &err) != 0) {
        fprintf(stderr, "probetop report: %s\n", CMD_ESC(err.msg));
        goto done;
    }
    pairs = calloc(d[0].n + 1, sizeof *pairs);
    sum = calloc(d[0].n + 1, sizeof *sum);
    if (!pairs || !sum) {
        fprintf(stderr, "probetop report: out of memory\n");
        goto done;
    }
    for (size_t i = 0; i < d[0].n; i++) {
        long j = graph_pair(&d[0], &d[1], i);
        if (j >= 0) pairs[n++] = (struct cmp_scan_pair){d[0].v[i].step, d[0].v[i].rank, {d[0].v[i].dir, d[1].v[j].dir}};
    }
    if (!n) {
        fprintf(stderr, "probetop report: %s and %s share no (step, rank): nothing to compare\n", CMD_ESC(run),
                CMD_ESC(bench));
        goto done;
    }
    struct cmp_scan_opts so = {.threads = util_ncores(4)};
    struct compare_answer ans;
    compare_answer_scan(&ans, pairs, n, sum, &so, "probetop report: compare");
    size_t failed = ans.failed;
    rc = compare_answer_exit(n, failed, ans.found, 0);
    if (rc == EXIT_USAGE) goto done;
    int which = COMPARE_RUN_ERR;
    struct compare_run_first fi = {0};
    struct ovf_origin_report o = {0};
    long k = cmp_origin_first(pairs, n, sum, 0, 0, &o, &which, &fi, &err);
    if (err.msg[0]) fprintf(stderr, "probetop report: origin across ranks: %s\n", CMD_ESC(err.msg));
    fprintf(f, "\n## First divergence\n\nAgainst ");
    cell(f, bench, 1);
    fprintf(f, ": %zu (step, rank) pair%s compared", n, n == 1 ? "" : "s");
    if (failed) fprintf(f, ", %zu could not be", failed);
    fputs(".\n", f);
    if (k < 0 || !fi.have) {
        fputs("\nNo divergence: every compared node passes.\n", f);
    } else {
        char w[64];
        if (fi.worst < 0) snprintf(w, sizeof w, "-");
        else snprintf(w, sizeof w, "%.6g%%", fi.worst * 100);
        fprintf(f, "\n| node | level | step | micro step | rank | worst relative error | module |\n"
                   "|---|---|--:|--:|--:|--:|---|\n| ");
        cell(f, fi.name, 1);
        fprintf(f, " | %s | %d | %d | %d | %s | ", cmp_level_name(which == COMPARE_RUN_ERR ? CL_ERROR : CL_WARNING),
                (int)fi.at.step, (int)fi.at.micro, (int)fi.at.rank, w);
        cell(f, fi.in ? fi.in : "-", fi.in != NULL);
        fputs(" |\n", f);
        if (fi.det)
            fputs("\nDeterminism: the first operator whose inputs' checksums equal the benchmark's and whose "
                  "outputs' differ.\n", f);
        if (!err.msg[0] && o.n) {
            fputs("\nOrigin across ranks (as `probetop compare --first` prints it):\n\n```\n", f);
            ovf_origin_print_text(f, &o);
            fputs("```\n", f);
        }
        repro(f, "compare", run, bench, "--first");
    }
    compare_run_first_free(&fi);
    ovf_origin_report_free(&o);
done:
    if (sum)
        for (size_t i = 0; i < n; i++) compare_run_pair_clear(&sum[i]);
    free(sum);
    free(pairs);
    graph_dirs_free(&d[0]);
    graph_dirs_free(&d[1]);
    return rc;
}

/* ---- a profiler trace (trace) ---- */

static double us(int64_t ns) { return (double)ns / 1000.0; }
static double pct(int64_t part, int64_t whole) { return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0; }

static int md_trace(FILE *f, const struct dataset *ds, const char *path) {
    const struct trace_run *run = ds->trace;
    struct trace_straggler *g = NULL;
    size_t ng = 0;
    if (trace_stragglers(run, &g, &ng) != 0) {
        fprintf(stderr, "probetop report: out of memory\n");
        return EXIT_USAGE;
    }
    fputs("\n## Trace breakdown\n\n| rank | kernel_us | idle_us | idle% | compute_us | comp% | non_compute_us | non% "
          "| overlap% | kernels |\n|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n", f);
    for (int r = 0; r < run->nranks; r++) {
        const struct trace_stats *st = &run->ranks[r].total;
        double ov = trace_overlap_pct(st);
        char ovs[16];
        if (isnan(ov)) snprintf(ovs, sizeof ovs, "-");
        else snprintf(ovs, sizeof ovs, "%.2f", ov);
        fprintf(f, "| %d | %.0f | %.0f | %.2f | %.0f | %.2f | %.0f | %.2f | %s | %zu |\n", run->ranks[r].rank,
                us(st->kernel_ns), us(st->idle_ns), pct(st->idle_ns, st->kernel_ns), us(st->cat_ns[TRACE_COMPUTE]),
                pct(st->cat_ns[TRACE_COMPUTE], st->kernel_ns), us(st->non_compute_ns),
                pct(st->non_compute_ns, st->kernel_ns), ovs, st->nkernels);
    }
    if (ng) {
        fputs("\nStragglers (work = kernel time less exposed communication):\n\n| step | slowest | work_us | median_us "
              "| behind_us | behind% | ranks |\n|--:|--:|--:|--:|--:|--:|--:|\n", f);
        for (size_t i = 0; i < ng; i++)
            fprintf(f, "| %d | %d | %.0f | %.0f | %.0f | %.2f | %d |\n", g[i].step, g[i].rank, us(g[i].work),
                    us(g[i].median), us(g[i].work - g[i].median), pct(g[i].work - g[i].median, g[i].median), g[i].nranks);
    }
    repro(f, "trace", path, NULL, NULL);
    free(g);
    return EXIT_OK;
}

/* ---- training curves (curves) ---- */

static int md_curves(FILE *f, const struct dataset *ds, const char *path, const char *bench) {
    struct dataset *bs = NULL;
    if (bench) {
        struct load_opts lo;
        load_opts_init(&lo);
        if (!(bs = cmd_load(bench, &lo))) return EXIT_USAGE;
        if (!bs->curves) {
            fprintf(stderr, "probetop report: %s holds no training curves\n", CMD_ESC(bench));
            dataset_free(bs);
            return EXIT_USAGE;
        }
    }
    struct curves_verdict_opts o;
    curves_verdict_defaults(&o);
    struct curves_verdict v;
    if (curves_verdict_run(ds->curves, bs ? bs->curves : NULL, &o, &v) != 0) {
        fprintf(stderr, "probetop report: out of memory\n");
        dataset_free(bs);
        return EXIT_USAGE;
    }
    fputs("\n## Training curves\n\n| verdict | step | why |\n|---|--:|---|\n| ", f);
    fprintf(f, "%s | ", curves_verdict_name(&v));
    if (v.at != CURVES_NO_STEP) fprintf(f, "%lld", (long long)v.at);
    else fputc('-', f);
    fputs(" | ", f);
    cell(f, v.why, 0);
    fputs(" |\n", f);
    if (bench && v.misaligned)
        fprintf(f, "\nFirst misaligned step: %lld (relative error %.3g; threshold %g %%, window %d)%s.\n",
                (long long)v.mis_step, v.mis_rel, o.threshold * 100, o.window, v.from_start ? ", from the start" : "");
    for (size_t i = 0; i < v.ndump; i++)
        fprintf(f, "%sDump next: the %s of step %lld.\n", i ? "" : "\n", v.dump[i].pass, (long long)v.dump[i].step);
    repro(f, "curves", path, bench, NULL);
    int rc = v.found ? EXIT_FOUND : EXIT_OK;
    curves_verdict_free(&v);
    dataset_free(bs);
    return rc;
}

/* ---- the command ---- */

static const char *rc_text(int rc) {
    return rc == EXIT_FOUND ? "findings (exit 1)" : rc == EXIT_INCOMPLETE ? "nothing found in what was read, but not "
                                                                            "everything could be read (exit 3)"
                                                                          : "clean (exit 0)";
}

struct ropts {
    const char *run, *bench, *out, *curves, *curves_bench;
};

static int write_report(FILE *f, const struct ropts *ro) {
    const char *run = ro->run, *bench = ro->bench;
    struct load_opts lo;
    load_opts_init(&lo);
    lo.origin_keep = 1;   /* the origin search then reads each rank once */
    struct dataset *ds = cmd_load(run, &lo);
    if (!ds) return EXIT_USAGE;
    fputs("# probetop report: ", f);
    cell(f, run, 1);
    fputc('\n', f);
    md_read(f, ds, run);
    struct pt_error err = {{0}};
    int rc = md_overflow(f, ds, run, &err);
    if (rc == EXIT_USAGE) fprintf(stderr, "probetop report: %s\n", CMD_ESC(err.msg));
    if (rc != EXIT_USAGE && ds->trace) rc = rc_merge(rc, md_trace(f, ds, run));
    if (rc != EXIT_USAGE && bench) rc = rc_merge(rc, md_compare(f, run, bench));
    if (rc != EXIT_USAGE && ro->curves) {
        struct load_opts lo;
        load_opts_init(&lo);
        struct dataset *cs = cmd_load(ro->curves, &lo);
        if (!cs) rc = EXIT_USAGE;
        else if (!cs->curves) {
            fprintf(stderr, "probetop report: %s holds no training curves\n", CMD_ESC(ro->curves));
            rc = EXIT_USAGE;
        } else rc = rc_merge(rc, md_curves(f, cs, ro->curves, ro->curves_bench));
        dataset_free(cs);
    } else if (rc != EXIT_USAGE && ds->curves) {
        rc = rc_merge(rc, md_curves(f, ds, run, NULL));
    }
    if (rc != EXIT_USAGE) fprintf(f, "\n## Verdict\n\n%s\n", rc_text(rc));
    dataset_free(ds);
    return rc;
}

/* FILE written whole or not at all: a temporary file beside it, renamed. */
static int write_out(const char *out, const struct ropts *ro) {
    size_t n = strlen(out);
    char *tmp = malloc(n + 16);
    if (!tmp) return EXIT_USAGE;
    const char *slash = strrchr(out, '/');
    size_t dl = slash ? (size_t)(slash - out) + 1 : 0;
    snprintf(tmp, n + 16, "%.*s.%s.XXXXXX", (int)dl, out, out + dl);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        fprintf(stderr, "probetop report: cannot write %s: %s\n", CMD_ESC(out), strerror(errno));
        free(tmp);
        return EXIT_USAGE;
    }
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        unlink(tmp);
        free(tmp);
        return EXIT_USAGE;
    }
    int rc = write_report(f, ro);
    int bad = ferror(f) | (fflush(f) != 0) | (fsync(fd) != 0);
    bad |= fclose(f) != 0;
    if (rc != EXIT_USAGE && bad) {
        fprintf(stderr, "probetop report: cannot write %s\n", CMD_ESC(out));
        rc = EXIT_USAGE;
    }
    if (rc != EXIT_USAGE && rename(tmp, out) != 0) {
        fprintf(stderr, "probetop report: cannot write %s: %s\n", CMD_ESC(out), strerror(errno));
        rc = EXIT_USAGE;
    }
    if (rc == EXIT_USAGE) unlink(tmp);
    free(tmp);
    return rc;
}

static int run(int argc, char **argv) {
    const char *ops[2] = {NULL, NULL}, *v;
    struct ropts ro = {0};
    int np = 0, bad = 0, matched;
    for (int i = 1; i < argc; i++) {
        if ((v = opt_value(argc, argv, &i, "--out", &matched, &bad)) || matched) {
            if (bad) return EXIT_USAGE;
            ro.out = v;
        } else if ((v = opt_value(argc, argv, &i, "--curves-bench", &matched, &bad)) || matched) {
            if (bad) return EXIT_USAGE;
            ro.curves_bench = v;
        } else if ((v = opt_value(argc, argv, &i, "--curves", &matched, &bad)) || matched) {
            if (bad) return EXIT_USAGE;
            ro.curves = v;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "probetop report: unknown option '%s'\nusage: %s\n", CMD_ESC(argv[i]), cmd_report_entry.usage);
            return EXIT_USAGE;
        } else if (np == 2) {
            fprintf(stderr, "probetop report: RUN and BENCH given already: '%s' is one too many\nusage: %s\n",
                    CMD_ESC(argv[i]), cmd_report_entry.usage);
            return EXIT_USAGE;
        } else {
            ops[np++] = argv[i];
        }
    }
    if (np < 1) {
        fprintf(stderr, "probetop report: RUN missing\nusage: %s\n", cmd_report_entry.usage);
        return EXIT_USAGE;
    }
    if (ro.curves_bench && !ro.curves) {
        fprintf(stderr, "probetop report: --curves-bench goes with --curves\nusage: %s\n", cmd_report_entry.usage);
        return EXIT_USAGE;
    }
    ro.run = ops[0];
    ro.bench = ops[1];
    if (ro.out) return write_out(ro.out, &ro);
    return write_report(stdout, &ro);
}

const struct cmd_entry cmd_report_entry = {
    .name = "report",
    .usage = "probetop report RUN [BENCH] [--out FILE] [--curves LOG [--curves-bench LOG]]",
    .summary = "a Markdown summary for a ticket: what was read, the first NaN/Inf, the first divergence",
    .help = "  RUN                   what `probetop info` and `overflow` read: a dump, a monitor\n"
            "                        output folder, a .trend.db\n"
            "  BENCH                 optional: a benchmark dump; adds the first divergence as\n"
            "                        `probetop compare RUN BENCH --first` finds it\n"
            "  --out FILE            write the report to FILE (a temporary file in FILE's folder,\n"
            "                        renamed once complete) instead of stdout\n"
            "  --curves LOG          a run's training curves (a log, event files, CSV/JSONL):\n"
            "                        adds the verdict and the step to dump next as\n"
            "                        `probetop curves LOG` gives them (RUN's own, when RUN\n"
            "                        holds curves)\n"
            "  --curves-bench LOG    the benchmark's curves, as `probetop curves LOG BENCH`\n"
            "Sections: what was read (format, steps, ranks, files read, skipped, partial,\n"
            "warnings); NaN/Inf (counts per level, the first occurrence, its origin across\n"
            "ranks); msProbe anomaly reports (count, first); for a profiler trace the\n"
            "breakdown and stragglers `probetop trace` prints; the first divergence (node,\n"
            "level, step, micro step, rank, worst relative error, module); the curves'\n"
            "verdict; the verdict.  Each\n"
            "finding names the command line that reproduces it.\n"
            "Exit: 0 clean, 1 a finding (a NaN/Inf, an AnomalyNan report, an error-level\n"
            "divergence, curves not clean/aligned), 2 bad usage or unreadable input, 3 nothing found in what was read\n"
            "but some of it could not be read.\n",
    .run = run,
};
