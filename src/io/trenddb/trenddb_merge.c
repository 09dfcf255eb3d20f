/* trenddb_merge: `probetop data2db --merge` (write_trenddb.h): a complete
 * set of shards written by data2db --shard joined into the database one
 * unsharded run writes, or into a private temporary one for reading a
 * folder of shards (probetop(1), FILES).  Apart from the writers of dumps
 * and monitor trees: it reads databases, not dumps, and replays the
 * shards' recorded attempts instead of files; the file and its tables are
 * tdb.c's. */
#include "src/io/trenddb/write_trenddb.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/cube/names.h"
#include "model/util/util.h"
#include "src/io/common/sqlite_ro.h"
#include "src/io/dump/read_dump.h"
#include "src/io/monitor/read_monitor.h"
#include "src/io/trenddb/tdb.h"
#include "src/io/trenddb/tdb_summary.h"

/* ---- --merge: a set of dump shards into one database ----
 *
 * A shard keeps msProbe's tables for its own ranks plus, in probetop_shard*
 * tables, the files it read (place in the whole list, step group, micro
 * steps, local step of micro step 0) and every target id attempt it made, in
 * order.  The unsharded run's attempts are the shards' attempts in file
 * order, less those for a (target, metric) an earlier file of another shard
 * already brought in: replaying them gives the single run's target ids and
 * AUTOINCREMENT mark; the step groups give its micro step numbering. */

struct mshard {
    char *path;
    int k;
    sqlite3 *db;
    int any;
    /* monitor: per metric its id here and what its files had; micro steps */
    int mid[MONITOR_NMETRICS];
    uint32_t has_files, has_rows, mstat[MONITOR_NMETRICS];
    int32_t *sorig, *scount, *sbase;
    size_t nsteps;
    int64_t max_rank, min_step, max_step;
    struct names *tn;        /* its targets, in target_id order */
    int64_t *ltid, *gid;     /* per target: its id, the merged id */
    size_t nt, capt;
};

struct mfile {
    int64_t index, group;
    int32_t rank, micro, base, gbase;
    int shard;
};

struct matt {
    int64_t index, seq;
    int shard, metric;
    uint32_t lkey;
};

struct mset {
    struct mshard *v;
    int n;
    int monitor;             /* monitor_data shards, else dump_data */
    int micro;
    int64_t folders;         /* rank folders of the whole dump, as every shard saw them */
    struct mfile *files;
    size_t nfiles, capfiles;
    struct matt *att;
    size_t natt, capatt;
};

static void mset_free(struct mset *s) {
    for (int i = 0; i < s->n; i++) {
        free(s->v[i].path);
        if (s->v[i].db) sqlite3_close(s->v[i].db);
        names_free(s->v[i].tn);
        free(s->v[i].ltid);
        free(s->v[i].gid);
        free(s->v[i].sorig);
        free(s->v[i].scount);
        free(s->v[i].sbase);
    }
    free(s->v);
    free(s->files);
    free(s->att);
    memset(s, 0, sizeof *s);
}

static const char *shard_prefix(int monitor) { return monitor ? "monitor_data.shard-" : "dump_data.shard-"; }

/* name is <kind>_data.shard-K-of-N.trend.db exactly: 1, K and N set */
static int shard_name(const char *name, int monitor, int *k, int *n) {
    const char *prefix = shard_prefix(monitor);
    size_t pl = strlen(prefix);
    int pos = 0;
    char again[128];
    if (strncmp(name, prefix, pl) || sscanf(name + pl, "%d-of-%d.trend.db%n", k, n, &pos) != 2 || !pos ||
        name[pl + (size_t)pos] || *k < 1 || *k > *n)
        return 0;
    snprintf(again, sizeof again, "%s%d-of-%d.trend.db", prefix, *k, *n);
    return !strcmp(again, name);   /* no "+1" or "01" */
}

int trenddb_shards_present(const char *dir, int monitor) {
    DIR *d = opendir(dir);
    if (!d) return 0;
    struct dirent *e;
    int found = 0;
    const char *prefix = shard_prefix(monitor);
    while ((e = readdir(d)) && !found) found = !strncmp(e->d_name, prefix, strlen(prefix));
    closedir(d);
    return found;
}

static int cmp_mshard(const void *a, const void *b) {
    const struct mshard *x = a, *y = b;
    return (x->k > y->k) - (x->k < y->k);
}

/* Finds the shards of dir: all of one set, complete, none half-written. */
static int mset_list(struct mset *s, const char *dir, struct pt_error *err) {
    const char *prefix = shard_prefix(s->monitor);
    DIR *d = opendir(dir);
    if (!d) return pt_errorf(err, "%s: %s", dir, strerror(errno));
    struct dirent *e;
    int n = 0, cap = 0, rc = 0;
    char first[256] = "";
    while ((e = readdir(d)) && rc == 0) {
        int k, nn;
        if (strncmp(e->d_name, prefix, strlen(prefix))) continue;
        if (strstr(e->d_name, ".trend.db.tmp.")) {
            rc = pt_errorf(err, "%s/%s: a half-written shard (the temporary file of a data2db --shard task that is "
                                "still running or was killed): not read; run that task again, or remove the file",
                           dir, e->d_name);
            break;
        }
        if (!shard_name(e->d_name, s->monitor, &k, &nn)) continue;
        if (n && nn != s->v[0].k) {   /* v[0].k holds N until sorted */
            rc = pt_errorf(err, "%s: %s and %s belong to different sets of shards (of %d and of %d tasks)", dir, first,
                           e->d_name, s->v[0].k, nn);
            break;
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            struct mshard *x = realloc(s->v, (size_t)cap * sizeof *x);
            if (!x) { rc = pt_errorf(err, "out of memory"); break; }
            s->v = x;
        }
        if (!n) snprintf(first, sizeof first, "%s", e->d_name);
        memset(&s->v[n], 0, sizeof s->v[n]);
        s->v[n].k = nn;
        s->v[n].path = malloc(strlen(dir) + strlen(e->d_name) + 2);
        if (!s->v[n].path) { rc = pt_errorf(err, "out of memory"); break; }
        sprintf(s->v[n].path, "%s/%s", dir, e->d_name);
        s->n = ++n;
    }
    closedir(d);
    if (rc) return rc;
    if (!n) return pt_errorf(err, "%s: no %sK-of-N.trend.db file here", dir, prefix);
    int total = s->v[0].k;
    for (int i = 0; i < n; i++) {   /* now the K of each, from its name */
        int nn;
        const char *base = strrchr(s->v[i].path, '/') + 1;
        shard_name(base, s->monitor, &s->v[i].k, &nn);
    }
    qsort(s->v, (size_t)n, sizeof *s->v, cmp_mshard);
    if (n != total) {
        int missing = 1;
        for (int i = 0; i < n && s->v[i].k == missing; i++) missing++;
        return pt_errorf(err, "%s: incomplete set of shards: %d of %d present, %s%d-of-%d.trend.db "
                              "missing (a task failed or has not finished?)",
                         dir, n, total, prefix, missing, total);
    }
    return 0;
}

static int lkey_of(const struct mshard *sh, int64_t tid, uint32_t *key) {
    size_t lo = 0, hi = sh->nt;
    while (lo < hi) {
        size_t mi = (lo + hi) / 2;
        if (sh->ltid[mi] < tid) lo = mi + 1; else hi = mi;
    }
    if (lo >= sh->nt || sh->ltid[lo] != tid) return -1;
    *key = (uint32_t)lo;
    return 0;
}

static int shard_bad(struct pt_error *err, const struct mshard *sh, const char *what, sqlite3 *db) {
    return pt_errorf(err, "%s: not a complete probetop shard (%s%s%s)", sh->path, what, db ? ": " : "",
                     db ? sqlite3_errmsg(db) : "");
}

/* A monitor shard's metrics and micro steps.  (Each walk over a shard's
 * table ends at SQLITE_DONE or is an error: a page that does not read
 * would otherwise end it early, without a word.) */
static int mset_read_monitor(struct mshard *sh, struct pt_error *err) {
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(sh->db, "SELECT metric, metric_id, has_files, has_rows, statistics FROM probetop_shard_metrics",
                           -1, &st, NULL) != SQLITE_OK)
        return shard_bad(err, sh, "table probetop_shard_metrics", sh->db);
    int lrc;
    while ((lrc = sqlite3_step(st)) == SQLITE_ROW) {
        const unsigned char *name = sqlite3_column_text(st, 0);
        int m = 0;
        while (m < MONITOR_NMETRICS && (!name || strcmp((const char *)name, monitor_metric_names[m]))) m++;
        if (m == MONITOR_NMETRICS) { sqlite3_finalize(st); return shard_bad(err, sh, "an unknown metric", NULL); }
        sh->mid[m] = sqlite3_column_int(st, 1);
        if (sqlite3_column_int(st, 2)) sh->has_files |= 1u << m;
        if (sqlite3_column_int(st, 3)) sh->has_rows |= 1u << m;
        sh->mstat[m] = (uint32_t)sqlite3_column_int64(st, 4);
    }
    sqlite3_finalize(st);
    if (lrc != SQLITE_DONE) return shard_bad(err, sh, "table probetop_shard_metrics", sh->db);
    if (sqlite3_prepare_v2(sh->db, "SELECT step, micro_steps, base_step FROM probetop_shard_steps ORDER BY base_step",
                           -1, &st, NULL) != SQLITE_OK)
        return shard_bad(err, sh, "table probetop_shard_steps", sh->db);
    size_t cap = 0;
    while ((lrc = sqlite3_step(st)) == SQLITE_ROW) {
        if (sh->nsteps == cap) {
            cap = cap ? cap * 2 : 64;
            int32_t *a = realloc(sh->sorig, cap * sizeof *a), *b = a ? realloc(sh->scount, cap * sizeof *b) : NULL,
                    *c = b ? realloc(sh->sbase, cap * sizeof *c) : NULL;
            if (a) sh->sorig = a;
            if (b) sh->scount = b;
            if (c) sh->sbase = c;
            if (!a || !b || !c) { sqlite3_finalize(st); return pt_errorf(err, "out of memory"); }
        }
        sh->sorig[sh->nsteps] = sqlite3_column_int(st, 0);
        sh->scount[sh->nsteps] = sqlite3_column_int(st, 1);
        sh->sbase[sh->nsteps++] = sqlite3_column_int(st, 2);
    }
    sqlite3_finalize(st);
    if (lrc != SQLITE_DONE) return shard_bad(err, sh, "table probetop_shard_steps", sh->db);
    return 0;
}

/* Reads one shard's own tables. */
static int mset_read(struct mset *s, int i, struct pt_error *err) {
    struct mshard *sh = &s->v[i];
    sqlite3_stmt *st = NULL;
    if (sqlite_ro_open(sh->path, &sh->db, err) != 0) return -1;
    if (sqlite3_prepare_v2(sh->db, "SELECT kind, k, n, micro_step, any_rank, max_rank, min_step, max_step, rank_folders "
                                   "FROM probetop_shard", -1, &st, NULL) != SQLITE_OK)
        return shard_bad(err, sh, "table probetop_shard", sh->db);
    if (sqlite3_step(st) != SQLITE_ROW) { sqlite3_finalize(st); return shard_bad(err, sh, "probetop_shard is empty", NULL); }
    const unsigned char *kind = sqlite3_column_text(st, 0);
    int k = sqlite3_column_int(st, 1), n = sqlite3_column_int(st, 2), micro = sqlite3_column_int(st, 3);
    sh->any = sqlite3_column_int(st, 4);
    sh->max_rank = sqlite3_column_int64(st, 5);
    sh->min_step = sqlite3_column_int64(st, 6);
    sh->max_step = sqlite3_column_int64(st, 7);
    int64_t folders = sqlite3_column_int64(st, 8);
    int ok = kind && !strcmp((const char *)kind, s->monitor ? "monitor" : "dump");
    sqlite3_finalize(st);
    if (!ok) return shard_bad(err, sh, s->monitor ? "not a monitor shard" : "not a dump shard", NULL);
    if (s->monitor && mset_read_monitor(sh, err) != 0) return -1;
    if (k != sh->k || n != s->n)
        return pt_errorf(err, "%s: the file says it is shard %d of %d: renamed?", sh->path, k, n);
    if (i == 0) {
        s->micro = micro;
        s->folders = folders;
    } else if (micro != s->micro) {
        return pt_errorf(err, "%s and %s: written with different --micro_step", s->v[0].path, sh->path);
    } else if (folders != s->folders) {
        return pt_errorf(err, "%s and %s: not shards of one dump (%lld and %lld rank folders found)", s->v[0].path,
                         sh->path, (long long)s->folders, (long long)folders);
    }
    /* files */
    if (sqlite3_prepare_v2(sh->db, "SELECT file, step_group, rank, micro_steps, base_step FROM probetop_shard_files",
                           -1, &st, NULL) != SQLITE_OK)
        return shard_bad(err, sh, "table probetop_shard_files", sh->db);
    int lrc;
    while ((lrc = sqlite3_step(st)) == SQLITE_ROW) {
        if (util_grow0((void **)&s->files, &s->capfiles, s->nfiles + 1, sizeof *s->files) != 0) {
            sqlite3_finalize(st);
            return pt_errorf(err, "out of memory");
        }
        s->files[s->nfiles++] = (struct mfile){.index = sqlite3_column_int64(st, 0), .group = sqlite3_column_int64(st, 1),
                                               .rank = sqlite3_column_int(st, 2), .micro = sqlite3_column_int(st, 3),
                                               .base = sqlite3_column_int(st, 4), .shard = i};
    }
    sqlite3_finalize(st);
    if (lrc != SQLITE_DONE) return shard_bad(err, sh, "table probetop_shard_files", sh->db);
    /* targets */
    if (!(sh->tn = names_new())) return pt_errorf(err, "out of memory");
    if (sqlite3_prepare_v2(sh->db, "SELECT target_id, target_name, vpp_stage, micro_step FROM monitoring_targets "
                                   "ORDER BY target_id", -1, &st, NULL) != SQLITE_OK)
        return shard_bad(err, sh, "table monitoring_targets", sh->db);
    while ((lrc = sqlite3_step(st)) == SQLITE_ROW) {
        const unsigned char *name = sqlite3_column_text(st, 1);
        size_t len = (size_t)sqlite3_column_bytes(st, 1);
        uint32_t key = names_intern(sh->tn, name ? (const char *)name : "", name ? len : 0, sqlite3_column_int(st, 2),
                                    sqlite3_column_int(st, 3));
        if (key == NAMES_NONE || util_grow0((void **)&sh->ltid, &sh->capt, sh->nt + 1, sizeof *sh->ltid) != 0) {
            sqlite3_finalize(st);
            return pt_errorf(err, "out of memory");
        }
        if (key != sh->nt) { sqlite3_finalize(st); return shard_bad(err, sh, "a target twice", NULL); }
        sh->ltid[sh->nt++] = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    if (lrc != SQLITE_DONE) return shard_bad(err, sh, "table monitoring_targets", sh->db);
    if (!(sh->gid = calloc(sh->nt ? sh->nt : 1, sizeof *sh->gid))) return pt_errorf(err, "out of memory");
    /* attempts */
    if (sqlite3_prepare_v2(sh->db, "SELECT seq, file, target_id, metric_id FROM probetop_shard_attempts ORDER BY seq",
                           -1, &st, NULL) != SQLITE_OK)
        return shard_bad(err, sh, "table probetop_shard_attempts", sh->db);
    while ((lrc = sqlite3_step(st)) == SQLITE_ROW) {
        struct matt a = {.seq = sqlite3_column_int64(st, 0), .index = sqlite3_column_int64(st, 1), .shard = i,
                         .metric = sqlite3_column_int(st, 3)};
        if (lkey_of(sh, sqlite3_column_int64(st, 2), &a.lkey) != 0 || a.metric < 1 ||
            a.metric > (s->monitor ? MONITOR_NMETRICS : DM_N)) {
            sqlite3_finalize(st);
            return shard_bad(err, sh, "an attempt names an unknown target or metric", NULL);
        }
        if (util_grow0((void **)&s->att, &s->capatt, s->natt + 1, sizeof *s->att) != 0) {
            sqlite3_finalize(st);
            return pt_errorf(err, "out of memory");
        }
        s->att[s->natt++] = a;
    }
    sqlite3_finalize(st);
    if (lrc != SQLITE_DONE) return shard_bad(err, sh, "table probetop_shard_attempts", sh->db);
    return 0;
}

static int cmp_mfile_rank(const void *a, const void *b) {
    const struct mfile *x = a, *y = b;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    return (x->shard > y->shard) - (x->shard < y->shard);
}

static int cmp_mfile_index(const void *a, const void *b) {
    const struct mfile *x = a, *y = b;
    return (x->index > y->index) - (x->index < y->index);
}

static int cmp_mfile_lookup(const void *a, const void *b) {   /* shard, rank, base */
    const struct mfile *x = a, *y = b;
    if (x->shard != y->shard) return x->shard < y->shard ? -1 : 1;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    if (x->base != y->base) return x->base < y->base ? -1 : 1;
    return (x->micro > y->micro) - (x->micro < y->micro);   /* a file without rows first: never found */
}

static int cmp_matt(const void *a, const void *b) {
    const struct matt *x = a, *y = b;
    if (x->index != y->index) return x->index < y->index ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

static int cmp_prow(const void *a, const void *b) { return tdb_prow_cmp(a, b); }

/* Ranks of two shards overlap: name both. */
static int mset_check(struct mset *s, struct pt_error *err) {
    if (s->nfiles) qsort(s->files, s->nfiles, sizeof *s->files, cmp_mfile_rank);
    for (size_t i = 1; i < s->nfiles; i++)
        if (s->files[i].rank == s->files[i - 1].rank && s->files[i].shard != s->files[i - 1].shard)
            return pt_errorf(err, "%s and %s both hold rank %d: the shards of one run hold disjoint ranks "
                                  "(written from different data, or with a different --shard count?)",
                             s->v[s->files[i - 1].shard].path, s->v[s->files[i].shard].path, (int)s->files[i].rank);
    if (s->nfiles) qsort(s->files, s->nfiles, sizeof *s->files, cmp_mfile_index);
    for (size_t i = 1; i < s->nfiles; i++)
        if (s->files[i].index == s->files[i - 1].index)
            return pt_errorf(err, "%s and %s both hold rank folder number %lld: not shards of one run",
                             s->v[s->files[i - 1].shard].path, s->v[s->files[i].shard].path,
                             (long long)s->files[i].index);
    return 0;
}

/* A rank's rows of a shard, as they are stored, into t. */
static int bucket_insert(struct tdb *t, sqlite3_stmt *ins_rows, sqlite3_stmt *ins_row, int32_t rank,
                         struct tdb_prow *v, size_t n) {
    /* a shard's order usually survives the new ids: sort only when not */
    size_t k = 1;
    while (k < n && tdb_prow_cmp(&v[k - 1], &v[k]) < 0) k++;
    if (k < n) qsort(v, n, sizeof *v, cmp_prow);
    return tdb_insert_prows(t, ins_row, ins_rows, rank, v, n, 1, NULL);
}

/* One shard's trend_data, ids and steps made the merged run's. */
static int merge_rows(struct tdb *t, struct mset *s, int i, sqlite3_stmt *ins_rows, sqlite3_stmt *ins_row,
                      size_t *rows) {
    struct mshard *sh = &s->v[i];
    sqlite3_stmt *st;
    struct tdb_prow *v = NULL;
    size_t n = 0, cap = 0;
    int32_t rank = 0;
    int rc = 0;
    /* this shard's files with rows, by (rank, base), for the step of a row */
    size_t f0 = 0, f1;
    while (f0 < s->nfiles && s->files[f0].shard < i) f0++;
    for (f1 = f0; f1 < s->nfiles && s->files[f1].shard == i; f1++) {}
    if (sqlite3_prepare_v2(sh->db, "SELECT rank, step, target_id, metric_id, norm, max, min, mean FROM trend_data",
                           -1, &st, NULL) != SQLITE_OK)
        return shard_bad(t->err, sh, "table trend_data", sh->db);
    int src;
    while ((src = sqlite3_step(st)) == SQLITE_ROW) {
        int32_t r = sqlite3_column_int(st, 0), lstep = sqlite3_column_int(st, 1);
        int metric = sqlite3_column_int(st, 3);
        uint32_t key;
        if (n && r != rank) {
            if ((rc = bucket_insert(t, ins_rows, ins_row, rank, v, n)) != 0) break;
            n = 0;
        }
        rank = r;
        if (lkey_of(sh, sqlite3_column_int64(st, 2), &key) != 0 || metric < 1 || metric > DM_N) {
            rc = shard_bad(t->err, sh, "a trend_data row names an unknown target or metric", NULL);
            break;
        }
        /* the file of this row: this rank's last with base <= lstep */
        const struct mfile *f = NULL;
        size_t lo = f0, hi = f1;
        while (lo < hi) {
            size_t mi = (lo + hi) / 2;
            const struct mfile *x = &s->files[mi];
            if (x->rank < r || (x->rank == r && x->base <= lstep)) lo = mi + 1; else hi = mi;
        }
        if (lo > f0 && s->files[lo - 1].rank == r) f = &s->files[lo - 1];
        if (!f) { rc = shard_bad(t->err, sh, "a trend_data row of no file read", NULL); break; }
        if (util_grow((void **)&v, &cap, n + 1, sizeof *v) != 0) { rc = pt_errorf(t->err, "out of memory"); break; }
        struct tdb_prow *p = &v[n++];
        p->dbid = sh->gid[key];
        p->step = s->micro ? f->gbase + (lstep - f->base) : lstep;
        p->metric = (uint8_t)(metric - 1);
        p->present = 0;
        for (int c = 0; c < 4; c++) {
            p->vals[c] = 0;
            if (sqlite3_column_type(st, 4 + c) != SQLITE_NULL) {
                p->vals[c] = sqlite3_column_double(st, 4 + c);
                p->present |= (uint8_t)(1u << c);
            }
        }
        (*rows)++;
    }
    if (rc == 0 && src != SQLITE_DONE && src != SQLITE_ROW) rc = shard_bad(t->err, sh, "reading trend_data", sh->db);
    if (rc == 0 && n) rc = bucket_insert(t, ins_rows, ins_row, rank, v, n);
    sqlite3_finalize(st);
    free(v);
    return rc;
}

/* Gives every shard's targets their merged ids (sh->gid) from the replay
 * in ids.  0, or -1 with err set when a target had no attempt. */
static int map_shard_targets(struct mset *s, const struct idmap *ids, struct pt_error *err) {
    for (int i = 0; i < s->n; i++) {
        struct mshard *sh = &s->v[i];
        for (size_t k = 0; k < sh->nt; k++) {
            const struct target *tg = names_target(sh->tn, (uint32_t)k);
            uint32_t gk = names_find(ids->keys, names_str(sh->tn, (uint32_t)k), tg->len, tg->vpp, tg->call);
            if (gk == NAMES_NONE) return shard_bad(err, sh, "a target of no attempt", NULL);
            sh->gid[k] = ids->dbid[gk];
        }
    }
    return 0;
}

/* The shards' attempts in the order cmp sorts them, less those for a
 * (target, metric) an earlier attempt brought in, replayed into t's
 * monitoring_targets (ids, mk per metric; order: the metrics in the order
 * of their first attempt, *norder of them); then the AUTOINCREMENT mark
 * and the shards' targets mapped.  0, or -1 with t's error set. */
static int replay_attempts(struct tdb *t, struct mset *s, int (*cmp)(const void *, const void *), struct idmap *ids,
                           struct mkeys *mk, int *order, int *norder) {
    sqlite3_stmt *ins_target = NULL;
    int rc = -1;
    *norder = 0;
    if (tdb_prepare_targets(t, &ins_target) != 0) return -1;
    if (s->natt) qsort(s->att, s->natt, sizeof *s->att, cmp);
    for (size_t i = 0; i < s->natt; i++) {
        const struct matt *a = &s->att[i];
        const struct names *tn = s->v[a->shard].tn;
        const struct target *tg = names_target(tn, a->lkey);
        const char *name = names_str(tn, a->lkey);
        int m = a->metric - 1, ins;
        uint32_t gk = names_find(ids->keys, name, tg->len, tg->vpp, tg->call);
        if (gk != NAMES_NONE && tdb_mkeys_has(&mk[m], gk)) continue;
        int64_t k = tdb_attempt(ids, name, tg->len, tg->vpp, tg->call, ins_target, &ins);
        if (k < 0) { tdb_fail(t, "insert target"); goto out; }
        if (tdb_mkeys_add(&mk[m], (uint32_t)k) != 0) { pt_errorf(t->err, "out of memory"); goto out; }
        int seen = 0;
        for (int q = 0; q < *norder; q++) seen |= order[q] == m;
        if (!seen) order[(*norder)++] = m;
    }
    if (tdb_finish_sequence(t, ids) != 0 || map_shard_targets(s, ids, t->err) != 0) goto out;
    rc = 0;
out:
    sqlite3_finalize(ins_target);
    return rc;
}

/* The merged database into t (open, in a transaction). */
/* summaries 0: for reading only (the reader does not use them) */
static int merge_into(struct tdb *t, struct mset *s, struct tdb_result *res, int summaries) {
    struct pt_error *err = t->err;
    struct idmap ids = {0};
    struct mkeys mk[DM_N];
    int order[DM_N], norder = 0, rc = -1;
    sqlite3_stmt *ins_row = NULL, *ins_rows = NULL;
    memset(mk, 0, sizeof mk);
    for (int i = 0; i < s->n; i++)
        if (mset_read(s, i, err) != 0) return -1;
    if (mset_check(s, err) != 0) return -1;
    /* the unsharded run's step of micro step 0 for every file */
    int64_t start = 0, cur = INT64_MIN;
    int32_t maxm = 0;
    for (size_t i = 0; i < s->nfiles; i++) {
        struct mfile *f = &s->files[i];
        if (f->group != cur) {
            if (cur != INT64_MIN) start += maxm;
            cur = f->group;
            maxm = 0;
        }
        f->gbase = (int32_t)start;
        if (f->micro > maxm) maxm = f->micro;
    }
    if (cur != INT64_MIN) start += maxm;
    int any = 0;
    int64_t max_rank = 0, min_step = INT64_MAX, max_step = INT64_MIN;
    for (int i = 0; i < s->n; i++) {
        if (!s->v[i].any) continue;
        any = 1;
        if (s->v[i].max_rank > max_rank) max_rank = s->v[i].max_rank;
        if (s->v[i].min_step < min_step) min_step = s->v[i].min_step;
        if (s->v[i].max_step > max_step) max_step = s->v[i].max_step;
    }
    if (!any) return pt_errorf(err, "%s: no shard holds a rank folder: nothing to merge", t->final);
    if (s->micro) { min_step = 0; max_step = start - 1; }
    if (!(ids.keys = names_new())) return pt_errorf(err, "out of memory");
    if (tdb_create_fixed(t) != 0 || tdb_create_trend(t, dump_stat_names, 4) != 0 ||
        tdb_insert_metrics(t, dump_metric_names, DM_N) != 0)
        goto out;
    int prc = tdb_prepare_trend_insert(t, 4, 1, &ins_row);
    if (prc != 0) {
        if (prc > 0) tdb_fail(t, "prepare");
        goto out;
    }
    /* an old SQLite with a low variable limit (NULL): one row at a time */
    if (tdb_prepare_trend_insert(t, 4, TDB_ROWS_PER_INSERT, &ins_rows) < 0) goto out;
    if (replay_attempts(t, s, cmp_matt, &ids, mk, order, &norder) != 0) goto out;
    if (tdb_dump_global_stats(t, (int32_t)max_rank, (int32_t)min_step, (int32_t)max_step) != 0) goto out;
    if (s->nfiles) qsort(s->files, s->nfiles, sizeof *s->files, cmp_mfile_lookup);
    res->rows = 0;
    for (int i = 0; i < s->n; i++)
        if (merge_rows(t, s, i, ins_rows, ins_row, &res->rows) != 0) goto out;
    for (int q = 0; q < norder; q++)
        if (tdb_write_tags(t, &ids, mk[order[q]].order, mk[order[q]].count, order[q] + 1, LABELS_DUMP) != 0) goto out;
    if (summaries && tdb_summary_from_table(t) != 0) goto out;
    res->targets = names_count(ids.keys);
    res->max_rank = (int32_t)max_rank;
    res->max_step = (int32_t)max_step;
    rc = 0;
out:
    sqlite3_finalize(ins_row);
    sqlite3_finalize(ins_rows);
    names_free(ids.keys);
    free(ids.dbid);
    for (int m = 0; m < DM_N; m++) tdb_mkeys_free(&mk[m]);
    return rc;
}

static int cmp_matt_monitor(const void *a, const void *b) {   /* metric by metric, then file order */
    const struct matt *x = a, *y = b;
    if (x->metric != y->metric) return x->metric < y->metric ? -1 : 1;
    return cmp_matt(a, b);
}

static int has_table_rw(sqlite3 *db, const char *name) {
    sqlite3_stmt *st;
    int found = 0;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", -1, &st, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    found = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return found;
}

/* What the monitor shards hold together: the metrics with files and with
 * rows, the statistics (all, and per metric with files), the largest rank
 * and, without --micro_step, the steps of the shards with rows. */
struct mon_totals {
    uint32_t has_files, has_rows, statmask, mstat[MONITOR_NMETRICS];
    int64_t max_rank, min_step, max_step;
};

/* Sums up the shards of s into *tot.  Returns nothing. */
static void mon_totals_of(const struct mset *s, struct mon_totals *tot) {
    int steps_seen = 0;
    memset(tot, 0, sizeof *tot);
    for (int i = 0; i < s->n; i++) {
        const struct mshard *sh = &s->v[i];
        tot->has_files |= sh->has_files;
        tot->has_rows |= sh->has_rows;
        for (int m = 0; m < MONITOR_NMETRICS; m++) {
            if (sh->has_files & (1u << m)) tot->mstat[m] |= sh->mstat[m];
            tot->statmask |= sh->mstat[m];
        }
        if (sh->max_rank > tot->max_rank) tot->max_rank = sh->max_rank;
        if (!s->micro && sh->has_rows) {
            if (!steps_seen || sh->min_step < tot->min_step) tot->min_step = sh->min_step;
            if (!steps_seen || sh->max_step > tot->max_step) tot->max_step = sh->max_step;
            steps_seen = 1;
        }
    }
}

/* The merged run's micro steps: per original step (orig, ascending) the
 * most micro steps any shard saw (count) and its first merged step (off). */
struct mon_gsteps {
    int32_t *orig, *count, *off;
    size_t n;
};

/* Fills *g from the shards' step tables; *total: the merged micro steps.
 * 0, or -1 with err set (out of memory; g is the caller's to free). */
static int mon_gsteps_of(const struct mset *s, struct mon_gsteps *g, int64_t *total, struct pt_error *err) {
    size_t all = 0;
    for (int i = 0; i < s->n; i++) all += s->v[i].nsteps;
    g->orig = malloc((all ? all : 1) * sizeof *g->orig);
    g->count = calloc(all ? all : 1, sizeof *g->count);
    g->off = calloc(all ? all : 1, sizeof *g->off);
    if (!g->orig || !g->count || !g->off) return pt_errorf(err, "out of memory");
    for (int i = 0; i < s->n; i++)
        for (size_t j = 0; j < s->v[i].nsteps; j++) g->orig[g->n++] = s->v[i].sorig[j];
    g->n = util_sort_unique_i32(g->orig, g->n);
    for (int i = 0; i < s->n; i++)
        for (size_t j = 0; j < s->v[i].nsteps; j++) {
            int32_t *pos = bsearch(&s->v[i].sorig[j], g->orig, g->n, sizeof *g->orig, util_cmp_i32);
            if (pos && s->v[i].scount[j] > g->count[pos - g->orig]) g->count[pos - g->orig] = s->v[i].scount[j];
        }
    int64_t off = 0;
    for (size_t j = 0; j < g->n; j++) {
        g->off[j] = (int32_t)off;
        off += g->count[j];
    }
    *total = off;
    return 0;
}

/* Copies shard i's trend_data into t through ins_row: merged target ids,
 * metric ids (metric_id), statistic columns (colof, nc of them) and, with
 * --micro_step, merged steps (g); *rows counts the rows added.  0, or -1
 * with t's error set. */
static int merge_monitor_rows(struct tdb *t, const struct mset *s, int i, sqlite3_stmt *ins_row, const int *metric_id,
                              const int *colof, int nc, const struct mon_gsteps *g, size_t *rows) {
    struct pt_error *err = t->err;
    const struct mshard *sh = &s->v[i];
    sqlite3_stmt *sel = NULL;
    int rc = -1;
    if (!has_table_rw(sh->db, "trend_data")) return 0;   /* a shard of no usable file */
    char tcols[MONITOR_NSTATS + 8][64];
    int ntc = 0, map[MONITOR_NSTATS + 8];
    if (sqlite3_prepare_v2(sh->db, "PRAGMA table_info(trend_data)", -1, &sel, NULL) != SQLITE_OK)
        return shard_bad(err, sh, "table trend_data", sh->db);
    while (sqlite3_step(sel) == SQLITE_ROW && ntc < MONITOR_NSTATS + 8) {
        const unsigned char *c = sqlite3_column_text(sel, 1);
        snprintf(tcols[ntc++], sizeof tcols[0], "%s", c ? (const char *)c : "");
    }
    sqlite3_finalize(sel);
    sel = NULL;
    for (int c = 4; c < ntc; c++) {
        map[c] = -1;
        for (int st = 0; st < MONITOR_NSTATS; st++)
            if (!strcmp(tcols[c], monitor_stat_names[st])) map[c] = colof[st];
        if (map[c] < 0) return shard_bad(err, sh, "an unknown statistic column", NULL);
    }
    if (sqlite3_prepare_v2(sh->db, "SELECT * FROM trend_data", -1, &sel, NULL) != SQLITE_OK)
        return shard_bad(err, sh, "table trend_data", sh->db);
    int src;
    while ((src = sqlite3_step(sel)) == SQLITE_ROW) {
        int32_t lstep = sqlite3_column_int(sel, 1), gstep = lstep;
        int lm = sqlite3_column_int(sel, 3), m = 0;
        uint32_t key;
        while (m < MONITOR_NMETRICS && sh->mid[m] != lm) m++;
        if (m == MONITOR_NMETRICS || !metric_id[m] || lkey_of(sh, sqlite3_column_int64(sel, 2), &key) != 0) {
            shard_bad(err, sh, "a trend_data row names an unknown target or metric", NULL);
            goto out;
        }
        if (s->micro) {
            size_t lo = 0, hi = sh->nsteps;   /* the last step whose base <= lstep */
            while (lo < hi) {
                size_t mi = (lo + hi) / 2;
                if (sh->sbase[mi] <= lstep) lo = mi + 1; else hi = mi;
            }
            int32_t *pos = lo ? bsearch(&sh->sorig[lo - 1], g->orig, g->n, sizeof *g->orig, util_cmp_i32) : NULL;
            if (!pos) { shard_bad(err, sh, "a trend_data row of no step", NULL); goto out; }
            gstep = g->off[pos - g->orig] + (lstep - sh->sbase[lo - 1]);
        }
        struct tdb_row row = {.ncols = 4 + nc,
                              .ival = {sqlite3_column_int(sel, 0), gstep, sh->gid[key], metric_id[m]},
                              .kind = {BTREE_BULK_INT, BTREE_BULK_INT, BTREE_BULK_INT, BTREE_BULK_INT}};
        for (int c = 0; c < nc; c++) row.kind[4 + c] = BTREE_BULK_NULL;
        for (int c = 4; c < ntc; c++)
            if (sqlite3_column_type(sel, c) != SQLITE_NULL) {
                row.kind[4 + map[c]] = BTREE_BULK_REAL;
                row.dval[4 + map[c]] = sqlite3_column_double(sel, c);
            }
        if (tdb_row_put(t, NULL, ins_row, &row, rows) != 0) goto out;
    }
    if (src != SQLITE_DONE) { shard_bad(err, sh, "reading trend_data", sh->db); goto out; }
    rc = 0;
out:
    sqlite3_finalize(sel);
    return rc;
}

/* The monitor run from its shards, as trenddb_write_monitor writes it. */
static int merge_into_monitor(struct tdb *t, struct mset *s, struct tdb_result *res, int summaries) {
    struct pt_error *err = t->err;
    struct idmap ids = {0};
    struct mkeys mk[MONITOR_NMETRICS];
    int rc = -1;
    sqlite3_stmt *ins_row = NULL;
    struct mon_gsteps g = {0};
    struct mon_totals tot;
    memset(mk, 0, sizeof mk);
    for (int i = 0; i < s->n; i++)
        if (mset_read(s, i, err) != 0) return -1;
    if (mset_check(s, err) != 0) return -1;
    mon_totals_of(s, &tot);
    if (!tot.has_files)
        return pt_errorf(err, "%s: no <metric>_<a>-<b>.csv file in the rank folders of any shard: no database written",
                         t->final);
    if (!tot.statmask) return pt_errorf(err, "%s: no CSV file has a supported statistic column (norm, min, max, ...)", t->final);
    if (s->micro) {   /* the micro steps of every step: the most any shard saw */
        int64_t total = 0;
        if (mon_gsteps_of(s, &g, &total, err) != 0) goto out;
        tot.min_step = 0;
        tot.max_step = total - 1;
    }
    if (!(ids.keys = names_new())) { pt_errorf(err, "out of memory"); goto out; }
    int order[MONITOR_NMETRICS], norder;   /* metric by metric, then file order */
    if (tdb_create_fixed(t) != 0) goto out;
    if (replay_attempts(t, s, cmp_matt_monitor, &ids, mk, order, &norder) != 0) goto out;
    const char *present[MONITOR_NMETRICS];
    int metric_id[MONITOR_NMETRICS], np = 0;
    for (int m = 0; m < MONITOR_NMETRICS; m++) {
        metric_id[m] = 0;
        if (tot.has_rows & (1u << m)) { present[np++] = monitor_metric_names[m]; metric_id[m] = np; }
    }
    if (tdb_insert_metrics(t, present, np) != 0) goto out;
    if (tdb_monitor_global_stats(t, (int32_t)tot.min_step, (int32_t)tot.max_step, (int32_t)tot.max_rank, tot.has_files,
                             tot.mstat) != 0)
        goto out;
    const char *cols[MONITOR_NSTATS];
    int colof[MONITOR_NSTATS], nc = 0;   /* per statistic: its trend_data column, or -1 */
    for (int st = 0; st < MONITOR_NSTATS; st++) {
        colof[st] = -1;
        if (tot.statmask & (1u << st)) { colof[st] = nc; cols[nc++] = monitor_stat_names[st]; }
    }
    if (tdb_create_trend(t, cols, nc) != 0) goto out;
    for (int m = 0; m < MONITOR_NMETRICS; m++)
        if (metric_id[m] && tdb_write_tags(t, &ids, mk[m].order, mk[m].count, metric_id[m], LABELS_MONITOR) != 0) goto out;
    int prc = tdb_prepare_trend_insert(t, nc, 1, &ins_row);
    if (prc != 0) {
        if (prc > 0) tdb_fail(t, "prepare");
        goto out;
    }
    res->rows = 0;
    for (int i = 0; i < s->n; i++)
        if (merge_monitor_rows(t, s, i, ins_row, metric_id, colof, nc, &g, &res->rows) != 0) goto out;
    if (summaries && tdb_summary_from_table(t) != 0) goto out;
    res->targets = names_count(ids.keys);
    res->max_rank = (int32_t)tot.max_rank;
    res->max_step = (int32_t)tot.max_step;
    rc = 0;
out:
    sqlite3_finalize(ins_row);
    names_free(ids.keys);
    free(ids.dbid);
    for (int m = 0; m < MONITOR_NMETRICS; m++) tdb_mkeys_free(&mk[m]);
    free(g.orig);
    free(g.count);
    free(g.off);
    return rc;
}

int trenddb_merge(const char *dir, int monitor, const char *outdir, const struct load_opts *lo, struct dataset *ds,
                  struct tdb_result *res, struct pt_error *err) {
    struct mset s = {.monitor = monitor};
    struct tdb t;
    memset(res, 0, sizeof *res);
    if (mset_list(&s, dir, err) != 0) { mset_free(&s); return -1; }
    if (tdb_open(&t, outdir, monitor ? "monitor_data.trend.db" : "dump_data.trend.db", monitor ? 262144 : 16384, lo, ds,
                 err) != 0) {
        tdb_abort(&t);
        mset_free(&s);
        return -1;
    }
    int rc = monitor ? merge_into_monitor(&t, &s, res, 1) : merge_into(&t, &s, res, 1);
    mset_free(&s);
    if (rc == 0) {
        snprintf(res->path, sizeof res->path, "%s", t.final);
        rc = tdb_commit(&t);   /* aborts itself on failure */
    } else {
        tdb_abort(&t);
    }
    return rc;
}

int trenddb_merge_temp(const char *dir, int monitor, sqlite3 **out, struct pt_error *err) {
    struct mset s = {.monitor = monitor};
    struct tdb t = {.err = err};
    struct tdb_result res;
    *out = NULL;
    if (mset_list(&s, dir, err) != 0) { mset_free(&s); return -1; }
    if (!(t.final = strdup(dir))) { mset_free(&s); return pt_errorf(err, "out of memory"); }
    /* "": a private database SQLite keeps in the temporary folder and
     * deletes on close: nothing is written beside the shards */
    int rc = -1;
    if (sqlite3_open_v2("", &t.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK)
        pt_errorf(err, "%s: cannot open a temporary database to join the shards in", dir);
    else if (tdb_exec(&t, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA cache_size=-65536; BEGIN") == 0 &&
             (monitor ? merge_into_monitor(&t, &s, &res, 0) : merge_into(&t, &s, &res, 0)) == 0 &&
             tdb_exec(&t, "COMMIT") == 0)
        rc = 0;
    mset_free(&s);
    free(t.final);
    if (rc != 0) {
        sqlite3_close(t.db);
        return -1;
    }
    *out = t.db;
    return 0;
}
