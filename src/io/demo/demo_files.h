/* demo_files: the files of the demo (`probetop --demo`, `probetop demo
 * --write DIR`), made in memory: a problem run and its benchmark, each a
 * msProbe dump (DEMO_FILES_STEPS steps x DEMO_FILES_RANKS ranks, Megatron
 * TP 2 x PP 2 x DP 2 in Megatron's rank order, a small GPT of 4 layers, 2 per pipeline stage) with
 * construct.json and stack.json, and a Megatron-LM training log; the problem
 * run also has a Kineto profiler trace (one file a rank) and a monitor tree
 * with msProbe's anomaly reports.  Written as msProbe writes them
 * (probetop-formats(5)), read back by the real readers.  Deterministic: the
 * values come from a fixed hash of (node, step, rank), no clock, no rand().
 *
 * What is planted (the constants below, checked by tests/unit/test_demo_files.c):
 *   - a NaN born on rank DEMO_FILES_BORN_RANK at step DEMO_FILES_BORN_STEP:
 *     the output of DEMO_FILES_BORN_NODE (mlp.linear_fc1 of the stage's last
 *     layer) with clean inputs; its tensor-parallel peer gets it through the
 *     layer's all_reduce, and the next pipeline stage through the
 *     send/recv pair (DEMO_FILES_RECV_RANK's DEMO_FILES_RECV_NODE); a step
 *     later the optimizer has written it into every rank's weights;
 *   - a drifting layer: in the problem run only, the output of
 *     DEMO_FILES_DRIFT_NODE (mlp.linear_fc2 of local layer 1 on the second
 *     pipeline stage, global layer 3) is (1 + 0.3 step) times the
 *     benchmark's, on every rank of that stage, and everything after it;
 *   - the training logs part from iteration DEMO_FILES_LOG_PART on (the
 *     problem's lm loss 0.6 % a step above the benchmark's), the problem's
 *     iteration DEMO_FILES_LOG_NAN is a NaN iteration;
 *   - the trace's rank DEMO_FILES_SLOW_RANK computes 1.5 times slower (the
 *     straggler);
 *   - the monitor's anomaly reports: AnomalyNan on the born rank's layer
 *     at the born step, AnomalyTurbulence on the drifting layer. */
#ifndef PT_DEMO_FILES_H
#define PT_DEMO_FILES_H

#include "model/err.h"
#include "src/io/demo/demo_set.h"

#define DEMO_FILES_STEPS 4
#define DEMO_FILES_RANKS 8
#define DEMO_FILES_TP 2
#define DEMO_FILES_PP 2
#define DEMO_FILES_DP (DEMO_FILES_RANKS / (DEMO_FILES_TP * DEMO_FILES_PP))
#define DEMO_FILES_LAYERS 4                   /* 2 a pipeline stage */
/* Megatron's default rank order (tp-cp-ep-dp-pp): rank = t + TP (dp + DP stage). */
#define DEMO_FILES_STAGE(r) ((r) / (DEMO_FILES_TP * DEMO_FILES_DP))
#define DEMO_FILES_DPI(r) ((r) / DEMO_FILES_TP % DEMO_FILES_DP)
#define DEMO_FILES_BORN_STEP 2
#define DEMO_FILES_BORN_RANK 2
#define DEMO_FILES_BORN_NODE "Functional.linear.6.forward"
#define DEMO_FILES_BORN_MODULE "Module.module.module.decoder.layers.1.mlp.linear_fc1.ColumnParallelLinear.forward.0"
#define DEMO_FILES_RECV_RANK 6
#define DEMO_FILES_RECV_NODE "Distributed.recv.0.forward"
#define DEMO_FILES_DRIFT_RANK 4               /* the first rank of the drifting stage */
#define DEMO_FILES_DRIFT_NODE "Functional.linear.7.forward"
#define DEMO_FILES_DRIFT_MODULE "Module.module.module.decoder.layers.1.mlp.linear_fc2.RowParallelLinear.forward.0"
#define DEMO_FILES_LOG_ITERS 30
#define DEMO_FILES_LOG_PART 2
#define DEMO_FILES_LOG_NAN 3
#define DEMO_FILES_SLOW_RANK 3

/* Where the parts are, relative to the demo's root. */
#define DEMO_FILES_PROBLEM "problem/dump"
#define DEMO_FILES_BENCH "bench/dump"
#define DEMO_FILES_PROBLEM_LOG "problem/train.log"
#define DEMO_FILES_BENCH_LOG "bench/train.log"
#define DEMO_FILES_TRACE "problem/trace"
#define DEMO_FILES_MONITOR "problem/monitor"

/* Makes every file of the demo.  0, or -1 (err) without memory. */
int demo_files_make(struct demo_files *out, struct pt_error *err);
void demo_files_free(struct demo_files *f);

/* Writes the files under dir (which must exist), making the folders.  0,
 * or -1 with err naming the file. */
int demo_files_write(const struct demo_files *f, const char *dir, struct pt_error *err);

/* Removes the files of f written under dir and the folders they made
 * (not dir itself, nor anything else found there).  0, or -1 when one
 * could not be removed. */
int demo_files_remove(const struct demo_files *f, const char *dir);

#endif
