/* Megatron phases and micro-batches of profiler traces (probetop-rules(7),
 * PROFILER TRACES: Phases, Micro-batches, Patterns; probetop-formats(5),
 * PROFILER TRACES: Process groups, TRACE PATTERNS): generated runs
 * (tests/gen_trace.py --tp --ep --recompute --pg-config) whose every phase
 * time follows from the generator's schedule, the process groups from
 * pg_config and Megatron's group listing (1 024 ranks), a kernel's group
 * deciding its class over its name, patterns files (and bad ones), hostile
 * pg_config, and `probetop trace --phases/--kernels/--patterns`. */
#include "pt_cube.h"
#include "pt_test.h"
#include "pt_trace.h"

#include <sys/wait.h>

#include "model/trace/lanes.h"
#include "src/io/common/json.h"
#include "model/trace/tpatterns.h"

/* Rank r's micro-batch (step, micro), or NULL. */
static const struct trace_stats *micro_of(const struct dataset *ds, int32_t r, int32_t step, int32_t micro) {
    const struct trace_rank *tr = rank_of(ds, r);
    for (size_t i = 0; tr && i < tr->nmicros; i++)
        if (tr->micros[i].step == step && tr->micros[i].micro == micro) return &tr->micros[i].stats;
    return NULL;
}

/* The generator's schedule (tests/gen_trace.py): per micro-batch, a
 * forward of 6 kernels of 40 us and a backward of 6 (the first 2 under
 * recompute_forward), each pass followed on stream 22 by a TP all-reduce
 * (15 us) and an EP all-to-all (12 us) under its computation; the
 * straggler's kernels take --slow times longer.  Outside the micro-batches:
 * 2 pipeline sends of 30 us per micro-batch, one DP all-reduce, the
 * optimizer's kernel (25 us) and memcpy (5 us). */
static void check_schedule(const struct dataset *ds, int32_t rank, double f, int micro) {
    for (int32_t step = 1; step <= 2; step++) {
        for (int m = 0; m < micro; m++) {
            const struct trace_stats *s = micro_of(ds, rank, step, m);
            CHECK(s != NULL);
            if (!s) continue;
            CHECK_NEAR(s->phase_ns[TRACE_PH_FORWARD][TRACE_COMPUTE] / 1000.0, 6 * 40 * f, 1e-9);
            CHECK_NEAR(s->phase_ns[TRACE_PH_BACKWARD][TRACE_COMPUTE] / 1000.0, 4 * 40 * f, 1e-9);
            CHECK_NEAR(s->phase_ns[TRACE_PH_RECOMPUTE][TRACE_COMPUTE] / 1000.0, 2 * 40 * f, 1e-9);
            CHECK_INT(s->phase_count[TRACE_PH_RECOMPUTE][TRACE_COMPUTE], 2);
            /* each pass's kernels back to back on stream 7: its span is its compute */
            CHECK_NEAR(s->phase_span_ns[TRACE_PH_FORWARD] / 1000.0, 6 * 40 * f, 0.25);
            CHECK_NEAR(s->phase_span_ns[TRACE_PH_RECOMPUTE] / 1000.0, 2 * 40 * f, 0.25);
            CHECK_NEAR(s->phase_span_ns[TRACE_PH_BACKWARD] / 1000.0, 4 * 40 * f, 0.25);
            CHECK_NEAR(s->phase_ns[TRACE_PH_TP_COMM][TRACE_COMM] / 1000.0, 2 * 15, 1e-9);
            CHECK_NEAR(s->phase_ns[TRACE_PH_EP_COMM][TRACE_COMM] / 1000.0, 2 * 12, 1e-9);
            CHECK_INT(s->phase_count[TRACE_PH_TP_COMM][TRACE_COMM], 2);
            CHECK_INT(s->phase_count[TRACE_PH_EP_COMM][TRACE_COMM], 2);
            CHECK_NEAR(s->cat_ns[TRACE_COMPUTE] / 1000.0, 12 * 40 * f, 1e-9);
            CHECK_NEAR(s->cat_ns[TRACE_COMM] / 1000.0, 54, 1e-9);
            CHECK_NEAR(s->overlap_ns / 1000.0, 54, 1e-9);   /* all of it under the pass's computation */
            CHECK_INT(s->nkernels, 16);
            /* nothing of the step's own phases inside a micro-batch */
            CHECK_INT(s->phase_count[TRACE_PH_PP_COMM][TRACE_COMM] + s->phase_count[TRACE_PH_DP_COMM][TRACE_COMM] +
                          s->phase_count[TRACE_PH_OPTIMIZER][TRACE_COMPUTE],
                      0);
        }
        CHECK(micro_of(ds, rank, step, micro) == NULL);
        const struct trace_stats *o = micro_of(ds, rank, step, -1);
        CHECK(o != NULL);
        if (!o) continue;
        CHECK_INT(o->phase_count[TRACE_PH_PP_COMM][TRACE_COMM], 2 * micro);
        CHECK_NEAR(o->phase_ns[TRACE_PH_PP_COMM][TRACE_COMM] / 1000.0, 2 * micro * 30, 1e-9);
        CHECK_INT(o->phase_count[TRACE_PH_DP_COMM][TRACE_COMM], 1);
        CHECK_NEAR(o->phase_ns[TRACE_PH_OPTIMIZER][TRACE_COMPUTE] / 1000.0, 25, 1e-9);
        CHECK_NEAR(o->phase_ns[TRACE_PH_OPTIMIZER][TRACE_MEMORY] / 1000.0, 5, 1e-9);
        CHECK_INT(o->nkernels, 2 * micro + 3);
    }
}

static void gen_micro_batches(void) {
    if (!getenv("PT_PYTHON")) SKIP("no python");
    char p[1100];
    struct dataset *ds = gen_load("mb", "--ranks 8 --pp 2 --tp 2 --ep 2 --recompute --pg-config --steps 2 --micro 3 "
                                        "--straggler 5 --slow 1.5", p, sizeof p);
    if (!ds) return;
    CHECK(ds->trace->has_micro);
    check_schedule(ds, 0, 1.0, 3);
    check_schedule(ds, 5, 1.5, 3);
    /* the cube: step 2 ("2") then its micro-batches as micro steps ("2.0" .. "2.2") */
    CHECK(cube_has_micro(ds->cube));
    CHECK_INT(whole_steps(ds), 2);
    CHECK_INT(ds->cube->nsteps, 2 * 4);
    CHECK_NEAR(pt_cube_at(ds, "time", "us", "recompute.compute", "2.1", 5), 2 * 40 * 1.5, 1e-3);
    CHECK_NEAR(pt_cube_at(ds, "time", "us", "tp_comm.communication", "2.1", 0), 30, 1e-3);
    CHECK_NEAR(pt_cube_at(ds, "time", "count", "ep_comm.communication", "2.2", 3), 2, 0);
    CHECK_NEAR(pt_cube_at(ds, "time", "us", "overlapped", "2.0", 0), 54, 1e-3);
    CHECK_NEAR(pt_cube_at(ds, "time", "us", "recompute.compute", "2", 0), 3 * 2 * 40, 1e-3);   /* the whole step */
    CHECK_NEAR(pt_cube_at(ds, "time", "us", "tp_comm.communication", "2", 0), 3 * 30, 1e-3);
    /* the process groups of pg_config */
    CHECK_STR(ds->trace->groups_from, "distributedInfo.pg_config");
    CHECK_INT(ds->trace->ngroups, 16);
    CHECK_INT(lanes_pp_groups(ds->trace), 4);
    int n;
    const int32_t *g = lanes_pp_group(ds->trace, 1, &n);
    CHECK(g && n == 2 && g[0] == 2 && g[1] == 3);
    CHECK_INT(ds->nwarnings, 0);
    dataset_free(ds);
    /* without pg_config nor group args: the same phases, by the passes and names */
    ds = gen_load("mb_names", "--ranks 4 --pp 2 --tp 2 --ep 1 --recompute --steps 2 --micro 2 --pg-args none", p, sizeof p);
    if (!ds) return;
    const struct trace_stats *s = micro_of(ds, 1, 2, 1);
    CHECK(s != NULL);
    if (s) {
        CHECK_NEAR(s->phase_ns[TRACE_PH_TP_COMM][TRACE_COMM] / 1000.0, 30, 1e-9);
        CHECK_INT(s->phase_count[TRACE_PH_EP_COMM][TRACE_COMM], 0);
    }
    CHECK_INT(ds->trace->ngroups, 0);
    CHECK(ds->trace->groups_from == NULL);
    dataset_free(ds);
}

/* Megatron's group listing (Megatron-TraceViz's patch) beside the traces,
 * 1 024 ranks: its groups, and the lanes' pipeline groups; with every
 * rank's pg_config too, each group once. */
static void gen_listing_1024(void) {
    if (!getenv("PT_PYTHON")) SKIP("no python");
    char p[1100];
    struct dataset *ds = gen_load("l1024", "--ranks 1024 --pp 8 --tp 2 --steps 1 --micro 1 --pg-args none --listing",
                                  p, sizeof p);
    if (!ds) return;
    CHECK_INT(ds->trace->nranks, 1024);
    CHECK(ds->trace->groups_from && strstr(ds->trace->groups_from, "unique_parallel_groups_20260101_000000.txt"));
    int ntp = 0, npp = 0, ndp = 0;
    for (int i = 0; i < ds->trace->ngroups; i++) {
        const struct trace_group *g = &ds->trace->groups[i];
        ntp += g->dim == TPAT_DIM_TP && g->nranks == 2;
        npp += g->dim == TPAT_DIM_PP && g->nranks == 8;
        ndp += g->dim == TPAT_DIM_DP && g->nranks == 64;
    }
    CHECK_INT(ntp, 512);
    CHECK_INT(npp, 128);
    CHECK_INT(ndp, 16);
    CHECK_INT(ds->trace->ngroups, 512 + 128 + 16);
    int n;
    const int32_t *g = lanes_pp_group(ds->trace, 127, &n);
    CHECK(g && n == 8 && g[0] == 1016 && g[7] == 1023);
    dataset_free(ds);
    ds = gen_load("l1024pg", "--ranks 1024 --pp 8 --tp 2 --steps 1 --micro 1 --pg-config --listing", p, sizeof p);
    if (!ds) return;
    CHECK(ds->trace->groups_from && !strncmp(ds->trace->groups_from, "distributedInfo.pg_config + ", 28));
    CHECK_INT(ds->trace->ngroups, 512 + 128 + 16);
    g = lanes_pp_group(ds->trace, 3, &n);
    CHECK(g && n == 8 && g[0] == 24 && g[7] == 31);
    /* rank 1000's TP all-reduce, by its group */
    const struct trace_stats *s = micro_of(ds, 1000, 1, 0);
    CHECK(s && s->phase_count[TRACE_PH_TP_COMM][TRACE_COMM] == 2);
    dataset_free(ds);
}

/* Hand-written traces: the kernel's group, where one is known, decides
 * its class over its name and its pass. */
static const char *one_kernel_trace(const char *dist, const char *pgargs) {
    static char buf[4096];
    snprintf(buf, sizeof buf,
             "{\"distributedInfo\": %s, \"traceEvents\": [\n"
             "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#3\", \"pid\": 1, \"tid\": 1, \"ts\": 100, \"dur\": 1000},\n"
             "{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"schedules.py(300): forward_step\", \"pid\": 1, \"tid\": 1, \"ts\": 110, \"dur\": 100},\n"
             "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": 120, \"dur\": 2, \"args\": {\"correlation\": 7}},\n"
             "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclDevKernel_SendRecv(ncclDevComm*)\", \"pid\": 0, \"tid\": 22, \"ts\": 130, \"dur\": 50, "
             "\"args\": {\"stream\": 22, \"correlation\": 7%s}}]}",
             dist, pgargs);
    return buf;
}

static int phase_of_one(const char *dist, const char *pgargs, const char *listing, struct dataset **out) {
    const char *dir = pt_tmpdir("one");
    char f[1300];
    if (!dir) return -1;
    snprintf(f, sizeof f, "%s/rank_0.json", dir);
    if (pt_write(f, one_kernel_trace(dist, pgargs))) return -1;
    snprintf(f, sizeof f, "%s/unique_parallel_groups_1.txt", dir);
    remove(f);
    if (listing && pt_write(f, listing)) return -1;
    struct pt_error err;
    struct dataset *ds = load(dir, &err);
    if (!ds) { fprintf(stderr, "%s\n", err.msg); return -1; }
    const struct trace_rank *r = rank_of(ds, 0);
    int ph = r && r->nsegs == 1 ? r->segs[0].phase : -1;
    if (out) *out = ds;
    else dataset_free(ds);
    return ph;
}

static void group_decides(void) {
    const char *tpcfg = "{\"rank\": 0, \"pg_config\": [{\"pg_name\": \"0\", \"pg_desc\": \"default_pg\", \"ranks\": [0, 1, 2, 3]}, "
                        "{\"pg_name\": \"5\", \"pg_desc\": \"TENSOR_MODEL_PARALLEL_GROUP\", \"pg_size\": 2, \"ranks\": [0, 1]}]}";
    /* the name says all-to-all (EP) but the group is tensor-parallel */
    CHECK_INT(phase_of_one(tpcfg, ", \"Process Group Name\": \"5\"", NULL, NULL), TRACE_PH_TP_COMM);
    CHECK_INT(phase_of_one("{\"rank\": 0}", ", \"Process Group Name\": \"5\", \"Process Group Description\": "
                                          "\"PIPELINE_MODEL_PARALLEL_GROUP\"", NULL, NULL), TRACE_PH_PP_COMM);
    /* no group known: inside forward_step, by its name */
    CHECK_INT(phase_of_one("{\"rank\": 0}", "", NULL, NULL), TRACE_PH_EP_COMM);
    CHECK_INT(phase_of_one("{\"rank\": 0}", ", \"Process Group Name\": \"5\"", NULL, NULL), TRACE_PH_EP_COMM);
    /* a group without a description (older Megatron: "undefined") takes the
     * dimension of the listed group with its ranks; the ranks as a string */
    const char *undef = "{\"rank\": 0, \"pg_config\": {\"9\": {\"pg_desc\": \"undefined\", \"ranks\": \"[0, 2]\"}}}";
    const char *listing = "PIPELINE PARALLEL (PP) GROUPS\n--------\nGroup 1: [0, 2]\nGroup 2: [1, 3]\nTotal groups: 2\n\n"
                          "DATA PARALLEL (DP) GROUPS\n--------\nGroup 1: [0, 1]\nGroup 2: [2, 3]\n";
    struct dataset *ds = NULL;
    CHECK_INT(phase_of_one(undef, ", \"Process Group Name\": \"9\"", listing, &ds), TRACE_PH_PP_COMM);
    if (ds) {
        CHECK_INT(ds->trace->ngroups, 4);
        CHECK_INT(lanes_pp_groups(ds->trace), 2);
        CHECK(strstr(ds->trace->groups_from, "unique_parallel_groups_1.txt") != NULL);
        CHECK(ds->trace->has_micro);
        dataset_free(ds);
    }
    CHECK_INT(phase_of_one(undef, ", \"Process Group Name\": \"9\"", NULL, NULL), TRACE_PH_EP_COMM);
    /* no pg_config: the kernel's own "Process Group Ranks" find the listed group */
    CHECK_INT(phase_of_one("{\"rank\": 0}", ", \"Process Group Name\": \"9\", \"Process Group Description\": \"undefined\", "
                                          "\"Process Group Ranks\": \"[2, 0]\"", listing, NULL), TRACE_PH_PP_COMM);
    CHECK_INT(phase_of_one("{\"rank\": 0}", ", \"Process Group Name\": \"9\", \"Process Group Ranks\": \"[0, 1]\"", listing, NULL),
              TRACE_PH_DP_COMM);
    CHECK_INT(phase_of_one("{\"rank\": 0}", ", \"Process Group Name\": \"9\", \"Process Group Ranks\": \"[0, 2, x]\"", listing, NULL),
              TRACE_PH_EP_COMM);
    /* a listing whose group line does not read: left out, with its file and line */
    ds = NULL;
    CHECK_INT(phase_of_one(undef, ", \"Process Group Name\": \"9\"", "PIPELINE PARALLEL (PP) GROUPS\n----\nGroup 1: [0, 2]\nGroup 2: [1, x]\n", &ds),
              TRACE_PH_EP_COMM);
    if (ds) {
        int warned = 0;
        for (size_t w = 0; w < ds->nwarnings; w++)
            warned |= strstr(ds->warnings[w], "unique_parallel_groups_1.txt:4: a group line whose ranks are not") != NULL;
        CHECK(warned);
        CHECK_INT(ds->trace->ngroups, 0);
        dataset_free(ds);
    }
}

/* pg_config that is not what PyTorch writes: a warning naming the file and
 * the byte, the figures as without it. */
static void hostile_pg_config(void) {
    static const char *const bad[] = {
        "{\"rank\": 0, \"pg_config\": [{\"pg_name\": \"5\", \"pg_desc\": \"TENSOR_MODEL_PARALLEL_GROUP\", \"ranks\": \"[0, x]\"}]}",
        "{\"rank\": 0, \"pg_config\": [{\"pg_name\": {\"a\": [1, 2]}, \"ranks\": {\"b\": 1}}]}",
        "{\"rank\": 0, \"pg_config\": 17}",
        "{\"rank\": 0, \"pg_config\": [[1, 2], \"x\", {\"pg_desc\": \"TENSOR_MODEL_PARALLEL_GROUP\", \"ranks\": [0, -1, 1e99]}]}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        struct dataset *ds = NULL;
        CHECK_INT(phase_of_one(bad[i], ", \"Process Group Name\": \"5\"", NULL, &ds), TRACE_PH_EP_COMM);
        if (!ds) continue;
        int warned = 0;
        for (size_t w = 0; w < ds->nwarnings; w++)
            warned |= strstr(ds->warnings[w], "rank_0.json: byte ") && strstr(ds->warnings[w], "distributedInfo.pg_config");
        CHECK(warned);
        CHECK_INT(ds->trace->ngroups, 0);
        CHECK_INT(rank_of(ds, 0)->total.cat_ns[TRACE_COMM], 50000);
        dataset_free(ds);
    }
}

/* The defaults are HTA's rules (trace_classify) and Megatron's names
 * (trace_phase_of) on every kernel name of HTA's fixture. */
static void default_patterns(void) {
    struct pt_error err;
    struct tpatterns *p = tpatterns_new(&err);
    struct tpat_md *md = tpatterns_md_new();
    CHECK(p && md);
    if (!p || !md) return;
    static const char *const anno[] = {"forward_step", "schedules.py(210): backward_step", "send_forward_recv_backward",
                                       "finish_grad_sync", "start_param_sync", "finalize_model_grads",
                                       "random.py(262): recompute_forward", "custom_forward", "Optimizer.step#AdamW.step",
                                       "aten::add", "forward", ""};
    for (size_t i = 0; i < sizeof anno / sizeof *anno; i++)
        CHECK_INT(tpatterns_anno_phase(p, md, anno[i], strlen(anno[i])), trace_phase_of(anno[i], strlen(anno[i])));
    CHECK_INT(tpatterns_anno_phase(p, md, "recompute_forward", 17), TRACE_PH_RECOMPUTE);
    CHECK_INT(tpatterns_anno_phase(p, md, "start_param_sync", 16), TRACE_PH_DP_PARAM);
    const char *fx = pt_shared_file("traces", "hta/sampled_2rank");
    if (fx) {
        struct dataset *ds = load(fx, &err);
        CHECK(ds != NULL);
        for (size_t i = 0; ds && i < ds->trace->nnames; i++) {
            const char *n = ds->trace->names[i];
            CHECK_INT(tpatterns_kernel_cat(p, md, n, strlen(n)), trace_classify(n, strlen(n)));
        }
        dataset_free(ds);
    }
    static const char *const kern[] = {"ncclKernel_AllReduce", "hcom_allReduce_1", "void foo<ncclKernel>", "Memcpy HtoD",
                                       "Stream Sync", "cudaLaunchKernel", "ampere_sgemm", "dma_x", "runFunction"};
    for (size_t i = 0; i < sizeof kern / sizeof *kern; i++)
        CHECK_INT(tpatterns_kernel_cat(p, md, kern[i], strlen(kern[i])), trace_classify(kern[i], strlen(kern[i])));
    CHECK_INT(tpatterns_group_dim(p, md, "EXPERT_MODEL_PARALLEL_GROUP", 27), TPAT_DIM_EP);
    CHECK_INT(tpatterns_group_dim(p, md, "EXPERT_TENSOR_PARALLEL_GROUP", 28), TPAT_DIM_TP);
    CHECK_INT(tpatterns_group_dim(p, md, "EMBEDDING_GROUP", 15), TPAT_DIM_DP);
    CHECK_INT(tpatterns_group_dim(p, md, "default_pg", 10), TPAT_DIM_NONE);
    tpatterns_md_free(md);
    tpatterns_free(p);
}

static void patterns_file(void) {
    struct pt_error err;
    struct tpatterns *p = tpatterns_new(&err);
    struct tpat_md *md = tpatterns_md_new();
    CHECK(p && md);
    if (!p || !md) return;
    const char *text = "# my framework\n\nforward = ^my_fwd$\nforward = fwd_chunk\ncommunication = ^xccl\n";
    CHECK_INT(tpatterns_parse(p, text, strlen(text), "my.pat", &err), 0);
    CHECK_INT(tpatterns_anno_phase(p, md, "my_fwd", 6), TRACE_PH_FORWARD);
    CHECK_INT(tpatterns_anno_phase(p, md, "a fwd_chunk", 11), TRACE_PH_FORWARD);
    CHECK_INT(tpatterns_anno_phase(p, md, "forward_step", 12), TRACE_PH_NONE);   /* replaced, not added to */
    CHECK_INT(tpatterns_anno_phase(p, md, "backward_step", 13), TRACE_PH_BACKWARD);   /* kept */
    CHECK_INT(tpatterns_kernel_cat(p, md, "xccl_allreduce", 14), TRACE_COMM);
    CHECK_INT(tpatterns_kernel_cat(p, md, "ncclKernel_x", 12), TRACE_MEMORY);   /* "other": no longer communication */
    CHECK_STR(tpatterns_regex(p, TPAT_FORWARD), "(?:^my_fwd$)|(?:fwd_chunk)");
    /* bad files: the file and the line */
    static const struct { const char *text, *msg; } bad[] = {
        {"# x\nforward = (unclosed\n", "bad.pat:2: forward: the regex does not compile at offset 9: missing closing parenthesis"},
        {"\n\nbackwards = x\n", "bad.pat:3: unknown key \"backwards\""},
        {"forward x\n", "bad.pat:1: expected KEY = REGEX"},
        {"group_tp =   \n", "bad.pat:1: group_tp: an empty regex"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        CHECK_INT(tpatterns_parse(p, bad[i].text, strlen(bad[i].text), "bad.pat", &err), -1);
        CHECK_CONTAINS(err.msg, bad[i].msg);
    }
    tpatterns_md_free(md);
    tpatterns_free(p);
}

/* The command's stdout (and the exit status), or NULL. */
static char *run_trace(const char *args, int *status) {
    const char *bin = getenv("PT_BIN");
    if (!bin) return NULL;
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' trace %s 2>&1", bin, args);
    FILE *f = popen(cmd, "r");
    if (!f) return NULL;
    size_t cap = 1 << 20, n = 0, got;
    char *buf = malloc(cap);
    while (buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n + 1 == cap) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb) { free(buf); buf = NULL; }
            else buf = nb;
        }
    }
    int st = pclose(f);
    if (status) *status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    if (buf) buf[n] = '\0';
    return buf;
}

static void cli_phases(void) {
    if (!getenv("PT_PYTHON") || !getenv("PT_BIN")) SKIP("no python or PT_BIN");
    const char *dir = pt_tmpdir("cli");
    char args[4096], kpath[1300];
    if (!dir || gen(dir, "--ranks 4 --pp 2 --tp 2 --recompute --pg-config --steps 2 --micro 2")) { CHECK(!"gen"); return; }
    int st;
    snprintf(args, sizeof args, "'%s' --format json", dir);
    char *out = run_trace(args, &st);
    CHECK(out != NULL);
    if (out) {
        cJSON *j = cJSON_Parse(out), *ph = cJSON_GetObjectItem(j, "phases"), *x;
        CHECK(cJSON_IsArray(ph));
        int found = 0;
        cJSON_ArrayForEach(x, ph) {
            cJSON *m = cJSON_GetObjectItem(x, "micro");
            if (cJSON_GetObjectItem(x, "step")->valueint == 2 && cJSON_IsNumber(m) && m->valueint == 1 &&
                cJSON_GetObjectItem(x, "rank")->valueint == 3 && !strcmp(cJSON_GetObjectItem(x, "phase")->valuestring, "all")) {
                found = 1;
                CHECK_NEAR(cJSON_GetObjectItem(x, "compute_us")->valuedouble, 480, 1e-9);
                CHECK_NEAR(cJSON_GetObjectItem(x, "communication_us")->valuedouble, 30, 1e-9);
                CHECK_NEAR(cJSON_GetObjectItem(x, "overlap_us")->valuedouble, 30, 1e-9);
                CHECK_INT(cJSON_GetObjectItem(x, "kernels")->valueint, 14);
            }
        }
        CHECK(found);
        CHECK_INT(cJSON_GetArraySize(cJSON_GetObjectItem(j, "groups")), 2 + 2 + 4);   /* TP, PP, DP (of one rank each) */
        CHECK_STR(cJSON_GetObjectItem(j, "groups_from")->valuestring, "distributedInfo.pg_config");
        cJSON_Delete(j);
        free(out);
    }
    snprintf(args, sizeof args, "'%s' --format csv --phases", dir);
    out = run_trace(args, &st);
    CHECK(out != NULL);
    if (out) {
        CHECK_CONTAINS(out, "step,micro,rank,phase,compute_us,communication_us,memory_us,overlap_us,span_us,kernels\n");
        CHECK_CONTAINS(out, "\n2,1,3,recompute,80.000,0.000,0.000,0.000,80.000,2\n");
        CHECK_CONTAINS(out, "\n2,1,3,tp_comm,0.000,30.000,0.000,0.000,");
        CHECK_CONTAINS(out, "\n2,,3,dp_grad,0.000,");
        free(out);
    }
    /* --kernels: every kernel once, the temporary file gone */
    snprintf(kpath, sizeof kpath, "%s/k.csv", dir);
    snprintf(args, sizeof args, "'%s' --kernels '%s'", dir, kpath);
    out = run_trace(args, &st);
    CHECK_INT(st, 0);
    free(out);
    FILE *f = fopen(kpath, "r");
    CHECK(f != NULL);
    if (f) {
        char line[1024];
        size_t rows = 0, rec = 0, tp = 0;
        CHECK(fgets(line, sizeof line, f) != NULL);
        CHECK_STR(line, "rank,step,micro,stream,start_us,dur_us,category,phase,name\n");
        while (fgets(line, sizeof line, f)) {
            rows++;
            rec += strstr(line, ",compute,recompute,") != NULL;
            tp += strstr(line, ",22,") && strstr(line, ",communication,tp_comm,\"ncclDevKernel_AllReduce") != NULL;
        }
        fclose(f);
        /* per rank and step: 2 micro-batches x 14, 4 sends, the all-reduce, the optimizer's 2 */
        CHECK_INT(rows, 4 * 2 * (2 * 14 + 4 + 1 + 2));
        CHECK_INT(rec, 4 * 2 * 2 * 2);
        CHECK_INT(tp, 4 * 2 * 2 * 2);
    }
    snprintf(args, sizeof args, "ls -a '%s' | grep -c '^\\.k\\.csv\\.' >/dev/null", dir);
    CHECK(system(args) != 0);
    /* a folder that does not exist: refused, nothing written */
    snprintf(args, sizeof args, "'%s' --kernels '%s/none/k.csv'", dir, dir);
    out = run_trace(args, &st);
    CHECK_INT(st, 2);
    if (out) CHECK_CONTAINS(out, "none/k.csv: cannot write");
    free(out);
    /* a patterns file with a bad regex: the file and the line */
    char pat[1300];
    snprintf(pat, sizeof pat, "%s/bad.pat", dir);
    CHECK_INT(pt_write(pat, "# ok\nforward = fwd\nrecompute = [oops\n"), 0);
    snprintf(args, sizeof args, "'%s' --patterns '%s'", dir, pat);
    out = run_trace(args, &st);
    CHECK_INT(st, 2);
    if (out) CHECK_CONTAINS(out, "bad.pat:3: recompute: the regex does not compile");
    free(out);
    /* a good one: forward_step no longer a forward pass, so no micro-batch of forwards */
    CHECK_INT(pt_write(pat, "forward = ^never$\n"), 0);
    snprintf(args, sizeof args, "'%s' --patterns '%s' --format csv --phases", dir, pat);
    out = run_trace(args, &st);
    CHECK_INT(st, 0);
    if (out) {
        CHECK(strstr(out, ",forward,") == NULL);
        CHECK_CONTAINS(out, "\n2,1,3,backward,160.000,");
    }
    free(out);
}

/* --kernels beyond --mem: the kernels sorted through a temporary file and
 * merged for the lane view are all in the table, each once. */
static void cli_kernels_spill(void) {
    if (!getenv("PT_PYTHON") || !getenv("PT_BIN")) SKIP("no python or PT_BIN");
    const char *dir = pt_tmpdir("spill");
    char args[4096], k[1300];
    if (!dir || gen(dir, "--ranks 1 --steps 4 --bomb 100000 --gz")) { CHECK(!"gen"); return; }
    snprintf(k, sizeof k, "%s/k.csv", dir);
    int st;
    snprintf(args, sizeof args, "'%s' --mem 4M --kernels '%s'", dir, k);
    char *out = run_trace(args, &st);
    CHECK_INT(st, 0);
    if (out) CHECK_CONTAINS(out, "went through a temporary file");
    free(out);
    FILE *f = fopen(k, "r");
    CHECK(f != NULL);
    if (!f) return;
    char line[512];
    size_t rows = 0, comm = 0;
    while (fgets(line, sizeof line, f)) rows++, comm += strstr(line, ",communication,none,ncclKernel_AllReduce") != NULL;
    fclose(f);
    CHECK_INT(rows, 1 + 100000);
    CHECK_INT(comm, 100000 / 4);   /* every fourth kernel of gen_trace.py --bomb */
}

int main(void) {
    RUN(gen_micro_batches);
    RUN(gen_listing_1024);
    RUN(group_decides);
    RUN(hostile_pg_config);
    RUN(default_patterns);
    RUN(patterns_file);
    RUN(cli_phases);
    RUN(cli_kernels_spill);
    PT_DONE();
}
