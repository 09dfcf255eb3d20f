/* tensorcmp: msProbe's tensor-mode metrics on two real tensors
 * (probetop-rules(7), TENSOR METRICS): the validation chain, then Cosine, EucDist,
 * MaxAbsErr, MaxRelativeErr and the one- and five-thousandths error ratios.
 *
 * Pure arithmetic: the tensors arrive as flattened double arrays (C order)
 * with the dtype and shape of the file they came from, because msProbe's
 * checks (shape, 0-d, dtype) and the precision of its relative error look
 * at the stored array, not at dump.json.  Who reads files (src/read_npy.c)
 * and who owns the arrays is the caller's business. */
#ifndef PT_TENSORCMP_H
#define PT_TENSORCMP_H

#include <stddef.h>
#include <stdint.h>

#include "model/compare/compare.h"

/* Element types a tensor file can hold.  bf16 is not a NumPy type: MindSpore
 * saves bfloat16 tensors as float32 .npy files, so TC_BF16 only appears for
 * files that name it explicitly. */
enum tc_dtype { TC_BOOL = 0, TC_I8, TC_U8, TC_I16, TC_U16, TC_I32, TC_U32, TC_I64, TC_U64,
                TC_F16, TC_BF16, TC_F32, TC_F64, TC_NDTYPES };

#define TC_MAXDIM 32

struct tc_tensor {
    double *v;                  /* n values, C order; malloc'd, freed by whoever holds the struct */
    size_t n;                   /* product of the shape (1 for 0-d) */
    int ndim;                   /* 0: a 0-d array */
    uint64_t shape[TC_MAXDIM];
    int dtype;                  /* enum tc_dtype */
};

/* NumPy's name of a dtype ("float32", "bool"). */
const char *tc_dtype_name(int dtype);

/* Messages, in the order msProbe appends them to a row's message (bit i =
 * message i).  TM_READ's text names the files, so the caller prints it. */
enum tc_msg {
    TM_NPU_NOFILE, TM_BENCH_NOFILE, TM_UNMATCHED, TM_READ, TM_EMPTY, TM_SHAPE, TM_ZERO_D, TM_INFNAN,
    TM_DTYPE, TM_LEN1, TM_COS_ALLZERO_NPU, TM_COS_ALLZERO_BENCH, TM_COS_NAN, TM_ABS_NAN, TM_REL_NAN, TM_COUNT
};
const char *tc_msg_text(int msg);

/* Column order of the six metrics in the tensor header. */
enum { TC_COSINE, TC_EUCDIST, TC_MAXABS, TC_MAXREL, TC_ONE_THOUSANDTH, TC_FIVE_THOUSANDTHS, TC_NMETRICS };

/* All six cells the same (kind CV_UNSUP, CV_SHAPE, CV_NA...). */
void tc_fill(struct cval out[TC_NMETRICS], int kind);

/* Steps 2-6 of the validation chain and the metrics, for two tensors that
 * were both read.  Fills out[] and returns the message bits.  Neither
 * array is modified (inf/nan positions that match are read as 0). */
uint32_t tc_compare(const struct tc_tensor *npu, const struct tc_tensor *bench, struct cval out[TC_NMETRICS]);

#endif
