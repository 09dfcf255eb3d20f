/* The text training-log reader (src/io/curves/read_log.c, the `log` row;
 * probetop-formats(5), TRAINING CURVES, Text training logs) on logs the
 * tests write (tests/pt_curves_log.h): the series each logger's lines give
 * with their values, Megatron's left-out loss as a NaN point, the user's
 * patterns from the command line and the patterns file (and which wins),
 * bad regexes named with their offset, detection, a cut last line, follow
 * mode, an empty file, a log of another kind, and hostile bytes; follow
 * mode's reloads reading only the appended lines (test_follow_incremental). */
#include "pt_test.h"
#include "pt_curves_log.h"

#include <math.h>
#include <sys/wait.h>

#include "model/curves/curves.h"
#include "src/io/curves/curves_cache.h"
#include "src/io/load.h"

static char path_buf[1200];
static const char *tmpfile_named(const char *dir, const char *name) {
    snprintf(path_buf, sizeof path_buf, "%s/%s", dir, name);
    return path_buf;
}

/* Loads path (format NULL: detected) with the patterns given. */
static struct dataset *load(const char *path, const char *format, const char *const *pats, int npats, struct pt_error *err) {
    struct load_opts lo;
    struct dataset *ds = NULL;
    load_opts_init(&lo);
    if (format) lo.format = formats_find(format);
    for (int i = 0; i < npats; i++) CHECK_INT(load_opts_add_pattern(&lo, pats[i]), 0);
    err->msg[0] = '\0';
    if (load_dataset(path, &lo, &ds, err) != 0) return NULL;
    return ds;
}

static double at(const struct dataset *ds, const char *series, int64_t step) {
    const struct curves_series *s = ds && ds->curves ? curves_find(ds->curves, series) : NULL;
    double v = -12345.0;   /* absent */
    if (s) curves_value_at(s, step, &v);
    return v;
}

static size_t npoints(const struct dataset *ds, const char *series) {
    const struct curves_series *s = ds && ds->curves ? curves_find(ds->curves, series) : NULL;
    return s ? s->n : 0;
}

static void no_patterns_file(void) { setenv("PROBETOP_PATTERNS", "", 1); }

static void test_megatron(void) {
    no_patterns_file();
    const char *dir = pt_tmpdir("megatron");
    const char *p = tmpfile_named(dir, "train.log");
    CHECK_INT(pt_log_megatron(p, 40), 0);
    CHECK_STR(formats_name(formats_detect(p)), "log");
    struct pt_error err;
    struct dataset *ds = load(p, NULL, NULL, 0, &err);
    CHECK(ds != NULL);
    if (!ds) { fprintf(stderr, "%s\n", err.msg); return; }
    CHECK_STR(formats_name(ds->format), "log");
    CHECK_INT(ds->nwarnings, 0);
    CHECK_INT(ds->curves->first_step, 1);
    CHECK_INT(ds->curves->last_step, 40);
    /* every field a series, named as printed */
    const char *names[] = {"consumed samples", "elapsed time per iteration (ms)", "learning rate", "global batch size",
                           "lm loss", "loss scale", "grad norm", "number of skipped iterations", "number of nan iterations"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) CHECK(curves_find(ds->curves, names[i]) != NULL);
    CHECK_INT(ds->curves->nseries, 9);
    CHECK_INT(curves_find(ds->curves, "lm loss")->role, CURVES_LOSS);
    CHECK_INT(curves_find(ds->curves, "grad norm")->role, CURVES_GRAD_NORM);
    CHECK_INT(curves_find(ds->curves, "loss scale")->role, CURVES_LOSS_SCALE);
    CHECK_INT(curves_find(ds->curves, "number of skipped iterations")->role, CURVES_SKIPPED);
    for (int i = 1; i <= 40; i++) {
        if (i == 10) continue;
        CHECK_NEAR(at(ds, "lm loss", i), pt_log_mega_loss(i), 1e-9);
    }
    /* the NaN iteration: loss left out -> a NaN point; grad norm printed "nan" */
    CHECK_INT(npoints(ds, "lm loss"), 40);
    CHECK(isnan(at(ds, "lm loss", 10)));
    CHECK(isnan(at(ds, "grad norm", 10)));
    CHECK_NEAR(at(ds, "number of nan iterations", 10), 1, 0);
    CHECK_NEAR(at(ds, "number of nan iterations", 11), 0, 0);
    /* the skipped iteration: no grad norm point, the loss scale halved */
    CHECK_INT(npoints(ds, "grad norm"), 39);
    CHECK_NEAR(at(ds, "grad norm", 20), -12345.0, 0);
    CHECK_NEAR(at(ds, "number of skipped iterations", 20), 1, 0);
    CHECK_NEAR(at(ds, "loss scale", 19), 65536, 0);
    CHECK_NEAR(at(ds, "loss scale", 20), 32768, 0);
    /* the spike */
    CHECK_NEAR(at(ds, "lm loss", 30), 20.0, 0);
    CHECK_NEAR(at(ds, "grad norm", 30), 50.0, 1e-9);
    CHECK_NEAR(at(ds, "learning rate", 5), 1e-4, 0);
    CHECK_NEAR(at(ds, "elapsed time per iteration (ms)", 5), 1205.0, 0);
    CHECK_NEAR(at(ds, "consumed samples", 40), 40 * 128, 0);
    /* the cube: one target per series, the steps of the log */
    CHECK(ds->cube != NULL);
    if (ds->cube) CHECK_INT(ds->cube->nsteps, 40);
    dataset_free(ds);
}

/* The loss left out of the very first iterations (before any line shows
 * its name) is NaN too; "inf" and "-nan" are read as such. */
static void test_megatron_first_nan(void) {
    no_patterns_file();
    const char *dir = pt_tmpdir("megatron_first");
    const char *p = tmpfile_named(dir, "train.log");
    CHECK_INT(pt_write(p, " [2024-05-10 12:00:00] saving checkpoint at iteration     100 to /ckpt in torch format\n"
                          "training step:3 done [ok]\n"
                          "iteration 1/ 3 | learning rate: 1.0E-04 | loss scale: 1.0 | number of nan iterations: 1 |\n"
                          "iteration 2/ 3 | learning rate: 1.0E-04 | lm loss: 4.0E+00 | loss scale: 1.0 | grad norm: inf |\n"
                          "iteration 3/ 3 | learning rate: 1.0E-04 | lm loss: 3.5E+00 | loss scale: 1.0 | grad norm: -nan |\n"),
              0);
    struct pt_error err;
    struct dataset *ds = load(p, NULL, NULL, 0, &err);
    CHECK(ds != NULL);
    if (!ds) { fprintf(stderr, "%s\n", err.msg); return; }
    CHECK(isnan(at(ds, "lm loss", 1)));
    CHECK_NEAR(at(ds, "lm loss", 2), 4.0, 0);
    CHECK_NEAR(at(ds, "lm loss", 3), 3.5, 0);
    CHECK(isinf(at(ds, "grad norm", 2)) && at(ds, "grad norm", 2) > 0);
    CHECK(isnan(at(ds, "grad norm", 3)));
    CHECK_INT(ds->nwarnings, 0);   /* banners holding the literals are no damaged lines */
    dataset_free(ds);
}

static void test_mindformers(void) {
    no_patterns_file();
    const char *dir = pt_tmpdir("mindformers");
    const char *p = tmpfile_named(dir, "mf.log");
    CHECK_INT(pt_log_mindformers(p), 0);
    CHECK_STR(formats_name(formats_detect(p)), "log");
    struct pt_error err;
    struct dataset *ds = load(p, NULL, NULL, 0, &err);
    CHECK(ds != NULL);
    if (!ds) { fprintf(stderr, "%s\n", err.msg); return; }
    CHECK_INT(ds->curves->first_step, 1);
    CHECK_INT(ds->curves->last_step, 6);   /* epoch 2's steps 1..3 are 4..6 */
    for (int s = 1; s <= 6; s++) {
        CHECK_NEAR(at(ds, "loss", s), 10.0 - s, 1e-9);
        CHECK_NEAR(at(ds, "global_norm", s), s / 10.0, 1e-9);
        CHECK_NEAR(at(ds, "per_step_time", s), 1000 + s, 0);
        CHECK_NEAR(at(ds, "overflow cond", s), s == 5, 0);
        CHECK_NEAR(at(ds, "loss_scale", s), s == 5 ? 512 : 1024, 0);
        CHECK_NEAR(at(ds, "train_throughput_per_npu", s), 100.5, 1e-9);
        CHECK_NEAR(at(ds, "lr", s), 1e-5, 0);
    }
    CHECK_INT(curves_find(ds->curves, "global_norm")->role, CURVES_GRAD_NORM);
    CHECK_INT(curves_find(ds->curves, "loss_scale")->role, CURVES_LOSS_SCALE);
    CHECK(curves_find(ds->curves, "Epoch") == NULL);
    dataset_free(ds);
}

static void test_verl(void) {
    no_patterns_file();
    const char *dir = pt_tmpdir("verl");
    const char *p = tmpfile_named(dir, "verl.log");
    CHECK_INT(pt_log_verl(p), 0);
    CHECK_STR(formats_name(formats_detect(p)), "log");
    struct pt_error err;
    struct dataset *ds = load(p, NULL, NULL, 0, &err);
    CHECK(ds != NULL);
    if (!ds) { fprintf(stderr, "%s\n", err.msg); return; }
    CHECK_INT(ds->curves->nseries, 5);
    for (int s = 0; s <= 3; s++) {
        CHECK_NEAR(at(ds, "actor/pg_loss", s), -0.1 * s, 1e-9);
        CHECK_NEAR(at(ds, "critic/score/mean", s), s / 4.0, 1e-9);
        CHECK_NEAR(at(ds, "training/rollout_probs_diff_mean", s), s == 2 ? 0.05 : 0.001 * s, 1e-9);
        CHECK_NEAR(at(ds, "timing_s/gen", s), 12.5, 0);
    }
    CHECK(isnan(at(ds, "actor/grad_norm", 3)));
    CHECK_NEAR(at(ds, "actor/grad_norm", 1), 1.5, 0);
    CHECK_INT(curves_find(ds->curves, "actor/pg_loss")->role, CURVES_LOSS);
    CHECK_INT(curves_find(ds->curves, "critic/score/mean")->role, CURVES_REWARD);
    CHECK_INT(curves_find(ds->curves, "training/rollout_probs_diff_mean")->role, CURVES_LOGP_DIFF);
    CHECK_INT(curves_find(ds->curves, "actor/grad_norm")->role, CURVES_GRAD_NORM);
    dataset_free(ds);
}

/* --pattern NAME=REGEX: its series; a bad regex named with its offset; the
 * patterns file's, and the command line's winning over it. */
static void test_user_patterns(void) {
    no_patterns_file();
    const char *dir = pt_tmpdir("user");
    char p[1200], cfg[1200];
    snprintf(p, sizeof p, "%s/custom.log", dir);
    snprintf(cfg, sizeof cfg, "%s/patterns", dir);
    CHECK_INT(pt_write(p, "epoch 0 batch 1 my_loss=2.5 gn=0.1\nsomething else\nepoch 0 batch 2 my_loss=2.25 gn=0.2\n"
                          "epoch 0 batch 3 my_loss=nan gn=0.3\n"),
              0);
    /* no built-in shape: not detected, and forced it says what it expects */
    CHECK(formats_detect(p) != formats_find("log"));   /* (the dump row takes any file as its fallback) */
    struct pt_error err;
    struct dataset *ds = load(p, "log", NULL, 0, &err);
    CHECK(ds == NULL);
    CHECK_CONTAINS(err.msg, "none of its 4 lines");
    CHECK_CONTAINS(err.msg, "--pattern");
    const char *pats[] = {"myloss=batch (?<step>\\d+) my_loss=(?<value>\\S+)", "gn=batch (?<step>\\d+) .*gn=(?<value>[0-9.]+)"};
    ds = load(p, "log", pats, 2, &err);
    CHECK(ds != NULL);
    if (ds) {
        CHECK_NEAR(at(ds, "myloss", 1), 2.5, 0);
        CHECK_NEAR(at(ds, "myloss", 2), 2.25, 0);
        CHECK(isnan(at(ds, "myloss", 3)));
        CHECK_NEAR(at(ds, "gn", 3), 0.3, 1e-12);
        CHECK_INT(ds->curves->nseries, 2);
        dataset_free(ds);
    }
    /* a regex that does not compile: the pattern and the offset named */
    const char *bad[] = {"loss=batch (?<step>\\d+ (?<value>x)"};
    ds = load(p, "log", bad, 1, &err);
    CHECK(ds == NULL);
    CHECK_CONTAINS(err.msg, "--pattern 'loss'");
    CHECK_CONTAINS(err.msg, "regex error at offset");
    const char *nogroup[] = {"loss=batch (\\d+) (?<value>x)"};
    ds = load(p, "log", nogroup, 1, &err);
    CHECK(ds == NULL);
    CHECK_CONTAINS(err.msg, "no group named step");
    struct load_opts lo;
    load_opts_init(&lo);
    CHECK_INT(load_opts_add_pattern(&lo, "no equals sign"), -1);
    CHECK_INT(load_opts_add_pattern(&lo, "=x"), -1);

    /* the patterns file: detection and load use it; the command line wins */
    CHECK_INT(pt_write(cfg, "# my trainer\n\nmyloss=batch (?<step>\\d+) my_loss=(?<value>\\S+)\n"
                            "gn=batch (?<step>\\d+) .*gn=(?<value>[0-9.]+)\n"),
              0);
    setenv("PROBETOP_PATTERNS", cfg, 1);
    CHECK_STR(formats_name(formats_detect(p)), "log");
    ds = load(p, NULL, NULL, 0, &err);
    CHECK(ds != NULL);
    if (ds) {
        CHECK_NEAR(at(ds, "myloss", 2), 2.25, 0);
        CHECK_NEAR(at(ds, "gn", 2), 0.2, 1e-12);
        dataset_free(ds);
    }
    const char *over[] = {"gn=batch (?<step>\\d+) my_loss=(?<value>\\S+)"};   /* gn now reads my_loss */
    ds = load(p, NULL, over, 1, &err);
    CHECK(ds != NULL);
    if (ds) {
        CHECK_NEAR(at(ds, "gn", 2), 2.25, 0);
        CHECK_NEAR(at(ds, "myloss", 2), 2.25, 0);
        dataset_free(ds);
    }
    /* a bad line of the file: named with file and line */
    CHECK_INT(pt_write(cfg, "ok=x(?<step>\\d+)(?<value>\\d)\nbroken=(\n"), 0);
    ds = load(p, "log", NULL, 0, &err);
    CHECK(ds == NULL);
    CHECK_CONTAINS(err.msg, "patterns:2 'broken'");
    no_patterns_file();
}

/* A user pattern named like a built-in series takes that series over. */
static void test_user_overrides_builtin(void) {
    no_patterns_file();
    const char *dir = pt_tmpdir("override");
    const char *p = tmpfile_named(dir, "train.log");
    CHECK_INT(pt_write(p, "iteration 1/ 2 | lm loss: 5.0E+00 | grad norm: 1.0 |\niteration 2/ 2 | lm loss: 4.0E+00 | grad norm: 2.0 |\n"
                          "debug: step 1 true loss 7.5\n"),
              0);
    const char *pats[] = {"lm loss=step (?<step>\\d+) true loss (?<value>\\S+)"};
    struct pt_error err;
    struct dataset *ds = load(p, NULL, pats, 1, &err);
    CHECK(ds != NULL);
    if (!ds) return;
    CHECK_INT(npoints(ds, "lm loss"), 1);
    CHECK_NEAR(at(ds, "lm loss", 1), 7.5, 0);
    CHECK_NEAR(at(ds, "grad norm", 2), 2.0, 0);
    dataset_free(ds);
}

/* A last line without its line end: cut (warned, partial) when the
 * writer is gone; pending in follow mode while the file is young. */
static void test_cut_and_follow(void) {
    no_patterns_file();
    const char *dir = pt_tmpdir("cut");
    const char *p = tmpfile_named(dir, "train.log");
    CHECK_INT(pt_write(p, "iteration 1/ 3 | lm loss: 5.0E+00 |\niteration 2/ 3 | lm loss: 4.0E+00 |\niteration 3/ 3 | lm lo"), 0);
    struct pt_error err;
    struct dataset *ds = load(p, NULL, NULL, 0, &err);
    CHECK(ds != NULL);
    if (ds) {
        CHECK_INT(npoints(ds, "lm loss"), 2);
        CHECK_INT(ds->nwarnings, 1);
        if (ds->nwarnings) CHECK_CONTAINS(ds->warnings[0], "line 3: the last line has no line end");
        CHECK_INT(ds->npartial, 1);
        CHECK_INT(ds->npending, 0);
        dataset_free(ds);
    }
    struct load_opts lo;
    load_opts_init(&lo);
    lo.follow = 1;
    ds = NULL;
    CHECK_INT(load_dataset(p, &lo, &ds, &err), 0);
    if (ds) {
        CHECK_INT(npoints(ds, "lm loss"), 2);
        CHECK_INT(ds->nwarnings, 0);
        CHECK_INT(ds->npartial, 0);
        CHECK_INT(ds->npending, 1);
        if (ds->npending) CHECK_CONTAINS(ds->pending[0], "last line without its line end");
        dataset_free(ds);
    }
    /* the writer ends the line: the next load reads it */
    FILE *f = fopen(p, "a");
    CHECK(f != NULL);
    if (f) { fputs("ss: 3.0E+00 |\n", f); fclose(f); }
    CHECK_INT(load_dataset(p, &lo, &ds, &err), 0);
    if (ds) {
        CHECK_INT(npoints(ds, "lm loss"), 3);
        CHECK_NEAR(at(ds, "lm loss", 3), 3.0, 0);
        CHECK_INT(ds->npending, 0);
        dataset_free(ds);
    }
}

/* Follow mode with the curves cache (as the session loads): a reload reads
 * the bytes appended since the last one (ds->bytes_read counts them), a
 * half-written last line is pending and read whole later, Megatron's
 * left-out loss stays a NaN point, and a file cut shorter or replaced by
 * another one (same size, other bytes) is read again from its start. */
static void test_follow_incremental(void) {
    no_patterns_file();
    const char *dir = pt_tmpdir("incr");
    char p[1200];
    snprintf(p, sizeof p, "%s/train.log", dir);
    const char *l1 = "iteration 1/ 9 | lm loss: 5.0E+00 | grad norm: 1.5 |\n";
    const char *l2 = "iteration 2/ 9 | grad norm: 1.6 |\n";   /* the loss left out: NaN */
    const char *l3 = "iteration 3/ 9 | lm loss: 4.0E+00 | grad norm: 1.7 |\n";
    const char *l4a = "iteration 4/ 9 | lm loss: 3.", *l4b = "5E+00 | grad norm: 1.8 |\n";
    char head[512];
    snprintf(head, sizeof head, "%s%s", l1, l2);
    CHECK_INT(pt_write(p, head), 0);
    struct load_opts lo;
    load_opts_init(&lo);
    lo.follow = 1;
    lo.curves_cache = curves_cache_new();
    CHECK(lo.curves_cache != NULL);
    struct pt_error err;
    struct dataset *ds = NULL;
    CHECK_INT(load_dataset(p, &lo, &ds, &err), 0);
    if (ds) {
        CHECK_INT(ds->bytes_read, strlen(head));
        CHECK_INT(npoints(ds, "lm loss"), 2);
        CHECK(isnan(at(ds, "lm loss", 2)));
        dataset_free(ds);
    }
    /* a line and a half appended: only they are read, the half pending */
    FILE *f = fopen(p, "a");
    CHECK(f != NULL);
    if (f) { fputs(l3, f); fputs(l4a, f); fclose(f); }
    ds = NULL;
    CHECK_INT(load_dataset(p, &lo, &ds, &err), 0);
    if (ds) {
        CHECK_INT(ds->bytes_read, strlen(l3) + strlen(l4a));
        CHECK_INT(npoints(ds, "lm loss"), 3);
        CHECK_NEAR(at(ds, "lm loss", 3), 4.0, 0);
        CHECK(isnan(at(ds, "lm loss", 2)));
        CHECK_NEAR(at(ds, "grad norm", 1), 1.5, 0);
        CHECK_INT(ds->npending, 1);
        CHECK_INT(ds->nwarnings, 0);
        dataset_free(ds);
    }
    f = fopen(p, "a");
    if (f) { fputs(l4b, f); fclose(f); }
    ds = NULL;
    CHECK_INT(load_dataset(p, &lo, &ds, &err), 0);
    if (ds) {
        CHECK_INT(ds->bytes_read, strlen(l4a) + strlen(l4b));   /* the half line again, then the rest */
        CHECK_INT(npoints(ds, "lm loss"), 4);
        CHECK_NEAR(at(ds, "lm loss", 4), 3.5, 0);
        CHECK_NEAR(at(ds, "grad norm", 4), 1.8, 0);
        CHECK_INT(ds->npending, 0);
        dataset_free(ds);
    }
    /* truncated (a new run writes the log again): read from its start */
    CHECK_INT(pt_write(p, l1), 0);
    ds = NULL;
    CHECK_INT(load_dataset(p, &lo, &ds, &err), 0);
    if (ds) {
        CHECK_INT(ds->bytes_read, strlen(l1));
        CHECK_INT(npoints(ds, "lm loss"), 1);
        CHECK_INT(npoints(ds, "grad norm"), 1);
        dataset_free(ds);
    }
    /* replaced by a file of the same length, other values (rotated): from its start */
    char q[1200];
    snprintf(q, sizeof q, "%s/new.log", dir);
    CHECK_INT(pt_write(q, "iteration 7/ 9 | lm loss: 2.0E+00 | grad norm: 1.1 |\n"), 0);
    CHECK_INT(rename(q, p), 0);
    ds = NULL;
    CHECK_INT(load_dataset(p, &lo, &ds, &err), 0);
    if (ds) {
        CHECK_INT(npoints(ds, "lm loss"), 1);
        CHECK_NEAR(at(ds, "lm loss", 7), 2.0, 0);
        CHECK_NEAR(at(ds, "lm loss", 1), -12345.0, 0);
        dataset_free(ds);
    }
    curves_cache_free(lo.curves_cache);
}

static void test_empty_and_other(void) {
    no_patterns_file();
    const char *dir = pt_tmpdir("other");
    char p[1200];
    struct pt_error err;
    snprintf(p, sizeof p, "%s/empty.log", dir);
    CHECK_INT(pt_write(p, ""), 0);
    CHECK(formats_detect(p) != formats_find("log"));   /* (the dump row takes any file as its fallback) */
    struct dataset *ds = load(p, "log", NULL, 0, &err);
    CHECK(ds == NULL);
    CHECK_CONTAINS(err.msg, "empty file");
    /* a log of another kind: a Python traceback and a CSV with "step" in it */
    snprintf(p, sizeof p, "%s/other.log", dir);
    CHECK_INT(pt_write(p, "Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n"
                          "    step: int = 3\nKeyError: 'step:'\nstep,loss\n1,2.0\n2,1.5\n"),
              0);
    CHECK(formats_detect(p) != formats_find("log"));   /* (the dump row takes any file as its fallback) */
    ds = load(p, "log", NULL, 0, &err);
    CHECK(ds == NULL);
    CHECK_CONTAINS(err.msg, "none of its 7 lines is a training-log line");
    CHECK_CONTAINS(err.msg, p);
    /* one Megatron line among much else is not enough for detection */
    snprintf(p, sizeof p, "%s/mention.log", dir);
    CHECK_INT(pt_write(p, "a\nb\niteration 1/ 2 | lm loss: 1.0 |\nc\n"), 0);
    CHECK(formats_detect(p) != formats_find("log"));   /* (the dump row takes any file as its fallback) */
}

/* Hostile bytes: NULs, CRLF, overlong lines, huge steps and numbers,
 * thousands of names, damaged lines (counted in one warning). */
static void test_hostile(void) {
    no_patterns_file();
    const char *dir = pt_tmpdir("hostile");
    const char *p = tmpfile_named(dir, "h.log");
    FILE *f = fopen(p, "wb");
    CHECK(f != NULL);
    if (!f) return;
    fputs("iteration 1/ 9 | lm loss: 1.0E+00 |\r\n", f);
    fputs("iteration 2/ 9 | lm loss: 2.0E+00 | x\0y: 3 |\n", f);   /* fputs stops at the NUL: a cut field */
    fputs("\n", f);
    fwrite("iteration 3/ 9 | lm loss: 3.0E+00 | a\0b: 4 |\n", 1, 45, f);
    fputs("iteration 99999999999999999999999/ 9 | lm loss: 9.0E+00 |\n", f);   /* step out of range: not taken */
    fputs("iteration 4/ 9 | lm loss: 1e999999999 | tiny: 1e-99999999 | big: 123456789012345678901234567890 |\n", f);
    fputs("iteration 5/ 9 | lm loss: 5.0E+00 | ::::: | : 3 | name: | name: 1 2 | name2: [1, 2] | name3: 0x10 |\n", f);
    fputs("iteration 6/ 9 | lm loss: |\n", f);
    fputs("iteration x/ 9 | lm loss: 1 |\n", f);   /* damaged */
    fputs("step:[ 1/ 0], loss: 1.0\n", f);
    fputs("Epoch:[99999999999999/ 2], step:[ 999999999999999999/ 999999999999999999], loss: 2.0\n", f);
    fputs("global_step:3 - loss:1.0\n", f);
    for (int i = 0; i < 5000; i++) fprintf(f, "iteration 7/ 9 | n%d: %d |\n", i, i);
    for (int i = 0; i < 3 * 1024 * 1024; i++) fputc(i % 97 == 0 ? '|' : 'a', f);   /* an overlong line */
    fputs("\niteration 8/ 9 | lm loss: 8.0E+00 |\n", f);
    fclose(f);
    struct pt_error err;
    struct dataset *ds = load(p, "log", NULL, 0, &err);
    CHECK(ds != NULL);
    if (!ds) { fprintf(stderr, "%s\n", err.msg); return; }
    CHECK_NEAR(at(ds, "lm loss", 1), 1.0, 0);
    CHECK_NEAR(at(ds, "lm loss", 2), 2.0, 0);
    CHECK_NEAR(at(ds, "lm loss", 3), 3.0, 0);
    CHECK(isinf(at(ds, "lm loss", 4)));
    CHECK_NEAR(at(ds, "tiny", 4), 0, 0);
    CHECK_NEAR(at(ds, "big", 4), 1.2345678901234568e29, 1e15);
    CHECK_NEAR(at(ds, "lm loss", 5), 5.0, 0);
    CHECK(curves_find(ds->curves, "name2") == NULL);
    CHECK(curves_find(ds->curves, "name3") == NULL);
    CHECK(curves_find(ds->curves, "name") == NULL);
    CHECK(isnan(at(ds, "lm loss", 6)));   /* a Megatron iteration without a loss value */
    CHECK_NEAR(at(ds, "lm loss", 8), 8.0, 0);
    CHECK_NEAR(at(ds, "loss", 1), 1.0, 0);
    CHECK(ds->curves->nseries <= 4200);   /* the names are bounded */
    CHECK(ds->nwarnings >= 1);
    int named = 0;
    for (size_t i = 0; i < ds->nwarnings; i++) named |= strstr(ds->warnings[i], "do not parse") != NULL;
    CHECK(named);
    dataset_free(ds);
}

/* Lines across the reader's chunks (8 MiB): every iteration read once. */
static void test_chunks(void) {
    no_patterns_file();
    const char *dir = pt_tmpdir("chunks");
    const char *p = tmpfile_named(dir, "big.log");
    FILE *f = fopen(p, "w");
    CHECK(f != NULL);
    if (!f) return;
    int n = 60000;
    for (int i = 1; i <= n; i++)
        fprintf(f, " [2024-05-10 12:00:00] iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): 1234.5 | "
                   "learning rate: 1.000000E-04 | global batch size:   128 | lm loss: %.6E | loss scale: 1.0 | grad norm: 1.5 |\n",
                i, n, i * 128, 1.0 + i * 1e-4);
    fclose(f);
    struct pt_error err;
    struct dataset *ds = load(p, NULL, NULL, 0, &err);
    CHECK(ds != NULL);
    if (!ds) return;
    CHECK_INT(npoints(ds, "lm loss"), n);
    CHECK_INT(npoints(ds, "grad norm"), n);
    CHECK_NEAR(at(ds, "lm loss", 33333), 1.0 + 33333 * 1e-4, 1e-12);
    CHECK_INT(ds->nwarnings, 0);
    dataset_free(ds);
}

/* `probetop info LOG --pattern ...` through the real binary: the option
 * reaches the reader; a bad one exits 2 naming the pattern and offset. */
static void test_cli_pattern(void) {
    const char *bin = getenv("PT_BIN");
    if (!bin) SKIP("PT_BIN not set");
    no_patterns_file();
    const char *dir = pt_tmpdir("cli");
    char p[1200], out[1300], cmd[4096];
    snprintf(p, sizeof p, "%s/custom.log", dir);
    snprintf(out, sizeof out, "%s/out.txt", dir);
    CHECK_INT(pt_write(p, "batch 1 my_loss=2.5\nbatch 2 my_loss=2.25\n"), 0);
    snprintf(cmd, sizeof cmd, "'%s' info '%s' --json --format log --pattern 'myloss=batch (?<step>\\d+) my_loss=(?<value>\\S+)' >'%s' 2>&1",
             bin, p, out);
    CHECK_INT(system(cmd), 0);
    char *o = pt_slurp(out);
    CHECK_CONTAINS(o, "\"format\": \"log\"");
    CHECK_CONTAINS(o, "\"steps\": [1, 2]");
    free(o);
    snprintf(cmd, sizeof cmd, "'%s' info '%s' --format log --pattern 'myloss=batch (?<step>\\d+' >'%s' 2>&1", bin, p, out);
    int rc = system(cmd);
    CHECK(WIFEXITED(rc) && WEXITSTATUS(rc) == 2);
    o = pt_slurp(out);
    CHECK_CONTAINS(o, "--pattern 'myloss': regex error at offset 17: missing closing parenthesis");
    free(o);
    snprintf(cmd, sizeof cmd, "'%s' info '%s' --pattern nonsense >'%s' 2>&1", bin, p, out);
    rc = system(cmd);
    CHECK(WIFEXITED(rc) && WEXITSTATUS(rc) == 2);
    /* probetop curves (its --format is its output's): the user's log read through --pattern */
    snprintf(cmd, sizeof cmd, "'%s' curves '%s' '%s' --format json --pattern 'lm loss=batch (?<step>\\d+) my_loss=(?<value>\\S+)' >'%s' 2>&1",
             bin, p, p, out);
    rc = system(cmd);
    CHECK(WIFEXITED(rc) && WEXITSTATUS(rc) == 0);
    o = pt_slurp(out);
    CHECK_CONTAINS(o, "\"format\": \"log\"");
    CHECK_CONTAINS(o, "lm loss");
    free(o);
}

int main(void) {
    RUN(test_megatron);
    RUN(test_megatron_first_nan);
    RUN(test_mindformers);
    RUN(test_verl);
    RUN(test_user_patterns);
    RUN(test_user_overrides_builtin);
    RUN(test_cut_and_follow);
    RUN(test_follow_incremental);
    RUN(test_empty_and_other);
    RUN(test_hostile);
    RUN(test_chunks);
    RUN(test_cli_pattern);
    PT_DONE();
}
