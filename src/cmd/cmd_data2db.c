/* cmd_data2db: msProbe's `data2db` (probetop-formats(5), TREND.DB) with its flags and
 * output names: dump_data.trend.db and/or monitor_data.trend.db. */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "src/cmd/cmd.h"
#include "src/io/load.h"
#include "src/io/trenddb/write_trenddb.h"

/* Creates path and its missing parents.  *made gets the topmost folder this
 * call created (malloc'd, NULL when it created none), so that a run that
 * fails can take away what it made (unmake). */
static int mkdir_p(const char *path, char **made) {
    char buf[4096];
    *made = NULL;
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) { errno = ENAMETOOLONG; return -1; }
    size_t l = strlen(buf);
    if (!l) { errno = ENOENT; return -1; }
    while (l > 1 && buf[l - 1] == '/') buf[--l] = '\0';
    for (char *p = buf + 1;; p++) {
        if (*p && *p != '/') continue;
        char c = *p;
        *p = '\0';
        if (mkdir(buf, 0777) == 0) {
            if (!*made && !(*made = strdup(buf))) return -1;
        } else if (errno != EEXIST) return -1;
        *p = c;
        if (!c) break;
    }
    struct stat st;
    if (stat(buf, &st) != 0) return -1;
    if (!S_ISDIR(st.st_mode)) { errno = EEXIST; return -1; }   /* a file in the way */
    return 0;
}

/* Removes the folders mkdir_p made, deepest first, while they are empty. */
static void unmake(const char *path, const char *made) {
    if (!made) return;
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    size_t top = strlen(made);
    for (;;) {
        size_t l = strlen(buf);
        while (l > 1 && buf[l - 1] == '/') buf[--l] = '\0';
        if (l < top || rmdir(buf) != 0 || l == top) break;
        char *slash = strrchr(buf, '/');
        if (!slash) break;
        *slash = '\0';
    }
}

static void report(const struct tdb_result *r, double secs) {
    if (r->shard_n && r->empty) {
        fprintf(stderr, "probetop: wrote %s: shard %d of %d has no rank of its own (more tasks than ranks): empty, "
                        "so that the set is complete\n", CMD_ESC(r->path), r->shard_k, r->shard_n);
        return;
    }
    if (r->shard_n) {
        fprintf(stderr, "probetop: wrote %s: shard %d of %d, ranks %d..%d: %zu targets, %zu rows (%.2f s, %.0f rows/s)\n",
                CMD_ESC(r->path), r->shard_k, r->shard_n, (int)r->min_rank, (int)r->max_rank, r->targets, r->rows, secs,
                secs > 0 ? (double)r->rows / secs : 0.0);
        return;
    }
    fprintf(stderr, "probetop: wrote %s: %zu targets, %zu rows, steps 0..%d, ranks 0..%d (%.2f s, %.0f rows/s)\n",
            CMD_ESC(r->path), r->targets, r->rows, (int)r->max_step, (int)r->max_rank, secs,
            secs > 0 ? (double)r->rows / secs : 0.0);
}

/* Messages carry file names and file contents: escaped for the terminal. */
static void say(const char *prefix, const char *msg) {
    char esc[4096];
    fprintf(stderr, "%s%s\n", prefix, pt_escape(msg, strlen(msg), esc, sizeof esc));
}

static void print_notes(const struct dataset *ds) {
    for (size_t i = 0; i < ds->nwarnings; i++) say("probetop: warning: ", ds->warnings[i]);
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* SIGINT, SIGTERM or SIGHUP asks the writer to stop (cmd_stop); it removes
 * its temporary file and the old database stays as it was.  A second signal
 * ends the run at once (the next run removes what is left). */
#define DATA2DB_STOP (CMD_STOP_HUP | CMD_STOP_TWICE)

static int run(int argc, char **argv) {
    const char *data = NULL, *db = NULL, *parallel = NULL, *merge = NULL;
    int shard_k = 0, shard_n = 0;
    struct layout *layout = NULL;
    struct load_opts lo;
    load_opts_init(&lo);
    for (int i = 1; i < argc; i++) {
        int m = 0, bad = 0;
        const char *v;
        if ((v = opt_value(argc, argv, &i, "--data", &m, &bad)) || m) { if (bad) return EXIT_USAGE; data = v; continue; }
        if ((v = opt_value(argc, argv, &i, "--db", &m, &bad)) || m) { if (bad) return EXIT_USAGE; db = v; continue; }
        if ((v = opt_value(argc, argv, &i, "--mapping", &m, &bad)) || m) { if (bad) return EXIT_USAGE; lo.mapping = v; continue; }
        if ((v = opt_value(argc, argv, &i, "--format", &m, &bad)) || m) {
            if (bad) return EXIT_USAGE;
            if (formats_parse(v, &lo.format) != 0 || (lo.format && !lo.format->write_trenddb)) {
                char names[256];
                fprintf(stderr, "probetop data2db: --format takes auto, %s, not '%s'\n", formats_names(names, sizeof names, 1), CMD_ESC(v));
                return EXIT_USAGE;
            }
            continue;
        }
        if ((v = opt_value(argc, argv, &i, "--micro_step", &m, &bad)) || m) {
            if (bad) return EXIT_USAGE;
            if (opt_bool(v, &lo.micro_step) != 0) {
                fprintf(stderr, "probetop data2db: --micro_step takes true or false, not '%s'\n", CMD_ESC(v));
                return EXIT_USAGE;
            }
            continue;
        }
        if ((v = opt_value(argc, argv, &i, "--parallel", &m, &bad)) || m) { if (bad) return EXIT_USAGE; parallel = v; continue; }
        if ((v = opt_value(argc, argv, &i, "--merge", &m, &bad)) || m) { if (bad) return EXIT_USAGE; merge = v; continue; }
        if ((v = opt_value(argc, argv, &i, "--shard", &m, &bad)) || m) {
            if (bad || cmd_shard_parse("data2db", v, &shard_k, &shard_n) != 0) return EXIT_USAGE;
            continue;
        }
        if ((v = opt_value(argc, argv, &i, "--process_num", &m, &bad)) || m) {
            long n;
            if (bad) return EXIT_USAGE;
            if (opt_int(v, 1, 128, &n) != 0) {
                fprintf(stderr, "probetop data2db: --process_num takes 1..128, not '%s'\n", CMD_ESC(v));
                return EXIT_USAGE;
            }
            lo.threads = (int)n;
            continue;
        }
        int none = 0;
        return cmd_operand(&cmd_data2db_entry, argv[i], NULL, &none);   /* it takes none: refused */
    }
    if (merge && (data || shard_n)) {
        fprintf(stderr, "probetop data2db: --merge DIR takes the shards in DIR: no --data or --shard with it\n");
        return EXIT_USAGE;
    }
    if ((!data && !merge) || !db) {
        fprintf(stderr, "probetop data2db: --data DIR (or --merge DIR) and --db OUTDIR are required\n");
        return EXIT_USAGE;
    }
    struct stat st;
    const char *in = merge ? merge : data;
    int found = stat(in, &st) == 0;
    if (!found || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "probetop data2db: %s: %s\n", CMD_ESC(in), found ? "not a folder" : strerror(errno));
        return EXIT_USAGE;
    }
    char *made = NULL;
    if (mkdir_p(db, &made) != 0) {
        fprintf(stderr, "probetop data2db: %s: cannot create the output folder: %s\n", CMD_ESC(db),
                errno == EEXIST ? "a file of that name is in the way" : strerror(errno));
        if (made) unmake(db, made);
        free(made);
        return EXIT_USAGE;
    }
    if (parallel) {
        struct layout_config cfg;
        struct pt_error e;
        if (layout_config_parse(&cfg, parallel, &e) != 0 || !(layout = layout_new(&cfg, &e))) {
            fprintf(stderr, "probetop data2db: --parallel: %s\n", CMD_ESC(e.msg));
            unmake(db, made);
            free(made);
            return EXIT_USAGE;
        }
        lo.layout = layout;
    }
    int wrote = 0, failed = 0;
    struct pt_error err;
    lo.cancel = &cmd_stop;
    cmd_stop_catch(DATA2DB_STOP);
    struct tdb_result res;
    if (merge) {
        /* dump shards, then monitor shards, as data2db writes them */
        int any = 0;
        for (int monitor = 0; monitor < 2 && !atomic_load(&cmd_stop); monitor++) {
            if (!trenddb_shards_present(merge, monitor)) continue;
            any = 1;
            double t0 = now();
            struct dataset *ds = calloc(1, sizeof *ds);
            if (!ds) { fprintf(stderr, "probetop data2db: out of memory\n"); layout_free(layout); free(made); return EXIT_USAGE; }
            if (trenddb_merge(merge, monitor, db, &lo, ds, &res, &err) == 0) { report(&res, now() - t0); wrote++; }
            else { if (!atomic_load(&cmd_stop)) say("probetop data2db: ", err.msg); failed++; }
            print_notes(ds);
            dataset_free(ds);
        }
        if (!any) {
            say("probetop data2db: no dump_data.shard-K-of-N.trend.db or monitor_data.shard-K-of-N.trend.db file in ", merge);
            failed++;
        }
    }
    lo.shard_k = shard_k;   /* the writers take their share from the options */
    lo.shard_n = shard_n;
    /* every row of the reader table with a writer, in table order (msProbe: dump, then
     * monitor): the forced one, or each that recognises the folder */
    for (size_t i = 0; !merge && i < formats_nrows; i++) {
        const struct formats_row *f = formats_rows[i];
        if (!f->write_trenddb || (lo.format && lo.format != f)) continue;
        if (atomic_load(&cmd_stop) || (!lo.format && f->detect(data, &st) <= 0)) continue;
        struct dataset *ds = calloc(1, sizeof *ds);
        double t0 = now();
        if (!ds) { fprintf(stderr, "probetop data2db: out of memory\n"); layout_free(layout); free(made); return EXIT_USAGE; }
        if (f->write_trenddb(data, db, &lo, ds, &res, &err) == 0) { report(&res, now() - t0); wrote++; }
        else { if (!atomic_load(&cmd_stop)) say("probetop data2db: ", err.msg); failed++; }
        print_notes(ds);
        dataset_free(ds);
    }
    cmd_stop_release(DATA2DB_STOP);
    int sig = atomic_load(&cmd_stop);
    if (sig) {
        /* the writer removed its temporary file; an existing database was never touched */
        const char *name = cmd_signal_name(sig);
        if (failed || !wrote)
            fprintf(stderr, "probetop data2db: interrupted by %s: the database being written was removed; "
                            "an older one of the same name in %s is as it was\n", name, db);
        else
            fprintf(stderr, "probetop data2db: interrupted by %s after the databases above were complete\n", name);
        unmake(db, made);
        free(made);
        layout_free(layout);
        signal(sig, SIG_DFL);
        raise(sig);   /* the shell sees how it ended */
        return 128 + sig;
    }
    if (!wrote && !failed) {
        char whats[1024];
        fprintf(stderr, "probetop data2db: %s: no %s found\n", CMD_ESC(data), formats_whats(whats, sizeof whats, 1, 0));
    }
    layout_free(layout);
    if (!wrote) unmake(db, made);   /* a failed run leaves no folder it created */
    free(made);
    return wrote && !failed ? EXIT_OK : EXIT_USAGE;
}

const struct cmd_entry cmd_data2db_entry = {
    .name = "data2db",
    .usage = "probetop data2db --data DIR --db OUTDIR [--format NAME] [--mapping FILE] [--micro_step true|false] [--parallel SPEC] [--shard auto|K/N]\n"
             "       probetop data2db --merge DIR --db OUTDIR",
    .summary = "write msProbe-compatible .trend.db files from dump or monitor data",
    .help = "  --data DIR            dump root (step*/rank*/) or monitor output (<time>-rank<R>-<id>/,\n"
            "                        monitor_v2: rank_<R>/)\n"
            "  --db OUTDIR           output folder (created); files dump_data.trend.db, monitor_data.trend.db\n"
            "  --format NAME         auto (default: every format with a data2db writer that the folder\n"
            "                        holds, a dump first) or one of them (`man probetop`, --format)\n"
            "  --mapping FILE        JSON {\"old\": \"new\"}: substring replacements applied to every name\n"
            "  --micro_step B        true (default): step axis counts micro steps; false: step numbers\n"
            "  --process_num N       reader threads (1..128; default one per core)\n"
            "  --parallel SPEC       Megatron layout, e.g. \"W=8 L=8 TP=2 PP=2 V=2\": write layers.<i> as the\n"
            "                        model's global layer index of each rank and chunk (not msProbe's names)\n"
            "  --shard K/N           convert only the K-th of N blocks of ranks, into\n"
            "                        <kind>_data.shard-K-of-N.trend.db; auto: K and N from mpirun\n"
            "                        (OMPI_COMM_WORLD_RANK/SIZE), srun (SLURM_PROCID/NTASKS) or PMI_RANK/SIZE\n"
            "  --merge DIR           join the complete set of shards in DIR into OUTDIR/<kind>_data.trend.db,\n"
            "                        the file one process writes from the same data\n"
            "The database is written to a temporary file and renamed into place; DIR is never written.\n",
    .run = run,
};
