/* dataflow: which op produced the tensor an op received, within one dump
 * (one step, one rank), and the other way round (probetop-rules(7), DATA
 * FLOW).
 *
 * msProbe records no tensor identity: `data_name` is the file of the
 * record's own slot, not of the tensor.  So a tensor is known by what the
 * dump says of it.  In md5 / xor dumps (summary_mode md5) that is its
 * checksum with dtype and shape (method "checksum"); otherwise its dtype,
 * shape and Max, Min, Mean, Norm, all equal, NaN equal to NaN (method
 * "statistics").  The producer of an input is the latest output before it in
 * dump order (the call order of the step) with an equal key: the latest
 * API's output when one has it, else the latest module's (msProbe writes a
 * module's record after the ops inside it, whose outputs it repeats).  A
 * module output's consumers are those of the API output it repeats.
 *
 * Inputs are the PS_INPUT params; outputs PS_OUTPUT and PS_PGRAD
 * (parameter gradients); a param that is no tensor (no dtype or shape, or
 * a "type" other than a Tensor or ndarray: an int, a None) or has neither
 * statistics nor checksum has no key and no link.  Built in
 * one pass over the params with one hash table (linear in the params);
 * owns its arrays, keeps no pointer into the tree. */
#ifndef PT_DATAFLOW_H
#define PT_DATAFLOW_H

#include <stddef.h>
#include <stdint.h>

#include "model/err.h"
#include "model/graph/tree.h"

enum dataflow_method { DATAFLOW_NONE = 0, DATAFLOW_CHECKSUM, DATAFLOW_STATS };

struct dataflow_link {
    uint32_t param;      /* the producing output (index into tree->params) */
    int32_t rec;         /* its record */
    uint8_t method;      /* enum dataflow_method */
    uint32_t nequal;     /* outputs before the input with the same key (1: no other candidate) */
};

struct dataflow;

int dataflow_build(const struct tree *t, struct dataflow **out, struct pt_error *err);
void dataflow_free(struct dataflow *d);

/* The record of param p. */
int32_t dataflow_rec_of(const struct dataflow *d, uint32_t p);
/* The producer of input p: 1 with *l set, 0 when none is found. */
int dataflow_producer(const struct dataflow *d, uint32_t p, struct dataflow_link *l);
/* The consumers of output p, in dump order: their count, *ins = their input
 * params (inside the index; valid until dataflow_free). */
uint32_t dataflow_consumers(const struct dataflow *d, uint32_t p, const uint32_t **ins);
/* "checksum", "statistics", "" */
const char *dataflow_method_name(int method);

#endif
