/* read_dump: msProbe dump directories (probetop-formats(5), DUMP FOLDERS; probetop-formats(5), DUMP.JSON) into trend rows.
 *
 * parse_dump_file() turns one dump.json into the rows msProbe's data2db
 * would import from it (probetop-formats(5), TREND.DB; probetop-rules(7), MICRO STEPS; probetop-rules(7), TREND TARGETS: micro steps, renumbered call
 * indices, --mapping, metric classification, usable tensors) plus the
 * overflow level of every record (probetop-rules(7), OVERFLOW LEVELS), in one pass.
 * dump_read() finds the rank folders of any accepted layout, parses them on
 * a pool of threads and hands the files, in step and rank order, to a
 * callback (the cube builder, or the .trend.db writer). */
#ifndef PT_READ_DUMP_H
#define PT_READ_DUMP_H

#include <stddef.h>
#include <stdint.h>

#include "model/cube/dataset.h"
#include "model/err.h"
#include "model/overflow/overflow.h"
#include "src/io/common/mapping.h"

enum dump_metric { DM_FORWARD, DM_BACKWARD, DM_RECOMPUTE, DM_PARAMS_GRAD, DM_N };
extern const char *const dump_metric_names[DM_N];   /* msProbe's metric ids 1..4 in order */
extern const char *const dump_stat_names[4];        /* norm, max, min, mean */

/* One row: a usable tensor of a record. */
struct dump_tensor_row {
    uint32_t name;       /* offset of the target name in the file's arena */
    uint32_t len;
    int32_t call;        /* call index (target micro_step column) */
    int32_t micro;       /* micro step inside the step (0 without micro mode) */
    uint32_t entry;      /* index of the record among imported records (batching) */
    uint8_t metric;      /* enum dump_metric */
    uint8_t present;     /* bit i: stat i (norm, max, min, mean) has a value */
    double v[4];         /* after msProbe's normalisation is NOT applied: raw */
};


#define DUMP_NAME_MAX 4096   /* record names are shorter (msProbe's are < 300 bytes) */

struct dump_file {
    int32_t step, rank;
    char *path;          /* dump.json */
    char *dir;
    int ok;              /* 0: skipped, error says why */
    struct pt_error error;
    char *warning;       /* a non-fatal note (construct.json missing...) or NULL */
    int micro_count;     /* micro steps of this file (1 without construct) */
    int contributes;     /* had a "data" object */
    struct dump_tensor_row *rows;
    size_t nrows, caprows;
    char *arena;
    size_t alen, acap;
    size_t nentries;     /* records in data */
    struct ovf_list ovf; /* flagged records (step/rank filled) */
    char *framework, *level, *task;
    uint64_t bytes;
    size_t long_names;   /* records skipped for a name of DUMP_NAME_MAX bytes or more */
    size_t long_name_line;   /* the line of the first */
    size_t index;        /* position in the whole (unsharded) list of rank folders */
    size_t seq;          /* position in this read's list (step, then rank order) */
    int32_t group;       /* run of consecutive folders of one step in that list */
    struct origin_cap *ocap;   /* dump_opts.origin_keep and read whole: its records for the
                                  origin search (model/overflow/origin_cap.h), else NULL */
};

struct dump_opts {
    int micro_step;
    const struct mapping *mapping;
    int want_rows;       /* 0: only overflow (skips row building) */
    const struct layout *layout;   /* rename layers.<i> to global indices, or NULL */
    int path_numbers;    /* a step folder, rank folder or dump.json opened alone keeps the
                            step and rank of its path (step3/rank5: step 3, rank 5) in
                            micro step mode too; 0: msProbe's data2db rules (from 0) */
    int shard_k, shard_n;   /* data2db --shard K/N: only the K-th (1-based) of N blocks of
                               ranks; shard_n 0: every rank */
    int rank_major;      /* hand the files over rank by rank (each rank's in step order), as
                            a .trend.db's key orders its rows; micro step numbers are then
                            foreseen from construct.json (dump_summary.foresight_failed),
                            and fn is called for skipped files too (ok 0, no rows) */
    int origin_keep;     /* keep each file's records for the origin search (dump_file.ocap,
                            then ds_rankdir.ocap) */
    struct cons_cache *cons_cache;   /* set by dump_read: construct.json files of equal bytes
                                        share one parse (NULL: each file its own) */
};

/* construct.json read once per distinct content: the rank folders of a run
 * mostly hold byte-identical copies (MBs each), and building the micro step
 * table was an eighth of data2db's time.  Shared by the parsing threads. */
struct cons_cache;
struct cons_cache *cons_cache_new(void);
void cons_cache_free(struct cons_cache *c);
struct microstep;
/* The micro step table of construct.json cpath, from the cache when a file
 * of the same bytes was read before (the file itself, known by its identity,
 * is not read again); its bytes are mapped, or where the lease is refused
 * read into *rbuf (the caller's buffer, capacity *rcap, grown as needed:
 * parse_dump_text).  NULL with why set
 * (the words of the parse without the cache) when it cannot be had, NULL
 * with why empty when the cache is full (the caller then reads the file
 * alone). */
const struct microstep *cons_cache_get(struct cons_cache *c, const char *cpath, char *why, size_t nwhy, char **rbuf,
                                       size_t *rcap);
/* A read buffer (*buf, capacity *cap) made ready for the file at path:
 * grown ahead of the read to more than the file's size, in whole 2 MiB
 * asked of the kernel as huge pages (bigmem.h), so that the read ends in
 * one call and an empty one (no regrowth to twice the size to look for
 * more) and the copy out of the page cache and the parse after it walk a
 * few TLB entries, not thousands.  Advice only: when stat fails the read
 * grows the buffer as before. */
void parse_dump_cons_fit(const char *path, char **buf, size_t *cap);
/* The text of a dump's file (dump.json, construct.json: at most max_bytes)
 * into *buf (*len bytes; NULL when empty): mapped under a read lease when
 * the kernel grants one (*fd >= 0, *maplen), else read into *rbuf
 * (capacity *rcap, fitted and grown as needed; *fd -1).  Mapped, the bytes
 * are neither copied nor put in fresh pages.  0, or -1 with err set naming
 * the file.  parse_dump_text_done(*buf, *fd, *maplen) lets a mapping go. */
int parse_dump_text(const char *path, size_t max_bytes, char **rbuf, size_t *rcap, const char **buf, size_t *len,
                    int *fd, size_t *maplen, struct pt_error *err);
void parse_dump_text_done(const char *buf, int fd, size_t maplen);

/* Parses rank folder dir (dump.json, construct.json) into f (zeroed by the
 * caller, step/rank set).  Never fails hard: problems land in f->ok/error. */
void parse_dump_file(const char *dir, const char *dump_json, const struct dump_opts *o, struct dump_file *f);
/* What a worker keeps from one dump.json to the next (its own; zeroed
 * before the first file, dump_scratch_free after the last): the buffer a
 * file not mapped is read into (rcap bytes, grown as needed), so that it is
 * not faulted in page by page again, and the skeletons and caches of the
 * tensor objects read (struct elem_tmpl, parse_dump_elem.h: made at the
 * first file), which map an object's or a number's bytes to what they make
 * in any file, so that a file starts with the last one's rather than with
 * some 300 KB cleared. */
struct elem_tmpl;
struct dump_scratch {
    char *rbuf;
    size_t rcap;
    struct elem_tmpl *tm;
};
void dump_scratch_free(struct dump_scratch *s);
/* parse_dump_file with s kept from the file before. */
void parse_dump_file_buf(const char *dir, const char *dump_json, const struct dump_opts *o, struct dump_file *f,
                         struct dump_scratch *s);
void dump_file_free(struct dump_file *f);

/* step_base: the global step of micro step 0 of this file (micro mode), or
 * the step number. */
typedef int (*dump_file_fn)(void *ctx, const struct dump_file *f, int32_t step_base);

struct dump_summary {
    int any_rank;        /* a usable rank folder was found */
    int32_t min_step, max_step, max_rank;   /* as global_stats */
    size_t files_ok;
    size_t folders_all;  /* rank folders found, before a shard kept its part */
    int foresight_failed;   /* rank_major: a step number handed over was not the one the
                               files gave in the end (a broken dump.json or one without
                               records changed a step's micro step count): read again
                               without rank_major */
};

/* The micro step count parse_dump_file gives the rank folder dir when its
 * dump.json is sound (1 without construct.json or outside micro step
 * mode), from construct.json alone; with o->cons_cache, what it builds goes
 * into the cache (in either mode) for the parses. */
int dump_foresee_micro(const char *dir, const struct dump_opts *o);

/* Walks path (dump root, step folder, rank folder, dump.json, or a MindSpore
 * graph/pynative root), fills ds->rankdirs, skipped and warnings, and calls
 * fn for every parsed file in order.  With o->shard_n, only the folders of
 * the shard's ranks are read (a shard of no rank: 0, sum->any_rank 0).  Flagged overflow records go to
 * ds->ovf.  Returns -1 only for a fatal problem (nothing readable, cancel,
 * callback failure). */
int dump_read(const char *path, const struct load_opts *lo, const struct dump_opts *o,
              struct dataset *ds, dump_file_fn fn, void *ctx, struct dump_summary *sum, struct pt_error *err);

/* The step and rank a rank folder's path gives: rank<R> (a proc folder
 * alone is rank 0, as data2db numbers procs of a step without rank folders)
 * inside step<S> (else step 0). */
void dump_path_numbers(const char *dir, int32_t *step, int32_t *rank);

/* Does path look like a dump (root, step, rank folder or dump.json)? */
int dump_detect(const char *path);

#endif
