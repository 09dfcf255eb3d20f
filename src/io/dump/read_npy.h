/* read_npy: NumPy .npy files (format versions 1.0, 2.0, 3.0) into double
 * arrays, and the tensor loader that tensor-mode compares use
 * (probetop-rules(7), TENSOR METRICS: <rank folder>/dump_tensor_data/<data_name>).
 *
 * Every size comes from the file and is checked against the file's real
 * length before anything is allocated, so a hostile header cannot make us
 * allocate more than a small multiple of the file. */
#ifndef PT_READ_NPY_H
#define PT_READ_NPY_H

#include "model/compare/compare.h"
#include "model/err.h"
#include "model/compare/tensorcmp.h"
#include "model/graph/tree.h"

/* Largest element count read (2 GiB of doubles). */
#define NPY_MAX_ELEMS ((uint64_t)1 << 28)

/* Reads path into *out (out->v malloc'd, the caller frees it; 0-d arrays
 * have one element, empty arrays v == NULL and n == 0).  Values come out in
 * C order whatever the file's fortran_order.  -1 with a message naming the
 * file on any problem. */
int npy_read(const char *path, struct tensorcmp_tensor *out, struct pt_error *err);

/* The struct cmp_opts tensor loader: reads param p's data_name from t's
 * dump_tensor_data folder.  ctx is unused. */
int npy_tensor_load(void *ctx, const struct tree *t, const struct tparam *p, struct tensorcmp_tensor *out,
                    struct pt_error *err);

/* Sets o->tensor for a pair of dumps when tensor mode applies: both tasks
 * "tensor" and the tensor files .npy.  When they are PyTorch .pt files
 * (which need torch to read) it leaves o->tensor NULL and returns the note
 * "tensor files are PyTorch .pt: comparing statistics"; otherwise NULL. */
const char *npy_setup_opts(struct cmp_opts *o, const struct tree *npu, const struct tree *bench);

#endif
