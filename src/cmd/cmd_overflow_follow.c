/* cmd_overflow_follow: `probetop overflow --follow PATH [--idle SECONDS]`,
 * the NaN/Inf triage of a run still being written (probetop(1), FOLLOW
 * MODE).  It reads PATH, prints every non-finite entry it has not printed
 * yet, one line each as `overflow` lists them, waits for the input to change
 * (src/io/common/watch.h: inotify or polling, never a busy loop), reads it again,
 * and so on.  It stops on SIGINT/SIGTERM (a flag the handler sets, nothing
 * more) or when the input has not changed for --idle seconds, and exits with
 * the gate's code for what it saw last: 1 when an entry reaches --fail-on,
 * else 0.  A file still being written is not a warning (load_opts.follow);
 * one that stays broken past DS_SETTLE_SECONDS is, on stderr. */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "model/overflow/anomaly.h"
#include "model/overflow/overflow.h"
#include "model/util/util.h"
#include "src/cmd/cmd.h"
#include "src/cmd/cmd_overflow_follow.h"
#include "src/io/load.h"
#include "src/io/dump/dump_cache.h"
#include "src/io/monitor/mon_cache.h"
#include "src/io/dump/ovf_origin.h"
#include "src/io/common/watch.h"

/* Hashes of what was printed already (entries, warnings). */
struct seen {
    uint64_t *v;
    size_t n, cap;
};

/* 1 when h is new (and now seen), 0 when seen before, -1 out of memory. */
static int seen_add(struct seen *s, uint64_t h) {
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i] == h) return 0;
    if (UTIL_PUSH(s->v, s->n, s->cap) != 0) return -1;
    s->v[s->n++] = h;
    return 1;
}

static uint64_t entry_hash(const struct ovf_entry *e) {
    int32_t k[4] = {e->step, e->micro, e->rank, (int32_t)e->pos};
    uint64_t h = util_hash(k, sizeof k, 0);
    h = util_hash(e->name ? e->name : "", e->name ? strlen(e->name) : 0, h);
    return util_hash(e->what ? e->what : "", e->what ? strlen(e->what) : 0, h);
}

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* One read of the input: prints its new entries and new warnings, sets
 * *failing to the gate's count.  0, or -1 when it did not load (said on
 * stderr unless the input is young: a writer at work). */
static int one_pass(const struct ovf_follow_opts *fo, struct load_opts *lo, struct seen *printed,
                    struct seen *warned, size_t *failing, size_t *pending, size_t *unread) {
    struct dataset *ds = NULL;
    struct pt_error err = {{0}};
    if (load_dataset(fo->path, lo, &ds, &err) != 0) {
        struct stat st;
        if (!(stat(fo->path, &st) == 0 && time(NULL) - st.st_mtime < DS_SETTLE_SECONDS))
            fprintf(stderr, "probetop overflow: %s\n", CMD_ESC(err.msg));
        return -1;
    }
    for (size_t i = 0; i < ds->nwarnings; i++)
        if (seen_add(warned, util_hash_str(ds->warnings[i])) == 1)
            fprintf(stderr, "probetop overflow: warning: %s\n", CMD_ESC(ds->warnings[i]));
    struct ovf_list scanned = {0};
    const struct ovf_list *l = &ds->ovf;
    int rc = 0;
    if (!ds->ovf_levels) {
        if (ds->cube && ovf_scan_cube(ds->cube, &scanned, &err) != 0) {
            fprintf(stderr, "probetop overflow: %s\n", CMD_ESC(err.msg));
            rc = -1;
        }
        l = &scanned;
    }
    size_t fail = 0;
    for (size_t i = 0; rc == 0 && i < l->n; i++) {
        const struct ovf_entry *e = &l->v[i];
        if ((int)ovf_gate_level(e) >= fo->fail_on) fail++;
        /* NaN/Inf only: the numeric-jump heuristic flags every healthy sum
         * reduction of every step (it counts for --fail-on high, unprinted) */
        if (e->jump || (ds->ovf_levels && (int)e->level < fo->min_level)) continue;
        int r = seen_add(printed, entry_hash(e));
        if (r < 0) { fprintf(stderr, "probetop overflow: out of memory\n"); rc = -1; break; }
        if (r == 0) continue;
        char micro[16];
        if (e->micro >= 0) snprintf(micro, sizeof micro, "%d", (int)e->micro);
        else snprintf(micro, sizeof micro, "-");
        char name[2048], what[1024];
        printf("  %-9s %5d %5s %5d %7u  %s  %s\n",
               ds->ovf_levels ? ovf_level_name((enum ovf_level)e->level) : "nonfinite", (int)e->step, micro,
               (int)e->rank, (unsigned)e->pos, pt_escape(e->name ? e->name : "", e->name ? strlen(e->name) : 0, name, sizeof name),
               pt_escape(e->what ? e->what : "", e->what ? strlen(e->what) : 0, what, sizeof what));
    }
    /* msProbe's anomaly reports of a monitor tree, as they appear */
    for (size_t i = 0; rc == 0 && i < ds->anomalies.n; i++) {
        const struct anomaly *an = &ds->anomalies.v[i];
        if ((int)anomaly_gate_level(an) >= fo->fail_on) fail++;
        char tag[2048], msg[1024];
        pt_escape(an->tag_name, strlen(an->tag_name), tag, sizeof tag);
        pt_escape(an->message, strlen(an->message), msg, sizeof msg);
        char key[3200];
        snprintf(key, sizeof key, "anomaly %d %d %d %d %s %s", (int)an->step, (int)an->micro_step, (int)an->rank,
                 (int)an->call_id, tag, msg);
        int r = seen_add(printed, util_hash_str(key));
        if (r < 0) { fprintf(stderr, "probetop overflow: out of memory\n"); rc = -1; break; }
        if (r == 1)
            printf("  %-9s %5d %5d %5d %7d  %s  %s (msProbe anomaly report)\n",
                   ovf_level_name((enum ovf_level)anomaly_gate_level(an)), (int)an->step, (int)an->micro_step,
                   (int)an->rank, (int)an->call_id, tag, msg);
    }
    fflush(stdout);
    if (rc == 0) {
        *failing = fail;
        *pending = ds->npending;
        *unread = ds->nskipped + ds->npartial;   /* broken after 10 s without a change */
    }
    ovf_list_free(&scanned);
    dataset_free(ds);
    return rc;
}

static int follow(const struct ovf_follow_opts *fo, struct load_opts *lop);

/* When it stops: the origin across ranks of what is there then
 * (probetop-rules(7), ORIGIN ACROSS RANKS), the block `overflow` ends with. */
static void print_origin(const struct ovf_follow_opts *fo, struct load_opts *lo) {
    struct dataset *ds = NULL;
    struct pt_error err = {{0}};
    struct ovf_origin_report o = {0};
    if (load_dataset(fo->path, lo, &ds, &err) != 0) return;
    if (ovf_origin_run(ds, &o, &err) != 0) fprintf(stderr, "probetop overflow: origin across ranks: %s\n", CMD_ESC(err.msg));
    else ovf_origin_print_text(stdout, &o);
    ovf_origin_report_free(&o);
    dataset_free(ds);
}

int ovf_follow_run(const struct ovf_follow_opts *fo, const struct load_opts *lo_in) {
    struct load_opts lo = *lo_in;
    lo.follow = 1;
    /* a monitor tree's unchanged files, a dump's unchanged rank folders,
     * are not parsed again each pass */
    lo.mon_cache = mon_cache_new((uint64_t)1 << 30);
    lo.dump_cache = dump_cache_new((uint64_t)1 << 30);   /* what a dump's parses may keep */
    int rc = lo.mon_cache && lo.dump_cache ? follow(fo, &lo)
                                           : (fprintf(stderr, "probetop overflow: out of memory\n"), EXIT_USAGE);
    mon_cache_free(lo.mon_cache);
    dump_cache_free(lo.dump_cache);
    return rc;
}

static int follow(const struct ovf_follow_opts *fo, struct load_opts *lop) {
    struct load_opts lo = *lop;
    struct watch *w = NULL;
    struct pt_error err = {{0}};
    struct stat st;
    /* a path that is not there is a typo, not a run about to start (an
     * empty folder is watched until data appears) */
    if (stat(fo->path, &st) != 0) {
        fprintf(stderr, "probetop overflow: %s: %s\n", CMD_ESC(fo->path), strerror(errno));
        return EXIT_USAGE;
    }
    if (watch_open(fo->path, &w, &err) != 0) {
        fprintf(stderr, "probetop overflow: %s\n", CMD_ESC(err.msg));
        return EXIT_USAGE;
    }
    struct seen printed = {0}, warned = {0};
    size_t failing = 0, pending = 0, unread = 0;
    cmd_stop_catch(0);   /* SIGINT, SIGTERM: the loop ends at its next wake */
    printf("following %s (%s; Ctrl-C stops", CMD_ESC(fo->path), watch_notifies(w) ? "inotify" : "polling");
    if (fo->idle > 0) printf(", or %g s without a change", fo->idle);
    printf(")\n  %-9s %5s %5s %5s %7s  %s\n", "level", "step", "micro", "rank", "pos", "name  non-finite");
    fflush(stdout);
    int loaded = one_pass(fo, &lo, &printed, &warned, &failing, &pending, &unread) == 0;
    double last_change = now_s(), dirty = 0;
    int settled = pending == 0;
    while (!atomic_load(&cmd_stop)) {
        double now = now_s();
        if (fo->idle > 0 && now - last_change >= fo->idle && !dirty) break;
        int r = watch_wait(w, 250, -1);
        now = now_s();
        if (r == 1) {
            last_change = now;
            if (!dirty) dirty = now;
            settled = 0;
        }
        /* a burst of writes is one read: 200 ms after the first of them */
        if (dirty && now - dirty >= 0.2) {
            dirty = 0;
            if (one_pass(fo, &lo, &printed, &warned, &failing, &pending, &unread) == 0) loaded = 1;
        } else if (!settled && now - last_change >= DS_SETTLE_SECONDS + 0.5) {
            /* quiet: a file still broken now is broken (and said) */
            settled = 1;
            if (pending && one_pass(fo, &lo, &printed, &warned, &failing, &pending, &unread) == 0) loaded = 1;
        }
    }
    cmd_stop_release(0);
    if (loaded) print_origin(fo, &lo);
    watch_close(w);
    free(printed.v);
    free(warned.v);
    if (pending)
        fprintf(stderr, "probetop overflow: %zu file%s still being written when it stopped\n", pending,
                pending == 1 ? "" : "s");
    if (!loaded) {
        fprintf(stderr, "probetop overflow: %s: no data could be read while it was followed\n", CMD_ESC(fo->path));
        return EXIT_USAGE;
    }
    const char *lv = ovf_level_name((enum ovf_level)fo->fail_on);
    int sig = atomic_load(&cmd_stop);
    if (sig) printf("stopped by %s\n", cmd_signal_name(sig));
    else printf("no change for %g s\n", fo->idle);
    /* a gate never passes on what it could not read (probetop(1), EXIT STATUS) */
    if (failing) printf("gate (--fail-on %s): %zu record%s at or above it: exit 1\n", lv, failing, failing == 1 ? "" : "s");
    else if (unread)
        printf("gate (--fail-on %s): nothing at or above it in what was read, but %zu file%s could not be read "
               "whole (see the warnings): %s\n", lv, unread, unread == 1 ? "" : "s",
               fo->partial_ok ? "accepted by --partial-ok: exit 0" : "cannot say: exit 3");
    else printf("gate (--fail-on %s): nothing at or above it: exit 0\n", lv);
    fflush(stdout);
    return failing ? EXIT_FOUND : unread && !fo->partial_ok ? EXIT_INCOMPLETE : EXIT_OK;
}
