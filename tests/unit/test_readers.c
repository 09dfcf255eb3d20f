/* Readers on the real msProbe fixtures: dump (all layouts we can build from
 * them), construct.json and stack.json forms, monitor CSV, .trend.db. */
#include "pt_cube.h"
#include "pt_test.h"

#include "src/io/load.h"
#include "src/io/dump/microstep.h"
#include "src/io/dump/read_construct.h"
#include "src/io/dump/read_dump.h"

static struct dataset *load(const char *path, int micro, const char *f) {
    struct load_opts lo;
    struct dataset *ds = NULL;
    struct pt_error err;
    load_opts_init(&lo);
    lo.micro_step = micro;
    lo.format = f ? formats_find(f) : NULL;
    if (load_dataset(path, &lo, &ds, &err) != 0) fprintf(stderr, "load %s: %s\n", path, err.msg);
    return ds;
}

static void gpu_dump_micro(void) {
    const char *p = pt_fixture("examples/quick_start/gpu_dump");
    if (!p) SKIP("fixtures absent");
    struct dataset *ds = load(p, 1, NULL);
    CHECK(ds != NULL);
    if (!ds) return;
    const struct cube *c = ds->cube;
    CHECK_STR(formats_name(ds->format), "dump");
    CHECK_INT(c->nsteps, 21);                    /* 11 + 10 micro steps */
    CHECK_INT(c->steps[20].value, 20);
    CHECK_INT(c->steps[11].origin, 1);           /* step 1 starts at global micro step 11 */
    CHECK_INT(c->steps[11].micro, 0);
    CHECK_INT(c->nranks, 1);
    CHECK_INT(c->ranks[0], 0);                   /* proc2016 renumbered to rank 0 */
    CHECK_INT(names_count(c->names), 656);
    CHECK_INT(c->metrics[cube_metric_find(c, "forward")].ntargets, 597);
    CHECK_INT(c->metrics[cube_metric_find(c, "backward")].ntargets, 344);
    CHECK_INT(cube_count_present(c, cube_metric_find(c, "forward")), 7960);
    CHECK_INT(cube_count_present(c, cube_metric_find(c, "backward")), 5144);
    CHECK_INT(c->metrics[cube_metric_find(c, "parameters_grad")].ntargets, 0);
    CHECK_NEAR(pt_cube_value(ds, "forward", "norm", "Functional.conv2d.input.0", 0, 0, 0), 1267.74462890625, 0);
    CHECK_NEAR(pt_cube_value(ds, "forward", "max", "Functional.conv2d.input.0", 0, 0, 0), 1.0, 0);
    CHECK_INT(ds->files_read, 2);
    CHECK_STR(ds->framework, "pytorch");
    CHECK_STR(ds->level, "mix");
    CHECK_INT(ds->nrankdirs, 2);
    CHECK(ds->rankdirs[0].has_construct && ds->rankdirs[0].has_stack);
    CHECK_INT(ds->ovf.n, 0);                     /* a clean run */
    /* labels are there for the search pane */
    CHECK(names_label_find(c->names, "Functional.conv2d", LABEL_FUNCTION) != NAMES_NONE);
    dataset_free(ds);
}

static void gpu_dump_layouts(void) {
    const char *p = pt_fixture("examples/quick_start/gpu_dump");
    if (!p) SKIP("fixtures absent");
    char q[4096];
    /* no micro steps: step numbers, parameter gradients imported */
    struct dataset *ds = load(p, 0, "dump");
    CHECK(ds && ds->cube->nsteps == 2 && ds->cube->steps[1].value == 1);
    if (ds) CHECK_INT(names_count(ds->cube->names), 1319);
    if (ds) CHECK(ds->cube->metrics[cube_metric_find(ds->cube, "parameters_grad")].ntargets > 0);
    dataset_free(ds);
    /* a single step folder */
    snprintf(q, sizeof q, "%s/step1", p);
    ds = load(q, 0, NULL);
    CHECK(ds && ds->cube->nsteps == 1 && ds->cube->steps[0].value == 1);
    dataset_free(ds);
    /* a single rank folder: step from the parent's name */
    snprintf(q, sizeof q, "%s/step1/proc2016", p);
    ds = load(q, 0, NULL);
    CHECK(ds && ds->cube->nsteps == 1 && ds->cube->steps[0].value == 1);
    dataset_free(ds);
    /* a lone dump.json */
    snprintf(q, sizeof q, "%s/step0/proc2016/dump.json", p);
    ds = load(q, 0, NULL);
    CHECK(ds != NULL);
    if (ds) CHECK_INT(ds->files_read, 1);
    dataset_free(ds);
}

static void minimal_layout(void) {
    const char *p = pt_fixture("test/msprobe_test/visualization_ut/input_format_correct");
    if (!p) SKIP("fixtures absent");
    struct dataset *ds = load(p, 1, NULL);
    CHECK(ds != NULL);
    if (!ds) return;
    CHECK_INT(ds->cube->nranks, 2);
    CHECK_INT(ds->cube->nsteps, 3);
    CHECK_INT(names_count(ds->cube->names), 0);  /* "api" is neither forward nor backward */
    CHECK_INT(ds->files_read, 4);
    dataset_free(ds);
}

static void construct_forms(void) {
    struct construct c;
    struct pt_error err;
    const char *plain = pt_fixture("examples/quick_start/gpu_dump/step0/proc2016/construct.json");
    const char *old = pt_fixture("test/resources/layer_mapping/pytorch/construct.json");
    if (!plain || !old) SKIP("fixtures absent");
    CHECK_INT(construct_read(plain, &c, &err), 0);
    CHECK_STR(c.v[0].name, "Tensor.to.0.forward");
    CHECK_INT(c.v[0].parent_kind, CONSTRUCT_NULL);
    CHECK_STR(c.v[2].parent, "Module.conv1.Conv2d.forward.0");
    construct_free(&c);
    CHECK_INT(construct_read(old, &c, &err), 0);
    int empty = 0;
    for (size_t i = 0; i < c.n; i++) empty += c.v[i].parent_kind == CONSTRUCT_EMPTY;
    CHECK(empty > 0);
    construct_free(&c);
    const char *dir = pt_tmpdir("construct");
    char path[4096];
    snprintf(path, sizeof path, "%s/construct.json", dir);
    pt_write(path, "{\"megatron_micro_step_number\": 2, \"Module.m.GPTModel.forward.0\": [null, 0],"
                   " \"Module.m.GPTModel.forward.1\": [null, 1], \"Functional.linear.0.forward\": [\"Module.m.GPTModel.forward.1\", 1]}");
    CHECK_INT(construct_read(path, &c, &err), 0);
    CHECK_INT(c.megatron, 1);
    CHECK_INT(c.megatron_micro_steps, 2);
    CHECK_INT(c.n, 3);
    CHECK_INT(c.v[2].micro, 1);
    CHECK_STR(c.v[2].parent, "Module.m.GPTModel.forward.1");
    construct_free(&c);
    pt_write(path, "{\"megatron_micro_step_number\": 1, \"Module.a.forward.0\": [null, 0, 7]}");
    CHECK_INT(construct_read(path, &c, &err), -1);
    CHECK_CONTAINS(err.msg, "Module.a.forward.0");
}

/* Names and parents taken raw where they have no escapes, decoded where
 * they have: the same strings, lengths, cuts at 4095 bytes and megatron
 * key either way (a decoded key ends at its first NUL, as strcmp saw it). */
static void construct_strings(void) {
    struct construct c;
    struct pt_error err;
    const char *dir = pt_tmpdir("construct_strings");
    char path[4096];
    snprintf(path, sizeof path, "%s/construct.json", dir);
    char *big = malloc(6000 + 256);
    if (!big) { CHECK(0); return; }
    memset(big, 'x', 6000);
    big[6000] = '\0';
    pt_write(path, "{\"megatron_micro_step_numbe\\u0072\": 3, \"A.a\\\"q.forward.0\": \"B.b.forward.0\","
                   " \"C.c.forward.0\": \"A.a\\\"q.forward.0\", \"megatron_micro_step_numberx\": null,"
                   " \"D\\u0000d\": [\"\\u0041\", 1]}");
    CHECK_INT(construct_read(path, &c, &err), 0);
    CHECK_INT(c.megatron, 1);
    CHECK_INT(c.megatron_micro_steps, 3);
    CHECK_INT(c.n, 4);
    CHECK_STR(c.v[0].name, "A.a\"q.forward.0");
    CHECK_STR(c.v[0].parent, "B.b.forward.0");
    CHECK_STR(c.v[1].parent, "A.a\"q.forward.0");
    CHECK_STR(c.v[2].name, "megatron_micro_step_numberx");
    CHECK_INT(c.v[2].parent_kind, CONSTRUCT_NULL);
    CHECK_STR(c.v[3].name, "D");
    CHECK_STR(c.v[3].parent, "A");
    CHECK_INT(c.v[3].micro, 1);
    construct_free(&c);
    pt_write(path, "{\"megatron_micro_step_number\\u0000z\": 5}");
    CHECK_INT(construct_read(path, &c, &err), 0);
    CHECK_INT(c.megatron, 1);
    CHECK_INT(c.n, 0);
    construct_free(&c);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fprintf(f, "{\"%s\": \"%s\", \"e\\u0065%s\": null}", big, big, big);
        fclose(f);
        CHECK_INT(construct_read(path, &c, &err), 0);
        CHECK_INT(c.n, 2);
        if (c.n == 2) {
            CHECK_INT(strlen(c.v[0].name), 4095);
            CHECK_INT(strlen(c.v[0].parent), 4095);
            CHECK_INT(strlen(c.v[1].name), 4095);
            CHECK(!strncmp(c.v[1].name, "eexx", 4));
        }
        construct_free(&c);
    }
    free(big);
}

/* The micro step table of a construct with repeated keys (a dict: the
 * first place, the last value), backward nodes resolved through their
 * forward names, parameters_grad and nodes that resolve to nothing. */
static void microstep_dups(void) {
    struct construct c;
    struct microstep ms;
    struct pt_error err;
    const char *dir = pt_tmpdir("microstep_dups");
    char path[4096];
    snprintf(path, sizeof path, "%s/construct.json", dir);
    pt_write(path, "{\"Module.m.forward.0\": null, \"Functional.linear.0.forward\": \"Module.m.forward.0\","
                   " \"Functional.linear.1.forward\": \"Module.m.forward.0\", \"Module.m.forward.1\": null,"
                   " \"Functional.linear.2.forward\": \"Module.m.forward.1\","
                   " \"Functional.linear.2.backward\": \"Module.m.backward.1\","
                   " \"Functional.linear.0.forward\": \"Module.m.forward.1\","
                   " \"Module.m.weight.parameters_grad\": \"Module.m.parameters_grad.0\","
                   " \"Tensor.x.backward\": null, \"Functional.y.0.forward\": \"Nowhere.0\","
                   " \"Module.m.forward.0\": null}");
    CHECK_INT(construct_read(path, &c, &err), 0);
    CHECK_INT(microstep_build(&c, &ms, &err), 0);
    static const struct { const char *key, *newkey; int micro; } want[] = {
        {"Module.m.forward.0", "Module.m.forward.0", 2},
        {"Functional.linear.0.forward", "Functional.linear.0.forward", 1},
        {"Functional.linear.1.forward", "Functional.linear.0.forward", 2},
        {"Module.m.forward.1", "Module.m.forward.0", 1},
        {"Functional.linear.2.forward", "Functional.linear.1.forward", 1},
        {"Functional.linear.2.backward", "Functional.linear.0.backward", 1},
    };
    CHECK_INT(ms.n, 6);
    CHECK_INT(ms.count, 3);
    for (size_t i = 0; i < ms.n && i < 6; i++) {
        CHECK_STR(ms.v[i].key, want[i].key);
        CHECK_STR(ms.v[i].newkey, want[i].newkey);
        CHECK_INT(ms.v[i].micro, want[i].micro);
        CHECK_INT(ms.v[i].later_dup, 0);
        CHECK(microstep_find(&ms, want[i].key, strlen(want[i].key)) == &ms.v[i]);
    }
    CHECK(microstep_find(&ms, "Functional.y.0.forward", 22) == NULL);
    microstep_free(&ms);
    construct_free(&c);
    /* names near the 4 KB cut, with the words to rewrite before and at it */
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    char pad[4200];
    memset(pad, 'p', sizeof pad);
    fprintf(f, "{\"Module.%.4060s.forward.0\": null, \"Module.%.4060s.backward.0\": null,", pad, pad);
    fprintf(f, " \"F.%.4070s.0.forward\": \"Module.%.4060s.forward.0\",", pad, pad);
    fprintf(f, " \"F.%.4080s.0.forward\": \"Module.%.4060s.forward.0\",", pad, pad);
    fprintf(f, " \"F.%.4070s.0.backward\": \"Module.%.4060s.backward.0\",", pad, pad);
    fprintf(f, " \"F.%.4080s.0.backward\": \"Module.%.4060s.backward.0\",", pad, pad);
    fprintf(f, " \"F.%.4060s.forward.parameters_grad.1.forward\": \"Module.%.4060s.forward.0\",", pad, pad);
    fprintf(f, " \"F.%.4060s.backward.parameters_grad.1.backward\": \"Module.%.4060s.backward.0\",", pad, pad);
    fprintf(f, " \"F.%.4075s.parameters_grad\": \"Module.%.4060s.backward.0\"}", pad, pad);
    fclose(f);
    CHECK_INT(construct_read(path, &c, &err), 0);
    CHECK_INT(microstep_build(&c, &ms, &err), 0);
    static const struct { size_t len; const char *end; } lw[] = {
        {4077, "p.forward.0"}, {4078, "p.backward.0"}, {4082, "p.0.forward"}, {4083, "p.0.backward"}, {4093, "p.0.backward"},
    };
    CHECK_INT(ms.n, 5);
    CHECK_INT(ms.count, 1);
    for (size_t i = 0; i < ms.n && i < 5; i++) {
        size_t l = strlen(ms.v[i].newkey), el = strlen(lw[i].end);
        CHECK_INT(l, lw[i].len);
        CHECK(l >= el && !strcmp(ms.v[i].newkey + l - el, lw[i].end));
        CHECK_INT(ms.v[i].micro, 0);
    }
    microstep_free(&ms);
    construct_free(&c);
    /* near misses of the two words, and the words where sixteen-byte blocks meet */
    pt_write(path, "{\"Module.a.forward.0\": null, \"F.b.0.backwar\": \"Module.a.forward.0\","
                   " \"F.p.0.parameters_gra\": \"Module.a.backwar\", \"F.x.0.forward\": \"Module.a.forward.0\","
                   " \"F.x.0.backwardz\": \"Module.a.forward.0\", \"Module.abcdefg.backward.0\": \"Module.a.forward.0\","
                   " \"Module.abcdefg.forward.0\": \"Module.a.forward.0\", \"Module.abcdefgh.parameters_grad\": \"Module.a.forward.0\","
                   " \"Module.abcdefgh.forward\": \"Module.a.backward.0\"}");
    CHECK_INT(construct_read(path, &c, &err), 0);
    CHECK_INT(microstep_build(&c, &ms, &err), 0);
    static const char *const mk[] = {"Module.a.forward.0", "F.b.0.backwar", "F.x.0.forward", "Module.abcdefg.backward.0",
                                     "Module.abcdefg.forward.0", "Module.abcdefgh.parameters_grad", "Module.abcdefgh.forward"};
    CHECK_INT(ms.n, 7);
    CHECK_INT(ms.count, 1);
    for (size_t i = 0; i < ms.n && i < 7; i++) {
        CHECK_STR(ms.v[i].key, mk[i]);
        CHECK_STR(ms.v[i].newkey, mk[i]);
        CHECK_INT(ms.v[i].micro, 0);
    }
    microstep_free(&ms);
    construct_free(&c);
}

static void stack_forms(void) {
    struct stack s;
    struct pt_error err;
    const char *grouped = pt_fixture("examples/quick_start/gpu_dump/step0/proc2016/stack.json");
    const char *pername = pt_fixture("test/resources/layer_mapping/mindspore/stack.json");
    if (!grouped || !pername) SKIP("fixtures absent");
    CHECK_INT(stack_read(grouped, &s, &err), 0);
    CHECK_INT(s.grouped, 1);
    const struct stack_entry *e = stack_find(&s, "Functional.conv2d.0.forward");
    CHECK(e && e->nframes > 0);
    if (e) CHECK_CONTAINS(e->frames[0], "File ");
    CHECK(stack_find(&s, "Functional.conv2d.0.backward") == e);   /* backward falls back to forward */
    stack_free(&s);
    CHECK_INT(stack_read(pername, &s, &err), 0);
    CHECK_INT(s.grouped, 0);
    CHECK(s.n > 0);
    stack_free(&s);
}

static void monitor(void) {
    const char *p = pt_fixture("derived/synthetic_monitor_output");
    if (!p) SKIP("fixtures absent");
    struct dataset *ds = load(p, 1, NULL);
    CHECK(ds != NULL);
    if (!ds) return;
    const struct cube *c = ds->cube;
    CHECK_STR(formats_name(ds->format), "monitor");
    CHECK_INT(c->nmetrics, 4);
    CHECK_STR(c->metrics[0].name, "actv");
    CHECK_INT(c->metrics[0].nstats, 4);            /* norm, min, max, nans */
    CHECK_STR(c->metrics[0].stats[3], "nans");
    CHECK_INT(c->nranks, 2);
    CHECK_INT(c->nsteps, 4);                       /* 2 steps x 2 micro steps */
    /* raw values: inf stays inf (msProbe's db clamps it to 1e9+1), 2.5e9 stays 2.5e9 */
    int m = cube_metric_find(c, "actv"), st = cube_stat_find(c, m, "max");
    uint32_t t = names_find(c->names, "module.decoder.layers.0.self_attention.linear_proj.input", 56, 0, 0);
    float v = cube_get(c, m, st, cube_local_target(c, m, t), cube_step_find(c, 2), 0);
    CHECK(isinf(v) && v > 0);
    m = cube_metric_find(c, "param_origin");
    t = names_find(c->names, "module.embedding.word_embeddings.weight", 39, 0, 0);
    CHECK_NEAR(cube_get(c, m, 0, cube_local_target(c, m, t), cube_step_find(c, 2), 0), 2.5e9, 1);
    CHECK(cube_count_nonfinite(c, cube_metric_find(c, "actv"), -1, -1) >= 2);
    CHECK(names_label_find(c->names, "layers.0", LABEL_LAYER) != NAMES_NONE);
    dataset_free(ds);
}

static void trenddb(void) {
    const char *p = pt_fixture("derived/gpu_dump.micro_step_true/dump_data.trend.db");
    const char *dir = pt_fixture("derived/synthetic_monitor.micro_step_false");
    if (!p || !dir) SKIP("fixtures absent");
    struct dataset *ds = load(p, 1, NULL);
    CHECK(ds != NULL);
    if (!ds) return;
    CHECK_STR(formats_name(ds->format), "trenddb");
    CHECK_INT(names_count(ds->cube->names), 656);
    CHECK_INT(ds->cube->nsteps, 21);
    CHECK_INT(ds->cube->nmetrics, 4);
    CHECK_INT(cube_count_present(ds->cube, cube_metric_find(ds->cube, "forward")), 7960);
    CHECK_NEAR(pt_cube_value(ds, "forward", "norm", "Functional.conv2d.input.0", 0, 0, 0), 1267.74462890625, 0);
    dataset_free(ds);
    /* a folder of .trend.db files opens the first; the clamp values read back as infinities */
    ds = load(dir, 1, NULL);
    CHECK(ds != NULL);
    if (!ds) return;
    CHECK_INT(ds->ndbfiles, 1);
    CHECK_INT(ds->cube->nranks, 2);
    CHECK(cube_count_nonfinite(ds->cube, cube_metric_find(ds->cube, "actv"), -1, -1) >= 1);
    dataset_free(ds);
}

static void generated_nan(void) {
    const char *sh = pt_shared();
    if (!sh) SKIP("shared absent");
    const char *dir = pt_tmpdir("gen_nan");
    const char *py = getenv("PT_PYTHON");
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "'%s' '%s/tools/gen_dump.py' --out '%s/d' --steps 2 --ranks 2 --layers 2 --hidden 64 "
             "--heads 4 --ffn 128 --seq 16 --vocab 100 --nan 1:1:layers.1.mlp --quiet",
             py && *py ? py : "python3", sh, dir);
    if (system(cmd) != 0) SKIP("gen_dump.py failed to run");
    snprintf(cmd, sizeof cmd, "%s/d", dir);
    struct dataset *ds = load(cmd, 1, NULL);
    CHECK(ds != NULL);
    if (!ds) return;
    const struct cube *c = ds->cube;
    int fwd = cube_metric_find(c, "forward");
    CHECK_INT(c->nranks, 2);
    /* the bare NaN tokens were read as NaN: only step 1 rank 1 has them */
    size_t bad = cube_count_nonfinite(c, fwd, -1, -1);
    CHECK(bad > 0);
    CHECK_INT(cube_count_nonfinite(c, fwd, -1, 0), 0);
    size_t in_step0 = 0;
    for (int s = 0; s < c->nsteps; s++)
        if (c->steps[s].origin == 0) in_step0 += cube_count_nonfinite(c, fwd, s, -1);
    CHECK_INT(in_step0, 0);
    CHECK(ds->ovf.n > 0);
    long first = ovf_first(&ds->ovf);
    CHECK(first >= 0);
    if (first >= 0) {
        CHECK_INT(ds->ovf.v[first].step, 1);
        CHECK_INT(ds->ovf.v[first].rank, 1);
        CHECK_INT(ds->ovf.v[first].level, OVF_CRITICAL);
        CHECK_CONTAINS(ds->ovf.v[first].name, "");
    }
    dataset_free(ds);
}

static void mindspore_names(void) {
    const char *p = pt_fixture("test/resources/layer_mapping/mindspore");
    if (!p) SKIP("fixtures absent");
    struct dataset *ds = load(p, 1, NULL);   /* a lone rank folder; construct.json has "" roots */
    CHECK(ds != NULL);
    if (!ds) return;
    CHECK_STR(ds->framework, "mindspore");
    /* the Int32 input is not a trend tensor, the BFloat16 output is; "" roots
     * give no micro step, so R is empty and every record is kept */
    CHECK_INT(names_count(ds->cube->names), 1);
    const char *t = "Cell.network_with_loss.module.language_model.embedding.word_embeddings.VocabParallelEmbedding.output.0";
    CHECK_NEAR(pt_cube_value(ds, "forward", "norm", t, 0, 0, 0), 2512.0, 0);
    CHECK(names_label_find(ds->cube->names, "Cell", LABEL_DEFAULT) != NAMES_NONE);
    dataset_free(ds);
}

static void levels_and_summary(void) {
    const char *sh = pt_shared();
    const char *py = getenv("PT_PYTHON");
    char cmd[8192], p[4200];
    if (!sh) SKIP("shared absent");
    const char *dir = pt_tmpdir("levels");
    for (int k = 0; k < 2; k++) {
        snprintf(cmd, sizeof cmd, "'%s' '%s/tools/gen_dump.py' --out '%s/%s' --steps 1 --ranks 1 --layers 1 --hidden 32 "
                 "--heads 2 --ffn 64 --seq 8 --vocab 50 --level %s --quiet", py && *py ? py : "python3", sh, dir,
                 k ? "L1" : "L0", k ? "L1" : "L0");
        if (system(cmd) != 0) SKIP("gen_dump.py failed to run");
        snprintf(p, sizeof p, "%s/%s", dir, k ? "L1" : "L0");
        struct dataset *ds = load(p, 1, NULL);
        CHECK(ds != NULL);
        if (!ds) continue;
        CHECK_STR(ds->level, k ? "L1" : "L0");
        const struct cube *c = ds->cube;
        int fwd = cube_metric_find(c, "forward");
        CHECK(c->metrics[fwd].ntargets > 0);
        /* L0: only Module targets; L1: only API targets, all in micro step 0 (construct.json is {}) */
        int modules = 0, apis = 0;
        for (uint32_t i = 0; i < c->metrics[fwd].ntargets; i++) {
            const char *nm = names_str(c->names, c->metrics[fwd].targets[i]);
            if (!strncmp(nm, "Module.", 7)) modules++; else apis++;
        }
        CHECK(k ? (modules == 0 && apis > 0) : (apis == 0 && modules > 0));
        if (k) CHECK_INT(c->nsteps, 1);
        dataset_free(ds);
    }
    /* xor summary mode: no statistics keys, only md5; the rows exist with every value missing */
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/xor/step0/rank0'", dir);
    CHECK_INT(system(cmd), 0);
    snprintf(p, sizeof p, "%s/xor/step0/rank0/dump.json", dir);
    pt_write(p, "{\"task\": \"statistics\", \"level\": \"L1\", \"data\": {\"Functional.relu.0.forward\": {"
                "\"input_args\": [{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float16\", \"shape\": [4], "
                "\"md5\": \"0x00ff00ff00ff00ff\"}], \"output\": [{\"type\": \"torch.Tensor\", \"dtype\": "
                "\"torch.float16\", \"shape\": [4], \"md5\": \"0x1111111111111111\"}]}}}");
    snprintf(p, sizeof p, "%s/xor", dir);
    struct dataset *ds = load(p, 1, NULL);
    CHECK(ds != NULL);
    if (ds) {
        CHECK_INT(names_count(ds->cube->names), 2);
        CHECK_INT(cube_count_present(ds->cube, cube_metric_find(ds->cube, "forward")), 0);
        dataset_free(ds);
    }
}

static void db_choice(void) {
    const char *a = pt_fixture("derived/gpu_dump.micro_step_true/dump_data.trend.db");
    const char *b = pt_fixture("derived/synthetic_monitor.micro_step_true/monitor_data.trend.db");
    if (!a || !b) SKIP("fixtures absent");
    const char *dir = pt_tmpdir("dbchoice");
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s/b.trend.db' && cp '%s' '%s/a.trend.db'", a, dir, b, dir);
    CHECK_INT(system(cmd), 0);
    struct load_opts lo;
    struct dataset *ds;
    struct pt_error err;
    load_opts_init(&lo);
    CHECK_INT(load_dataset(dir, &lo, &ds, &err), 0);   /* the first by name: a = monitor */
    CHECK_INT(ds->ndbfiles, 2);
    CHECK_STR(ds->cube->metrics[0].name, "actv");
    dataset_free(ds);
    lo.db_name = "b.trend.db";
    CHECK_INT(load_dataset(dir, &lo, &ds, &err), 0);
    CHECK_STR(ds->cube->metrics[0].name, "forward");
    dataset_free(ds);
    lo.db_name = "c.trend.db";
    CHECK_INT(load_dataset(dir, &lo, &ds, &err), -1);
    CHECK_CONTAINS(err.msg, "c.trend.db");
}

int main(void) {
    RUN(mindspore_names);
    RUN(levels_and_summary);
    RUN(db_choice);
    RUN(gpu_dump_micro);
    RUN(gpu_dump_layouts);
    RUN(minimal_layout);
    RUN(construct_forms);
    RUN(construct_strings);
    RUN(microstep_dups);
    RUN(stack_forms);
    RUN(monitor);
    RUN(trenddb);
    RUN(generated_nan);
    PT_DONE();
}
