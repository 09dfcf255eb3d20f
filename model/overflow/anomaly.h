/* anomaly: msProbe's monitor anomaly reports as a list beside the cube.
 *
 * msProbe's training monitor, with alert dumping on, writes what its alert
 * rules caught to `anomaly_detected/rank<N>/anomaly.json`, and its analyser
 * the earliest k of them to `anomaly_analyse.json` (probetop-formats(5),
 * MONITOR ANOMALY REPORTS).  This module owns the list those files load into:
 * the entries, their order -- msProbe's "first anomaly" order,
 * probetop-rules(7), FIRST ANOMALY ORDER -- and where each lands in the cube
 * (the heat-map cell its tag names), so the heat map can mark cells and the
 * overflow pane and `probetop overflow` can list and jump.  The reader
 * (src/io/monitor/read_anomaly.c) fills it; nothing here reads a file. */
#ifndef PT_ANOMALY_H
#define PT_ANOMALY_H

#include <stddef.h>
#include <stdint.h>

#include "model/err.h"

struct cube;

/* The train stage of a tag (its last `/` part), as msProbe ranks them. */
enum anomaly_stage {
    ANOM_STAGE_OTHER = -1,     /* a tag msProbe gives no stage: sorts first */
    ANOM_STAGE_FORWARD = 0,    /* actv */
    ANOM_STAGE_BACKWARD = 1,   /* actv_grad, pre_grad, post_grad, acc_grad */
    ANOM_STAGE_OPTIMIZER = 2,  /* exp_avg, exp_avg_sq */
};

/* The alert rule that reported it (read from the message). */
enum anomaly_rule { ANOM_RULE_OTHER = 0, ANOM_RULE_NAN, ANOM_RULE_TURBULENCE };

struct anomaly {
    int32_t rank, step, micro_step, pp_stage, vpp_stage, call_id;
    int8_t stage;              /* enum anomaly_stage, from tag_name */
    uint8_t rule;              /* enum anomaly_rule */
    char *tag_name;            /* "0:layers.0.mlp.output:1/rank0/actv" (owned) */
    char *message;             /* msProbe's text (owned) */
    char *group_mates;         /* the ranks of its pipeline group, as "[0, 1]" (owned) */
    char *op;                  /* the statistic the message names ("norm"), or "" (owned) */
    uint32_t file;             /* index into the list's files */
    uint32_t seq;              /* read order (ties keep it) */
    /* its cell, by anomaly_place(); metric < 0 when the cube has none */
    int metric, stat, step_idx, rank_idx;
    uint32_t target;
};

/* A placed entry's cell, for anomaly_at's index. */
struct anomaly_cell {
    int metric, step_idx, rank_idx;
    uint32_t target;
    size_t idx;                /* into the list */
};

struct anomaly_list {
    struct anomaly *v;
    size_t n, cap;
    char **files;              /* the report files read, in read order (owned) */
    size_t nfiles, files_cap;
    int analyse;               /* the entries came from an anomaly_analyse.json */
    size_t placed;             /* entries with a cell (after anomaly_place) */
    struct anomaly_cell *cells;   /* placed entries by cell, then list order (private: anomaly_at) */
};

void anomaly_list_free(struct anomaly_list *l);
/* Adds a report file's path; its index, or -1 without memory. */
long anomaly_add_file(struct anomaly_list *l, const char *path);
/* Appends a copy of a (its strings copied; stage, rule and op derived from
 * tag_name and message; seq set).  0, or -1 with err. */
int anomaly_push(struct anomaly_list *l, const struct anomaly *a, struct pt_error *err);

/* The stage of a tag_name (probetop-rules(7), FIRST ANOMALY ORDER). */
enum anomaly_stage anomaly_stage_of(const char *tag_name);
/* The rule of a message ("Rule AnomalyNan reports ..."). */
enum anomaly_rule anomaly_rule_of(const char *message);
const char *anomaly_rule_name(enum anomaly_rule r);   /* "AnomalyNan", "AnomalyTurbulence", "other" */
const char *anomaly_stage_name(int stage);            /* "forward", ..., "other" */

/* msProbe's order: <0 when a comes first.  Ties (which msProbe leaves in
 * listing order) go by rank, then read order. */
int anomaly_cmp(const struct anomaly *a, const struct anomaly *b);
/* Sorts the list in that order. */
void anomaly_sort(struct anomaly_list *l);

/* The parts of a tag_name "<vpp>:<name>[:<micro>]/rank<R>/<key>": name
 * (copied into name, size n), micro (-1 when the tag has none) and key (a
 * pointer into tag).  0, or -1 for a tag of another shape. */
int anomaly_tag_parts(const char *tag, char *name, size_t n, int32_t *micro, const char **key);

/* Finds every entry's cell in c (the rules are probetop-formats(5),
 * MONITOR ANOMALY REPORTS) and indexes them for anomaly_at.  0, or -1 with err. */
int anomaly_place(struct anomaly_list *l, const struct cube *c, struct pt_error *err);
/* The first entry (in the list's order) on cell (metric, step index, rank
 * index, target), whatever the statistic; -1 when none. */
long anomaly_at(const struct anomaly_list *l, int metric, int step_idx, int rank_idx, uint32_t target);

/* How an entry counts in `probetop overflow --fail-on` (enum ovf_level):
 * AnomalyNan critical, the others high (man/probetop.1, probetop overflow). */
int anomaly_gate_level(const struct anomaly *a);

#endif
