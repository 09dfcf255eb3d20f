/* demo_files: every file of the demo (see demo_files.h): the dumps
 * (demo_dump.c), the training logs, the profiler trace, the monitor tree
 * with its anomaly reports; and writing them under a folder. */
#include "src/io/demo/demo_files.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/cube/demo.h"
#include "src/io/demo/demo_dump.h"

/* --- training logs (Megatron-LM) --- */

static double bench_loss(int i) { return 2.0 + 8.8 * exp(-i / 9.0) + 0.01 * demo_noise(7, (uint64_t)i, 0, 0); }
static double bench_gnorm(int i) { return 0.8 + 2.5 * exp(-i / 12.0) + 0.02 * demo_noise(8, (uint64_t)i, 0, 0); }

static int training_log(struct demo_files *set, int problem) {
    char *b = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&b, &n);
    if (!f) return -1;
    fputs("using world size: 8, data-parallel size: 2, context-parallel size: 1, tensor-model-parallel size: 2, "
          "pipeline-model-parallel size: 2\n------------------------ arguments ------------------------\n"
          "  lr .............................................. 0.0001\n  num_layers ...................................... 4\n"
          "-------------------- end of arguments ---------------------\n[before the start of training step] datetime: "
          "2026-01-05 10:00:00\n", f);
    for (int i = 1; i <= DEMO_FILES_LOG_ITERS; i++) {
        /* the problem run leaves the benchmark 0.6 % a step from DEMO_FILES_LOG_PART on */
        double part = problem && i >= DEMO_FILES_LOG_PART ? 0.006 * (i - DEMO_FILES_LOG_PART + 2) : 0;
        int nan = problem && i == DEMO_FILES_LOG_NAN;
        fprintf(f, " [2026-01-05 10:%02d:%02d] iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): "
                   "%.1f | learning rate: %.6E | global batch size: %5d |",
                i / 60, i % 60, i, DEMO_FILES_LOG_ITERS, i * 64, 850.0 + 10 * demo_noise(9, (uint64_t)i, 0, 0), 1e-4, 64);
        if (!nan) fprintf(f, " lm loss: %.6E |", bench_loss(i) * (1 + part));
        fputs(" loss scale: 1.0 |", f);
        if (nan) fputs(" grad norm: nan |", f);
        else fprintf(f, " grad norm: %.3f |", bench_gnorm(i) * (1 + part));
        fprintf(f, " number of skipped iterations: %3d | number of nan iterations: %3d |\n", 0, nan);
    }
    if (fclose(f) != 0) {
        free(b);
        return -1;
    }
    return demo_set_add(set, problem ? DEMO_FILES_PROBLEM_LOG : DEMO_FILES_BENCH_LOG, b, n);
}

/* --- the profiler trace (Kineto chrome trace, one file a rank) --- */

struct tr {
    FILE *f;
    int rank, first;
    long corr;
    double stream_free[3];   /* streams 7 (compute), 20 (all_reduce), 21 (send/recv) */
};

static int sidx(int stream) { return stream == 7 ? 0 : stream == 20 ? 1 : 2; }

static void ev(struct tr *t, const char *fmt_tail, const char *cat, const char *name, int pid, int tid, double ts,
               double dur) {
    fprintf(t->f, "%s\n{\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s\", \"pid\": %d, \"tid\": %d, \"ts\": %.3f, "
                  "\"dur\": %.3f, \"args\": {%s}}",
            t->first ? "" : ",", cat, name, pid, tid, ts, dur, fmt_tail);
    t->first = 0;
}

static double launch(struct tr *t, double at, const char *name, int stream, double dur, const char *cat) {
    char args[160];
    long c = t->corr++;
    snprintf(args, sizeof args, "\"External id\": %ld, \"correlation\": %ld", c, c);
    ev(t, args, "cuda_runtime", "cudaLaunchKernel", 1000 + t->rank, 1000 + t->rank, at, 3.5);
    double start = at + 4.25 > t->stream_free[sidx(stream)] ? at + 4.25 : t->stream_free[sidx(stream)];
    t->stream_free[sidx(stream)] = start + dur;
    snprintf(args, sizeof args, "\"External id\": %ld, \"device\": %d, \"stream\": %d, \"correlation\": %ld", c, t->rank,
             stream, c);
    ev(t, args, cat, name, t->rank, stream, start, dur);
    return start + dur;
}

static void anno(struct tr *t, const char *name, double ts, double dur) {
    ev(t, "", "user_annotation", name, 1000 + t->rank, 1000 + t->rank, ts, dur);
}

static int trace_rank(struct demo_files *set, int rank) {
    char *b = NULL;
    size_t n = 0;
    struct tr t = {open_memstream(&b, &n), rank, 1, (long)rank * 10000000 + 1, {0, 0, 0}};
    if (!t.f) return -1;
    fprintf(t.f, "{\"schemaVersion\": 1, \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": %d, \"world_size\": %d}, "
                 "\"traceEvents\": [", rank, DEMO_FILES_RANKS);
    const double slow = rank == DEMO_FILES_SLOW_RANK ? 1.5 : 1.0, kern = 80.0;
    const double step_len = 2600.0, t0 = 1.7e15 + rank * 0.125;
    /* the slowest rank's work: the all_reduce ends when it is done */
    const double work = 2 * (8 * kern * 1.5 + 60) + 200;
    for (int s = 0; s < DEMO_FILES_STEPS; s++) {
        double base = t0 + s * step_len;
        for (int k = 0; k < 3; k++)
            if (t.stream_free[k] < base) t.stream_free[k] = base;
        char name[40];
        snprintf(name, sizeof name, "ProfilerStep#%d", s);
        anno(&t, name, base, step_len - 1.0);
        double at = base + 10.0;
        static const char *const phase[2][3] = {
            {"forward_step", "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_tn", "send_forward"},
            {"backward_step", "void at::native::vectorized_elementwise_kernel<4>", "send_backward"},
        };
        for (int p = 0; p < 2; p++) {
            anno(&t, phase[p][0], at, 8 * 10.0);
            for (int k = 0; k < 8; k++) launch(&t, at + k * 10.0, phase[p][1], 7, kern * slow, "kernel");
            at += 90.0;
            /* the pipeline's send/recv of this phase */
            anno(&t, phase[p][2], at, 10.0);
            launch(&t, at + 1.0, "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclWorkElem)", 21, 30.0, "kernel");
            at += 20.0;
        }
        at = (at > t.stream_free[0] ? at : t.stream_free[0]) + 5.0;
        anno(&t, "start_grad_sync", at, 10.0);
        double ready = at + 4.25 > t.stream_free[1] ? at + 4.25 : t.stream_free[1];
        double ends = base + 10.0 + work + 50.0;
        launch(&t, at, "ncclKernel_AllReduce_RING_LL_Sum_bf16(ncclWorkElem)", 20, ends - ready > 20.0 ? ends - ready : 20.0,
               "kernel");
        at += 20.0;
        anno(&t, "finish_grad_sync", at, 5.0);
        at = (at > t.stream_free[1] ? at : t.stream_free[1]) + 5.0;
        anno(&t, "optimizer", at, 50.0);
        launch(&t, at + 1.0, "multi_tensor_apply_kernel<AdamFunctor>", 7, 25.0, "kernel");
        launch(&t, at + 10.0, "Memcpy DtoD (Device -> Device)", 7, 5.0, "gpu_memcpy");
    }
    fputs("\n], \"displayTimeUnit\": \"ms\"}\n", t.f);
    if (fclose(t.f) != 0) {
        free(b);
        return -1;
    }
    char path[200];
    snprintf(path, sizeof path, "%s/rank%d.pt.trace.json", DEMO_FILES_TRACE, rank);
    return demo_set_add(set, path, b, n);
}

/* --- the monitor tree and msProbe's anomaly reports --- */

/* The monitor's view of a layer's mlp output (forward norm, min, max);
 * NaN where the dumps hold it. */
static void mon_values(int rank, int step, int layer, double v[3]) {
    int stage = DEMO_FILES_STAGE(rank);
    int nan = step > DEMO_FILES_BORN_STEP ||
              (step == DEMO_FILES_BORN_STEP && DEMO_FILES_DPI(rank) == DEMO_FILES_DPI(DEMO_FILES_BORN_RANK) &&
               (stage > 0 || layer == 1));
    double n = 50.0 * (1 + 0.05 * demo_noise(11, (uint64_t)step, (uint64_t)rank, (uint64_t)layer));
    if (stage == DEMO_FILES_PP - 1 && layer == 1) n *= 1 + 0.3 * step;   /* the drift */
    /* the NaN in the norm; min and max stay finite (a row whose statistics are
       all NaN reads as "no tensor" in a monitor tree) */
    v[0] = nan ? NAN : n;
    v[1] = -0.02 * n;
    v[2] = 0.021 * n;
}

static int monitor_rank(struct demo_files *set, int rank) {
    char *b = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&b, &n);
    if (!f) return -1;
    fputs("vpp_stage,name,step,micro_step,norm,min,max\n", f);
    for (int s = 0; s < DEMO_FILES_STEPS; s++)
        for (int l = 0; l < DEMO_FILES_LAYERS / DEMO_FILES_PP; l++) {
            double v[3];
            mon_values(rank, s, l, v);
            fprintf(f, "0,decoder.layers.%d.mlp.output,%d,0", l, s);
            for (int k = 0; k < 3; k++) {
                if (isnan(v[k])) fputs(",nan", f);
                else fprintf(f, ",%.6g", v[k]);
            }
            fputc('\n', f);
        }
    if (fclose(f) != 0) {
        free(b);
        return -1;
    }
    char path[200];
    snprintf(path, sizeof path, "%s/Jan05_10-00-00-rank%d-d3m0%04d/actv_0-%d.csv", DEMO_FILES_MONITOR, rank, rank,
             DEMO_FILES_STEPS - 1);
    return demo_set_add(set, path, b, n);
}

/* One rank's anomaly.json as msProbe's AnomalyDataWriter writes it. */
static int anomaly_report(struct demo_files *set, int rank, int step, const char *rule, const char *op, const char *value,
                          int call) {
    char *b = NULL, tag[120];
    size_t n = 0;
    FILE *f = open_memstream(&b, &n);
    if (!f) return -1;
    int stage = DEMO_FILES_STAGE(rank);
    snprintf(tag, sizeof tag, "0:decoder.layers.1.mlp.output:0/rank%d/actv", rank);
    fprintf(f, "{\n \"%s_step_%d_call_%d\": {\n  \"rank\": %d,\n  \"step\": %d,\n  \"micro_step\": 0,\n  \"pp_stage\": %d,\n"
               "  \"vpp_stage\": 0,\n  \"call_id\": %d,\n  \"tag_name\": \"%s\",\n",
            tag, step, call, rank, step, stage, call, tag);
    fprintf(f, "  \"message\": \"Rule %s reports anomaly signal in ('%s', '%s') at step %d, current value %s, history "
               "mean 50.1.\",\n  \"group_mates\": [\n   %d,\n   %d\n  ]\n }\n}",
            rule, tag, op, step, value, rank - rank % DEMO_FILES_TP, rank - rank % DEMO_FILES_TP + 1);
    if (fclose(f) != 0) {
        free(b);
        return -1;
    }
    char path[200];
    snprintf(path, sizeof path, "%s/anomaly_detected/rank%d/anomaly.json", DEMO_FILES_MONITOR, rank);
    return demo_set_add(set, path, b, n);
}

/* --- the whole set --- */

int demo_files_make(struct demo_files *out, struct pt_error *err) {
    memset(out, 0, sizeof *out);
    int rc = demo_dump_runs(out);
    for (int p = 1; p >= 0 && rc == 0; p--) rc = training_log(out, p);
    for (int r = 0; r < DEMO_FILES_RANKS && rc == 0; r++) rc = trace_rank(out, r);
    for (int r = 0; r < DEMO_FILES_RANKS && rc == 0; r++) rc = monitor_rank(out, r);
    if (rc == 0) rc = anomaly_report(out, DEMO_FILES_BORN_RANK, DEMO_FILES_BORN_STEP, "AnomalyNan", "norm", "nan", 41);
    if (rc == 0) {
        char v[32];
        double m[3];
        mon_values(DEMO_FILES_DRIFT_RANK, DEMO_FILES_BORN_STEP - 1, 1, m);
        snprintf(v, sizeof v, "%.6g", m[0]);
        rc = anomaly_report(out, DEMO_FILES_DRIFT_RANK, DEMO_FILES_BORN_STEP - 1, "AnomalyTurbulence", "norm", v, 23);
    }
    if (rc != 0) {
        demo_set_free(out);
        return pt_errorf(err, "demo: out of memory");
    }
    return 0;
}

void demo_files_free(struct demo_files *f) { demo_set_free(f); }

/* mkdir -p of path's folders under dir (path relative). */
static int make_parents(const char *dir, const char *path, struct pt_error *err) {
    char p[4096];
    int w = snprintf(p, sizeof p, "%s/%s", dir, path);
    if (w < 0 || (size_t)w >= sizeof p) return pt_errorf(err, "%s: path too long", dir);
    for (char *s = p + strlen(dir) + 1; *s; s++) {
        if (*s != '/') continue;
        *s = '\0';
        if (mkdir(p, 0755) != 0 && errno != EEXIST) {
            int e = errno;
            return pt_errorf(err, "%s: %s", p, strerror(e));
        }
        *s = '/';
    }
    return 0;
}

int demo_files_write(const struct demo_files *f, const char *dir, struct pt_error *err) {
    for (size_t i = 0; i < f->n; i++) {
        if (make_parents(dir, f->v[i].path, err) != 0) return -1;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", dir, f->v[i].path);
        FILE *o = fopen(p, "wb");
        if (!o) return pt_errorf(err, "%s: %s", p, strerror(errno));
        size_t put = fwrite(f->v[i].data, 1, f->v[i].len, o);
        int e = errno;
        if (fclose(o) != 0 || put != f->v[i].len) return pt_errorf(err, "%s: %s", p, strerror(e ? e : EIO));
    }
    return 0;
}

int demo_files_remove(const struct demo_files *f, const char *dir) {
    int rc = 0;
    char p[4096];
    for (size_t i = 0; i < f->n; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, f->v[i].path);
        if (unlink(p) != 0 && errno != ENOENT) rc = -1;
    }
    /* the folders, deepest first: each path's parents, from the file up */
    for (size_t i = 0; i < f->n; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, f->v[i].path);
        size_t root = strlen(dir);
        for (char *s = strrchr(p, '/'); s && (size_t)(s - p) > root; s = strrchr(p, '/')) {
            *s = '\0';
            if (rmdir(p) != 0 && errno != ENOENT && errno != ENOTEMPTY && errno != EEXIST) rc = -1;
        }
    }
    return rc;
}
