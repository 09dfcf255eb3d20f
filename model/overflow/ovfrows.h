/* ovfrows: the order flagged records are listed in, for every listing of
 * them (the overflow pane; `probetop overflow` as text, csv and json).
 *
 * NaN/Inf first, so a critical record is never buried under heuristic
 * ones: the critical records, then the other records holding a NaN or Inf
 * (msProbe's high: passed through; medium: absorbed; or, for inputs
 * without levels, every non-finite cell), each part in triage order
 * (model/overflow/overflow.h).  Then the records flagged by the numeric-jump
 * heuristic alone, grouped: one row per record name with how many records,
 * steps and ranks it covers, the groups in the order of their earliest
 * record.  See man/probetop.1, "probetop overflow".
 *
 * A monitor dataset may also carry msProbe's own anomaly reports
 * (model/overflow/anomaly.h): ovfrows_add_anomalies() puts one row per report before all
 * of that, in msProbe's first-anomaly order (the list's order), since they
 * are msProbe's answer to "what went wrong first". */
#ifndef PT_OVFROWS_H
#define PT_OVFROWS_H

#include <stddef.h>
#include <stdint.h>

#include "model/overflow/overflow.h"

enum ovfrows_section {
    OVFROWS_CRITICAL = 0,   /* msProbe's critical: the NaN/Inf was born here */
    OVFROWS_NONFINITE = 1,  /* another record holding a NaN/Inf */
    OVFROWS_JUMP = 2,       /* numeric-jump heuristic alone, grouped by name */
    OVFROWS_ANOMALY = 3,    /* one of msProbe's anomaly reports; entry indexes the anomaly list */
};

struct ovfrows_row {
    uint8_t section;          /* enum ovfrows_section */
    uint8_t level;            /* enum ovf_level of the row's records */
    size_t entry;             /* index into the list: the record, or the group's earliest */
    size_t count;             /* records in the row (1 outside OVFROWS_JUMP) */
    uint32_t nsteps, nranks;  /* distinct steps and ranks among them */
    int32_t step_min, step_max, rank_min, rank_max;
    uint8_t origin;           /* the record where the origin search found the NaN/Inf born */
};

struct ovfrows {
    struct ovfrows_row *v;
    size_t n;
    size_t records;           /* entries the rows cover (sum of count) */
};

/* Builds the rows of list l (sorted, ovf_list_sort) from the entries keep
 * accepts (every entry when keep is NULL); out is replaced.  0 ok, -1 no
 * memory (err). */
struct pt_error;
int ovfrows_build(const struct ovf_list *l, int (*keep)(const struct ovf_entry *e, void *ctx), void *ctx,
                  struct ovfrows *out, struct pt_error *err);
void ovfrows_free(struct ovfrows *r);

/* Moves the row of NaN/Inf record `entry` (index into the list) to the
 * head of the rows, after msProbe's anomaly reports, and marks it origin:
 * every listing leads with the origin (probetop-rules(7), ORIGIN ACROSS
 * RANKS).  Nothing when no such row is there. */
void ovfrows_lead(struct ovfrows *r, size_t entry);

/* Puts a row per entry of al (sorted, anomaly_sort) that keep accepts
 * (every one when keep is NULL) before the rows of out: section
 * OVFROWS_ANOMALY, entry = index into al, level = anomaly_gate_level.  Not
 * counted in out->records.  0 ok, -1 no memory (err). */
struct anomaly;
struct anomaly_list;
int ovfrows_add_anomalies(struct ovfrows *out, const struct anomaly_list *al,
                          int (*keep)(const struct anomaly *a, void *ctx), void *ctx, struct pt_error *err);

/* "12 records, 3 steps (0-2), 2 ranks (0-1)": what a group covers (without
 * the "12 records, " when records is 0). */
void ovfrows_group_text(const struct ovfrows_row *r, int records, char *buf, size_t size);

/* "numeric jump": how listings name the heuristic section and its rows. */
#define OVFROWS_JUMP_NAME "numeric jump"

#endif
