/* ovf_origin: the origin rank of the NaN/Inf of a loaded dump, step by
 * step (model/origin.h has the rules).  Reads every rank folder of each
 * step that has a flagged record (records and params only, no stack), so
 * the model gets one tree per rank; names the nodes it reports with their
 * step, micro step (from the dataset's flagged records), rank, position
 * and dump name.  Owns every string of the report. */
#ifndef PT_OVF_ORIGIN_H
#define PT_OVF_ORIGIN_H

#include <stddef.h>
#include <stdint.h>

#include "model/origin.h"
#include "src/dataset.h"

struct ovf_origin_node {
    int32_t step, micro, rank;   /* micro -1 unknown */
    uint32_t pos;                /* index of the record in dump.json data */
    char *name;
};

struct ovf_origin_hop {
    int has_from;                /* 0: it appeared there with no anomalous peer */
    struct ovf_origin_node from, to;
};

struct ovf_origin_step {
    int32_t step;
    enum origin_phase phase;
    struct ovf_origin_node *origins; size_t norigins;
    struct ovf_origin_hop *chain; size_t nchain;
};

struct ovf_origin_report {
    struct ovf_origin_step *v; size_t n;   /* steps with an origin, ascending */
};

/* 0 ok (an empty report when the dataset is not a dump or has nothing
 * flagged), -1 with a message (a rank folder that cannot be read, memory). */
int ovf_origin_run(const struct dataset *ds, struct ovf_origin_report *out, struct pt_error *err);
void ovf_origin_report_free(struct ovf_origin_report *r);

#endif
