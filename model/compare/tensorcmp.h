/* tensorcmp: msProbe's tensor-mode metrics on two real tensors
 * (probetop-rules(7), TENSOR METRICS): the validation chain, then Cosine, EucDist,
 * MaxAbsErr, MaxRelativeErr and the one- and five-thousandths error ratios.
 *
 * Pure arithmetic: the tensors arrive as flattened double arrays (C order)
 * with the dtype and shape of the file they came from, because msProbe's
 * checks (shape, 0-d, dtype) and the precision of its relative error look
 * at the stored array, not at dump.json.  Who reads files (src/io/dump/read_npy.c)
 * and who owns the arrays is the caller's business. */
#ifndef PT_TENSORCMP_H
#define PT_TENSORCMP_H

#include <stddef.h>
#include <stdint.h>

#include "model/compare/compare.h"

/* Element types a tensor file can hold.  bf16 is not a NumPy type: MindSpore
 * saves bfloat16 tensors as float32 .npy files, so TENSORCMP_BF16 only appears for
 * files that name it explicitly. */
enum tensorcmp_dtype {
    TENSORCMP_BOOL = 0, TENSORCMP_I8, TENSORCMP_U8, TENSORCMP_I16, TENSORCMP_U16, TENSORCMP_I32, TENSORCMP_U32,
    TENSORCMP_I64, TENSORCMP_U64, TENSORCMP_F16, TENSORCMP_BF16, TENSORCMP_F32, TENSORCMP_F64, TENSORCMP_NDTYPES
};

#define TENSORCMP_MAXDIM 32

struct tensorcmp_tensor {
    double *v;                  /* n values, C order; malloc'd, freed by whoever holds the struct */
    size_t n;                   /* product of the shape (1 for 0-d) */
    int ndim;                   /* 0: a 0-d array */
    uint64_t shape[TENSORCMP_MAXDIM];
    int dtype;                  /* enum tensorcmp_dtype */
};

/* NumPy's name of a dtype ("float32", "bool"). */
const char *tensorcmp_dtype_name(int dtype);

/* Messages, in the order msProbe appends them to a row's message (bit i =
 * message i).  TM_READ's text names the files, so the caller prints it. */
enum tensorcmp_msg {
    TM_NPU_NOFILE, TM_BENCH_NOFILE, TM_UNMATCHED, TM_READ, TM_EMPTY, TM_SHAPE, TM_ZERO_D, TM_INFNAN,
    TM_DTYPE, TM_LEN1, TM_COS_ALLZERO_NPU, TM_COS_ALLZERO_BENCH, TM_COS_NAN, TM_ABS_NAN, TM_REL_NAN, TM_COUNT
};
const char *tensorcmp_msg_text(int msg);

/* Column order of the six metrics in the tensor header. */
enum {
    TENSORCMP_COSINE, TENSORCMP_EUCDIST, TENSORCMP_MAXABS, TENSORCMP_MAXREL, TENSORCMP_ONE_THOUSANDTH,
    TENSORCMP_FIVE_THOUSANDTHS, TENSORCMP_NMETRICS
};

/* All six cells the same (kind CV_UNSUP, CV_SHAPE, CV_NA...). */
void tensorcmp_fill(struct cval out[TENSORCMP_NMETRICS], int kind);

/* Steps 2-6 of the validation chain and the metrics, for two tensors that
 * were both read.  Fills out[] and returns the message bits.  Neither
 * array is modified (inf/nan positions that match are read as 0). */
uint32_t tensorcmp_compare(const struct tensorcmp_tensor *npu, const struct tensorcmp_tensor *bench,
                           struct cval out[TENSORCMP_NMETRICS]);

#endif
