/* read_monitor_tree: the walk of a monitor tree's rank folders and files
 * (v1 and monitor_v2, read_monitor.h, monitor_read_tree): every file of
 * the tree listed first, then read through the cache in one pipeline
 * (mon_cache_read_each) -- parsed on every thread, added to md in order:
 * ranks ascending, files by name; and what a read keeps of the cache (the
 * stamp, a cache of its own). */
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "model/util/fs.h"
#include "model/util/util.h"
#include "src/io/common/mapping.h"
#include "src/io/common/reader.h"
#include "src/io/load.h"
#include "src/io/monitor/mon_cache.h"
#include "src/io/monitor/read_monitor.h"

void monitor_free(struct monitor_data *md) {
    free(md->files);
    mon_cache_free(md->own);
    memset(md, 0, sizeof *md);
}

int monitor_use_cache(struct monitor_data *md, struct mon_cache *c) {
    if (!c && !md->own && !(md->own = mon_cache_new(UINT64_MAX))) return -1;
    md->pool = mon_cache_pool(c ? c : md->own);
    return 0;
}

void monitor_cache_stamp(const char *format, const struct mapping *map, const struct layout *layout, int follow,
                         char buf[MONITOR_STAMP_SIZE]) {
    /* the mapping's pairs by a hash of them: a stamp only has to differ */
    uint64_t h = mapping_hash(map);
    snprintf(buf, MONITOR_STAMP_SIZE, "%s map %zu %016llx layout %p follow %d", format, map ? map->n : 0,
             (unsigned long long)h, (const void *)layout, follow);
}

/* The tree's files, in the order they are read. */
struct tree_files {
    char **paths;
    unsigned char *cxs;     /* parse contexts, t->ctx_size bytes apart */
    size_t *dir;            /* the rank folder (index into rd) of each */
    size_t n, cappaths, capcxs, capdir;
};

/* Streaming (r->rank_done): the files just read, md->files[first..),
 * handed over, then their rows freed, the parts' too. */
static int hand_rank(const struct monitor_read *r, struct mon_cache *c, struct monitor_data *md, size_t first,
                     struct dataset *ds) {
    int rc = r->rank_done(r->rank_arg, md, first, ds);
    mon_cache_shed(c);
    for (size_t k = first; k < md->nfiles; k++) {
        md->files[k].rows = NULL;
        md->files[k].vals = NULL;
        md->files[k].cap = 0;
    }
    return rc;
}

/* The usable files of rank folder d (rd[di]) whose first step is within
 * cut onto tf.  0, or -1 without memory. */
static int list_rank(const struct monitor_tree *t, const struct monitor_read *r, const struct monitor_rankdir *d,
                     size_t di, long cut, struct tree_files *tf) {
    size_t nfs;
    int rc = 0;
    char **files = fs_list_dir(d->dir, 0, &nfs);
    for (size_t k = 0; files && k < nfs && rc == 0; k++) {
        int slot = t->match_csv(files[k]);
        if (slot < 0 || reader_csv_first_step(files[k]) > cut) continue;
        size_t pl = strlen(d->dir) + strlen(files[k]) + 2, np = tf->n;
        if (util_grow0((void **)&tf->paths, &tf->cappaths, np + 1, sizeof *tf->paths) != 0 ||
            util_grow0((void **)&tf->cxs, &tf->capcxs, np + 1, t->ctx_size) != 0 ||
            util_grow0((void **)&tf->dir, &tf->capdir, np + 1, sizeof *tf->dir) != 0 || !(tf->paths[np] = malloc(pl))) {
            rc = -1;
            break;
        }
        snprintf(tf->paths[np], pl, "%s/%s", d->dir, files[k]);
        t->set_ctx(tf->cxs + np * t->ctx_size, slot, (int32_t)d->rank, r);
        tf->dir[np] = di;
        tf->n++;
    }
    if (files) fs_free_list(files, nfs);
    return rc;
}

/* What each file read says to md (mon_cache_each_fn). */
struct tree_read {
    const struct monitor_tree *t;
    const struct monitor_read *r;
    const struct tree_files *tf;
    const struct monitor_rankdir *rd;   /* the rank folders tf->dir indexes */
    struct mon_cache *c;
    struct monitor_data *md;
    struct pt_error *err;
    size_t dir_first;       /* the tf index of the current rank folder's first file */
    size_t hand_first;      /* streamed: md->files index of the first file not handed over */
    size_t next;            /* the tf index of the next file */
    int said;               /* the read stopped here: err set, or by rank_done's own */
};

static int tree_each(void *arg, size_t i, const struct mon_cache_part *part, struct dataset *ds) {
    struct tree_read *w = arg;
    const struct tree_files *tf = w->tf;
    w->said = 1;
    if (i == 0 || tf->dir[i] != tf->dir[i - 1]) {
        /* a long load stops between rank folders (formats.h: o->cancel) */
        if (w->r->cancel && atomic_load(w->r->cancel)) return pt_errorf(w->err, "cancelled");
        w->dir_first = i;
    }
    if (w->t->add_part(w->md, part, w->r, ds) != 0) return pt_errorf(w->err, "out of memory reading %s", tf->paths[i]);
    ds->files_read++;
    /* streamed: MONITOR_STREAM_FILES files of a rank folder at a time, handed over as read */
    if (w->r->rank_done) {
        int last = i + 1 == tf->n || tf->dir[i + 1] != tf->dir[i];
        if (w->r->whole_ranks)   /* a rank's files at once, whatever its folders */
            last = i + 1 == tf->n || w->rd[tf->dir[i + 1]].rank != w->rd[tf->dir[i]].rank;
        if (last || (!w->r->whole_ranks && (i + 1 - w->dir_first) % MONITOR_STREAM_FILES == 0)) {
            if (hand_rank(w->r, w->c, w->md, w->hand_first, ds) != 0) return -1;
            w->hand_first = w->md->nfiles;
        }
    }
    w->said = 0;
    w->next = i + 1;
    return 0;
}

/* Each file's folder open (dirfds[k], for tf's file k; -1: its path is
 * opened whole): a file is then opened by openat there, one lookup and not
 * a walk of the whole path (a v1 tree has thousands of small files a
 * rank).  At most a quarter of the process's open files are taken by the
 * folders (the ones past that opened by path, as before), so the files'
 * own opens never run out.  A folder that cannot be opened here is left to
 * the file's open by path, which says why.  *dfd: per folder its fd, for
 * close_dirs. */
static int open_dirs(const struct monitor_rankdir *rd, size_t nr, const struct tree_files *tf, int **dirfds,
                     int **dfd) {
    struct rlimit rl;
    size_t most = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY ? (size_t)rl.rlim_cur / 4 : 256;
    *dirfds = malloc((tf->n ? tf->n : 1) * sizeof **dirfds);
    *dfd = malloc((nr ? nr : 1) * sizeof **dfd);
    if (!*dirfds || !*dfd) return -1;
    for (size_t i = 0; i < nr; i++)
        (*dfd)[i] = i < most ? open(rd[i].dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    for (size_t k = 0; k < tf->n; k++) (*dirfds)[k] = (*dfd)[tf->dir[k]];
    return 0;
}

static void close_dirs(int *dirfds, int *dfd, size_t nr) {
    for (size_t i = 0; dfd && i < nr; i++)
        if (dfd[i] >= 0) close(dfd[i]);
    free(dfd);
    free(dirfds);
}

/* The files of the rank folders rd[0..nr) (freed here) through cache c. */
static int read_ranks(const struct monitor_tree *t, const struct monitor_read *r, struct monitor_rankdir *rd,
                      size_t nr, struct mon_cache *c, struct dataset *ds, struct monitor_data *md,
                      struct pt_error *err) {
    for (size_t i = 0; i < nr; i++)
        if (rd[i].rank > md->max_rank) md->max_rank = (int32_t)rd[i].rank;
    md->folders_all = nr;
    if (r->shard_n > 0) {   /* the K-th block of the ranks, ascending: as every task sees them */
        size_t o = 0, all = nr;
        for (size_t i = 0; i < all; i++) {
            if (i * (size_t)r->shard_n / all != (size_t)(r->shard_k - 1)) { free(rd[i].dir); continue; }
            rd[o++] = rd[i];
        }
        nr = o;
    }
    md->nranks = (int)nr;
    int rc = 0;
    long cut = LONG_MAX;
    if (ds->max_steps > 0) {   /* progressive loading: the files of the first steps */
        long *firsts = NULL;
        size_t nfirst = 0, cap = 0;
        for (size_t i = 0; i < nr && rc == 0; i++)
            if (reader_csv_first_steps(rd[i].dir, t->match_csv, &firsts, &nfirst, &cap) != 0)
                rc = pt_errorf(err, "out of memory");
        if (rc == 0) cut = reader_step_cut(ds, firsts, nfirst);
        free(firsts);
    }
    struct tree_files tf = {0};
    for (size_t i = 0; i < nr && rc == 0; i++)
        if (r->cancel && atomic_load(r->cancel)) rc = pt_errorf(err, "cancelled");
        else if (list_rank(t, r, &rd[i], i, cut, &tf) != 0) rc = pt_errorf(err, "out of memory reading %s", rd[i].dir);
    struct tree_read w = {.t = t, .r = r, .tf = &tf, .rd = rd, .c = c, .md = md, .err = err};
    int *dirfds = NULL, *dfd = NULL;
    if (rc == 0 && open_dirs(rd, nr, &tf, &dirfds, &dfd) != 0) {
        free(dfd);   /* none opened: the other one failed */
        dfd = NULL;
        rc = pt_errorf(err, "out of memory");
    }
    if (rc == 0 && mon_cache_read_each(c, (const char *const *)tf.paths, dirfds, tf.n, t->max_bytes, t->parse, tf.cxs,
                                       t->ctx_size, 0, tree_each, &w, ds) != 0) {
        rc = -1;
        if (!w.said) pt_errorf(err, "out of memory reading %s", rd[tf.dir[w.next]].dir);
    }
    close_dirs(dirfds, dfd, nr);
    for (size_t k = 0; k < tf.n; k++) free(tf.paths[k]);
    free(tf.paths);
    free(tf.cxs);
    free(tf.dir);
    for (size_t i = 0; i < nr; i++) free(rd[i].dir);
    free(rd);
    /* every file was read: what the cache holds of files gone goes */
    if (rc == 0) mon_cache_end(c, r->shard_n == 0 && cut == LONG_MAX);
    return rc;
}

int monitor_read_tree(const char *path, const struct monitor_tree *t, const struct monitor_read *r,
                      struct dataset *ds, struct monitor_data *md, struct pt_error *err) {
    memset(md, 0, sizeof *md);
    /* streamed: a cache of this read only, keeping no part (each is freed
     * once its rank is handed over) */
    if (r->rank_done && !r->cache && !(md->own = mon_cache_new(0))) return pt_errorf(err, "out of memory");
    char stamp[MONITOR_STAMP_SIZE];
    monitor_cache_stamp(t->format, r->map, r->layout, ds->follow, stamp);
    if (monitor_use_cache(md, r->cache) != 0) return pt_errorf(err, "out of memory");
    struct mon_cache *c = r->cache ? r->cache : md->own;
    if (mon_cache_begin(c, stamp) != 0) {
        monitor_free(md);
        return pt_errorf(err, "out of memory");
    }
    md->pool = mon_cache_pool(c);   /* begin may have made a new one */
    struct monitor_rankdir *rd;
    size_t nr;
    int rc = t->list_ranks(path, ds, &rd, &nr, err);
    if (rc == 0) rc = read_ranks(t, r, rd, nr, c, ds, md, err);
    if (rc != 0) monitor_free(md);
    return rc;
}
