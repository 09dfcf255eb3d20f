/* read_tfevents: TensorBoard event files into a run's curves (see
 * read_tfevents.h; the framing is tfrecord.c, the protobuf decoding
 * tfevents_pb.c). */
#include "src/io/curves/read_tfevents.h"

#include <errno.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/curves/curves_cube.h"
#include "model/util/fs.h"
#include "model/util/util.h"
#include "src/io/common/filewalk.h"
#include "src/io/common/reader.h"
#include "src/io/curves/curves_cache.h"
#include "src/io/curves/tfevents_pb.h"
#include "src/io/curves/tfrecord.h"
#include "src/io/formats.h"
#include "src/io/load.h"

#define TFE_WALK_DEPTH 4
#define TFE_MAX_FILES 100000
#define TFE_WARN_PER_FILE 8   /* bad records named one by one; the rest counted */

/* ---- which files are event files ---- */

static const char *base_of(const char *path) {
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* TensorBoard's own test: "tfevents" in the file's name. */
static int event_name(const char *base) { return strstr(base, "tfevents") != NULL; }

/* The first record's header checks (or the file is empty, when named as
 * an event file: a writer that has not flushed yet). */
static int head_ok(const char *path, int named) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    uint8_t h[12];
    ssize_t n = read(fd, h, sizeof h);
    close(fd);
    uint64_t len;
    if (n == 0) return named;
    return n == (ssize_t)sizeof h && tfrecord_header_ok(h, &len);
}

/* An unnamed file is one when its first record is an Event naming its
 * version ("brain.Event:2"). */
static int head_is_event(const char *path) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    uint8_t buf[4096];
    ssize_t n = read(fd, buf, sizeof buf);
    close(fd);
    struct tfrecord_cursor c = {buf, n > 0 ? (size_t)n : 0, 0};
    const uint8_t *d;
    size_t dl;
    struct tfevents_pb_event ev;
    const char *why;
    return n > 0 && tfrecord_next(&c, &d, &dl) == TFRECORD_OK && tfevents_pb_event(d, dl, &ev, &why) == 0 &&
           ev.file_version && ev.file_version_len > 12 && !memcmp(ev.file_version, "brain.Event:", 12);
}

static int skip_dir(const char *name) { return name[0] == '.'; }

/* A file of the walk: an event file by its name; detection also reads
 * its first record's header (from the budget), so a folder of empty or
 * foreign files named so is no run. */
static int accept_event(const char *name, const char *path, const struct stat *st, int *budget) {
    if (!event_name(name)) return 0;
    if (!budget) return 1;
    return --*budget >= 0 && st->st_size > 0 && head_ok(path, 1);
}

static const struct filewalk event_walk = {
    .max_depth = TFE_WALK_DEPTH, .max_files = TFE_MAX_FILES, .what = "event files",
    .skip_dir = skip_dir, .accept = accept_event,
};

static int detect_tfevents(const char *path, const struct stat *st) {
    if (S_ISREG(st->st_mode)) {
        if (event_name(base_of(path))) return head_ok(path, 1) ? 100 : 0;
        return head_is_event(path) ? 100 : 0;
    }
    struct filewalk_list fl = {0};
    int budget = 64;
    filewalk_run(&event_walk, path, &fl, NULL, &budget, NULL);
    int found = fl.n > 0;
    filewalk_list_free(&fl);
    return found ? 100 : 0;
}

/* ---- the series, by tag ---- */

struct tag_slot {
    uint64_t h;
    char *name;        /* prefix + tag (owned) */
    size_t tag_len;    /* the tag's bytes: name + prefix_len */
    int32_t idx;       /* series index, -1: a tag of another plugin (not scalars) */
};

struct tfevents_ctx {
    struct curves *c;
    struct tag_slot *slot;   /* open addressing, a power of two */
    size_t nslot, used;
    const char *prefix;      /* of the file being read */
    size_t prefix_len;
    atomic_int *cancel;      /* the load's (may be NULL) */
    long scalars;
    int nomem;
};

struct tfevents_ctx *tfevents_ctx_new(struct curves *c) {
    struct tfevents_ctx *x = calloc(1, sizeof *x);
    if (!x) return NULL;
    x->c = c;
    x->nslot = 64;
    if (!(x->slot = calloc(x->nslot, sizeof *x->slot))) { free(x); return NULL; }
    return x;
}

void tfevents_ctx_free(struct tfevents_ctx *x) {
    if (!x) return;
    for (size_t i = 0; i < x->nslot; i++) free(x->slot[i].name);
    free(x->slot);
    free(x);
}

static int grow(struct tfevents_ctx *x) {
    size_t n = x->nslot * 2;
    struct tag_slot *s = calloc(n, sizeof *s);
    if (!s) return -1;
    for (size_t i = 0; i < x->nslot; i++) {
        if (!x->slot[i].name) continue;
        size_t j = x->slot[i].h & (n - 1);
        while (s[j].name) j = (j + 1) & (n - 1);
        s[j] = x->slot[i];
    }
    free(x->slot);
    x->slot = s;
    x->nslot = n;
    return 0;
}

/* The slot of prefix + tag (created: idx -2, no series yet); NULL without memory. */
static struct tag_slot *slot_of(struct tfevents_ctx *x, const uint8_t *tag, size_t n) {
    uint64_t h = util_hash(tag, n, util_hash(x->prefix, x->prefix_len, 0));
    size_t j = h & (x->nslot - 1);
    for (; x->slot[j].name; j = (j + 1) & (x->nslot - 1)) {
        struct tag_slot *s = &x->slot[j];
        if (s->h == h && s->tag_len == n && !memcmp(s->name + x->prefix_len, tag, n) &&
            !strncmp(s->name, x->prefix, x->prefix_len) && s->name[x->prefix_len + n] == '\0')
            return s;
    }
    if ((x->used + 1) * 2 > x->nslot) {
        if (grow(x)) return NULL;
        return slot_of(x, tag, n);
    }
    char *name = malloc(x->prefix_len + n + 1);
    if (!name) return NULL;
    memcpy(name, x->prefix, x->prefix_len);
    memcpy(name + x->prefix_len, tag, n);
    name[x->prefix_len + n] = '\0';
    /* a NUL inside a tag ends its name (tags are UTF-8 text) */
    x->slot[j] = (struct tag_slot){h, name, n, -2};
    x->used++;
    return &x->slot[j];
}

static int is_scalars_plugin(const struct tfevents_pb_value *v) {
    if (v->data_class != 0 && v->data_class != 1) return 0;   /* DATA_CLASS_SCALAR = 1 */
    return v->plugin_len == 0 || (v->plugin_len == 7 && !memcmp(v->plugin, "scalars", 7));
}

struct rec {
    struct tfevents_ctx *x;
    int64_t step;
};

static int take_value(void *ctx, const struct tfevents_pb_value *v) {
    struct rec *r = ctx;
    struct tfevents_ctx *x = r->x;
    if (v->kind == TFEVENTS_PB_NONE && !v->plugin) return 0;
    struct tag_slot *s = slot_of(x, v->tag, v->tag_len);
    if (!s) { x->nomem = 1; return 1; }
    if (v->plugin && s->idx < 0) {   /* the first metadata of a tag says what it is (TensorBoard keeps the first) */
        if (s->idx == -2 && !is_scalars_plugin(v)) s->idx = -1;
    }
    if (v->kind != TFEVENTS_PB_SIMPLE && v->kind != TFEVENTS_PB_TENSOR) return 0;
    if (v->kind == TFEVENTS_PB_TENSOR && s->idx == -1) return 0;
    if (s->idx < 0) {
        struct curves_series *cs = s->name[0] ? curves_series(x->c, s->name) : NULL;
        if (!s->name[0]) return 0;   /* no tag: nothing to name it by */
        if (!cs) { x->nomem = 1; return 1; }
        s->idx = (int32_t)(cs - x->c->series);
    }
    if (curves_push(&x->c->series[s->idx], r->step, v->value)) { x->nomem = 1; return 1; }
    x->scalars++;
    return 0;
}

/* ---- one file ---- */

struct badlog {
    struct dataset *ds;
    const char *path;
    size_t n;
};

static int bad(struct badlog *b, size_t off, const char *what) {
    if (b->n++ >= TFE_WARN_PER_FILE) return 0;
    return dataset_warn(b->ds, "%s: byte %zu: %s", b->path, off, what);
}

long tfevents_read_buf(struct tfevents_ctx *x, const uint8_t *buf, size_t len, const char *path, const char *prefix,
                       struct dataset *ds, int *not_tfrecord, struct pt_error *err) {
    return tfevents_read_from(x, buf, len, 0, path, prefix, ds, not_tfrecord, NULL, NULL, err);
}

long tfevents_read_from(struct tfevents_ctx *x, const uint8_t *buf, size_t len, size_t start, const char *path,
                        const char *prefix, struct dataset *ds, int *not_tfrecord, size_t *end, size_t *nwarn_whole,
                        struct pt_error *err) {
    struct tfrecord_cursor c = {buf, len, start};
    size_t whole = len;   /* the end of the last whole record */
    struct badlog b = {ds, path, 0};
    struct rec r = {x, 0};
    char why[256];
    long before = x->scalars;
    size_t records = 0;
    int rc = 0;
    *not_tfrecord = 0;
    x->prefix = prefix;
    x->prefix_len = strlen(prefix);
    for (int done = 0; !done && rc == 0;) {
        size_t at = c.off;
        if ((records & 0xffff) == 0xffff && x->cancel && atomic_load(x->cancel)) return pt_errorf(err, "cancelled");
        const uint8_t *d = NULL;
        size_t dl = 0;
        const char *pw = NULL;
        switch (tfrecord_next(&c, &d, &dl)) {
        case TFRECORD_OK: {
            records++;
            struct tfevents_pb_event ev;
            if (tfevents_pb_event(d, dl, &ev, &pw) != 0) {
                snprintf(why, sizeof why, "a record that is no Event (%s): skipped", pw);
                rc = bad(&b, at, why);
                break;
            }
            if (!ev.summary) break;
            r.step = ev.step;
            int k = tfevents_pb_summary(ev.summary, ev.summary_len, take_value, &r, &pw);
            if (x->nomem) rc = -1;
            else if (k < 0) {
                snprintf(why, sizeof why, "an Event whose Summary is malformed (%s): the rest of its values skipped", pw);
                rc = bad(&b, at, why);
            }
            break;
        }
        case TFRECORD_END: done = 1; break;
        case TFRECORD_BAD_DATA:
            records++;
            rc = bad(&b, at, "the record's data CRC does not match: record skipped");
            break;
        case TFRECORD_BAD_LENGTH: {
            if (records == 0 && at == 0) { *not_tfrecord = 1; if (end) *end = 0; return 0; }
            size_t next = tfrecord_resync(&c);
            if (next < len) snprintf(why, sizeof why, "the record's length CRC does not match: %zu bytes skipped to the next whole record", next - at);
            else snprintf(why, sizeof why, "the record's length CRC does not match, and no whole record follows: the last %zu bytes skipped", len - at);
            rc = bad(&b, at, why);
            c.off = next;
            break;
        }
        case TFRECORD_TRUNCATED:
            done = 1;
            whole = at;
            if (nwarn_whole) *nwarn_whole = ds->nwarnings;   /* what follows is of the cut end, read again */
            if (reader_young(ds, path)) {
                snprintf(why, sizeof why, "a record being written at byte %zu", at);
                rc = dataset_pending(ds, path, why);
            } else {
                snprintf(why, sizeof why, "the file ends inside a record (%zu bytes of it): cut", len - at);
                rc = bad(&b, at, why) | dataset_partial(ds, path);
                if (b.n > TFE_WARN_PER_FILE) rc |= dataset_warn(ds, "%s: byte %zu: %s", path, at, why);   /* always named */
            }
            break;
        }
    }
    if (rc == 0 && b.n > TFE_WARN_PER_FILE)
        rc = dataset_warn(ds, "%s: %zu more bad records (the first %d are named above)", path, b.n - TFE_WARN_PER_FILE, TFE_WARN_PER_FILE);
    if (rc) return pt_errorf(err, "out of memory");
    if (end) *end = whole;
    if (nwarn_whole && whole == len) *nwarn_whole = ds->nwarnings;
    return x->scalars - before;
}

/* ---- the load ---- */

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The folder part of p, as a length (up to the last '/', 0 none). */
static size_t dir_len(const char *p) {
    const char *s = strrchr(p, '/');
    return s ? (size_t)(s - p) : 0;
}

/* Maps a file (NULL, *len 0 for an empty one); 0, or -1 with *why. */
static int map_file(const char *path, const uint8_t **buf, size_t *len, const char **why) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) { *why = strerror(errno); return -1; }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) { *why = "not a regular file"; close(fd); return -1; }
    *len = (size_t)st.st_size;
    *buf = NULL;
    if (*len) {
        void *m = mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m == MAP_FAILED) { *why = strerror(errno); close(fd); return -1; }
        madvise(m, *len, MADV_SEQUENTIAL);
        *buf = m;
    }
    close(fd);
    return 0;
}

/* ---- follow mode: what was appended (curves_cache.h) ---- */

static void ctx_free(void *x) { tfevents_ctx_free(x); }

/* Whether every file read before is still what was read (in the list, the
 * same file, its bytes up to the offset unchanged); else the entry is
 * emptied, to read them all again.  Then the entry's points and reader
 * (made when empty) and its warnings said again.  0, or -1 without memory. */
static int cache_ready(struct curves_cache_entry *e, const struct filewalk_list *fl, struct dataset *ds) {
    int same = 1;
    for (size_t i = 0; same && i < e->nfiles; i++) {
        const struct curves_cache_file *f = &e->files[i];
        int listed = 0;
        for (size_t k = 0; !listed && k < fl->n; k++) listed = !strcmp(fl->v[k], f->path);
        int fd = listed ? open(f->path, O_RDONLY | O_CLOEXEC) : -1;
        struct stat st;
        same = fd >= 0 && fstat(fd, &st) == 0 && curves_cache_file_same(f, fd, &st);
        if (fd >= 0) close(fd);
    }
    if (!same) curves_cache_reset(e);
    if (!e->state) {
        curves_cache_reset(e);
        if (!(e->c = curves_new()) || !(e->state = tfevents_ctx_new(e->c))) return -1;
        e->state_free = ctx_free;
    }
    for (size_t i = 0; i < e->nwarnings; i++)
        if (dataset_warn(ds, "%s", e->warnings[i]) != 0) return -1;
    return 0;
}

/* After a file's read from cf->off: its new warnings kept (those of a cut
 * end aside), the offset moved to the end of its last whole record. */
static int cache_file_done(struct curves_cache_entry *e, struct curves_cache_file *cf, const struct dataset *ds,
                           size_t w0, size_t w1, size_t end) {
    for (size_t i = w0; i < w1 && i < ds->nwarnings; i++)
        if (curves_cache_warn(e, ds->warnings[i]) != 0) return -1;
    int fd = open(cf->path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0) curves_cache_file_mark(cf, fd, &st, end);
    else cf->off = 0;
    if (fd >= 0) close(fd);
    return 0;
}

static int load_tfevents(const char *path, const struct load_opts *o, struct dataset *ds, struct pt_error *err) {
    struct stat st;
    struct filewalk_list fl = {0};
    ds->micro_step = 0;   /* training steps, no micro steps */
    if (stat(path, &st) != 0) return pt_errorf(err, "%s: %s", path, strerror(errno));
    int rc = 0;
    if (S_ISDIR(st.st_mode)) {
        rc = filewalk_run(&event_walk, path, &fl, ds, NULL, err);
        if (rc == 0 && fl.n == 0) rc = pt_errorf(err, "%s: no TensorBoard event file (events.out.tfevents.*) in it", path);
    } else if (UTIL_PUSH(fl.v, fl.n, fl.cap) || !(fl.v[fl.n] = strdup(path))) rc = pt_errorf(err, "out of memory");
    else fl.n++;
    if (rc) { filewalk_list_free(&fl); return rc; }
    if (fl.n > 1) qsort(fl.v, fl.n, sizeof *fl.v, cmp_str);   /* a run's files by name: by the time they were started */
    /* the folder every file is in: files there name their series by tag,
     * files below it by their sub-folder and tag ("train/loss") */
    size_t common = dir_len(fl.v[0]);
    for (size_t i = 1; i < fl.n; i++) {
        size_t k = 0, d = dir_len(fl.v[i]);
        while (k < common && k < d && fl.v[0][k] == fl.v[i][k]) k++;
        if (!((k == common || fl.v[0][k] == '/') && (k == d || fl.v[i][k] == '/')))
            while (k > 0 && fl.v[0][k] != '/') k--;   /* back to a whole folder name */
        common = k;
    }
    /* follow mode: the points so far and what each file was read to */
    struct curves_cache_entry *e = o->follow && o->curves_cache ? curves_cache_get(o->curves_cache, path) : NULL;
    if (o->follow && o->curves_cache && (!e || cache_ready(e, &fl, ds) != 0)) {
        if (e) curves_cache_reset(e);
        filewalk_list_free(&fl);
        return pt_errorf(err, "out of memory");
    }
    struct curves *cv = e ? e->c : curves_new();
    struct tfevents_ctx *x = e ? e->state : cv ? tfevents_ctx_new(cv) : NULL;
    if (!x) rc = pt_errorf(err, "out of memory");
    else x->cancel = o->cancel;
    size_t nread = 0;
    for (size_t i = 0; rc == 0 && i < fl.n; i++) {
        if (o->cancel && atomic_load(o->cancel)) { rc = pt_errorf(err, "cancelled"); break; }
        const char *p = fl.v[i];
        const uint8_t *buf;
        size_t len;
        const char *why;
        if (map_file(p, &buf, &len, &why) != 0) {
            if (dataset_warn(ds, "%s: cannot read: %s: skipped", p, why) | dataset_skip(ds, p)) rc = pt_errorf(err, "out of memory");
            continue;
        }
        size_t d = dir_len(p);
        char *prefix = NULL;
        if (d > common) {
            size_t s = common ? common + 1 : 0;
            prefix = malloc(d - s + 2);
            if (prefix) {
                memcpy(prefix, p + s, d - s);
                prefix[d - s] = '/';
                prefix[d - s + 1] = '\0';
            }
        } else prefix = strdup("");
        int not_rec = 0;
        struct curves_cache_file *cf = e ? curves_cache_file(e, p) : NULL;
        size_t start = cf && cf->off <= len ? (size_t)cf->off : 0, end = len, w0 = ds->nwarnings, w1 = w0;
        if (!prefix || (e && !cf)) rc = pt_errorf(err, "out of memory");
        else if (tfevents_read_from(x, buf, len, start, p, prefix, ds, &not_rec, &end, &w1, err) < 0) rc = -1;
        else if (cf && cache_file_done(e, cf, ds, w0, w1, end) != 0) rc = pt_errorf(err, "out of memory");
        else if (not_rec) {
            if (dataset_warn(ds, "%s: byte 0: not a TFRecord file (the first record's length CRC does not match): skipped", p) |
                dataset_skip(ds, p))
                rc = pt_errorf(err, "out of memory");
        } else {
            nread++;
            ds->bytes_read += len - start;
        }
        free(prefix);
        if (buf) munmap((void *)buf, len);
    }
    ds->files_read += nread;
    if (rc == 0 && nread == 0) rc = pt_errorf(err, "%s: no readable TensorBoard event file", path);
    if (rc == 0 && x->scalars == 0) rc = dataset_warn(ds, "%s: no scalar summary in %zu event file%s", path, nread, nread == 1 ? "" : "s") ? pt_errorf(err, "out of memory") : 0;
    if (!e) tfevents_ctx_free(x);
    filewalk_list_free(&fl);
    if (rc == 0 && curves_finish(cv)) rc = pt_errorf(err, "out of memory");
    if (e) {   /* the cache keeps its points; the dataset gets a copy */
        if (rc != 0) curves_cache_reset(e);
        cv = rc == 0 ? curves_cache_clone(e->c) : NULL;
        if (rc == 0 && !cv) { curves_cache_reset(e); rc = pt_errorf(err, "out of memory"); }
    }
    size_t dropped = 0;
    if (rc == 0) rc = curves_cube_build(cv, &ds->cube, &dropped, err);
    if (rc == 0 && dropped && dataset_warn(ds, "%s: %zu points at steps below 0 or above 2^31-1 left out of the cube", path, dropped))
        rc = pt_errorf(err, "out of memory");
    if (rc == 0) {
        curves_free(ds->curves);
        ds->curves = cv;
    } else curves_free(cv);
    return rc;
}

const struct formats_row formats_row_tfevents = {
    .name = "tfevents",
    .what = "TensorBoard event file (events.out.tfevents.*)",
    .detect = detect_tfevents,
    .load = load_tfevents,
    .write_trenddb = NULL,
    .labels = LABELS_MONITOR,
};
