/* TensorBoard event files (probetop-formats(5), TRAINING CURVES:
 * TensorBoard event files), written here by tests/tfevents_write.h:
 * simple_value scalars and TF2 tensor scalars read as series named by tag
 * (a NaN and a spike kept as they are); a run's files merged (a step
 * logged again keeps the last value); sub-runs named by their folder;
 * non-scalar tensors left out; corrupt records (bad data CRC, bad length
 * CRC, a record that is no Event, a cut end) warned of with the file and
 * the byte offset, the rest read; a cut end in follow mode pending; an
 * empty file; a file named like one that is no event file; follow mode's
 * reloads reading only the records appended (test_follow_incremental). */
#include "pt_test.h"
#include "tfevents_write.h"

#include <math.h>
#include <sys/wait.h>

#include "src/io/curves/curves_cache.h"
#include "src/io/load.h"
#include "src/io/curves/tfrecord.h"
#include "src/io/curves/read_tfevents.h"

static struct dataset *load(const char *path, int forced, int follow, struct pt_error *err) {
    struct load_opts lo;
    struct dataset *ds = NULL;
    load_opts_init(&lo);
    if (forced) lo.format = formats_find("tfevents");
    lo.follow = follow;
    if (load_dataset(path, &lo, &ds, err) != 0) return NULL;
    return ds;
}

static double at(const struct dataset *ds, const char *series, int64_t step) {
    const struct curves_series *s = ds && ds->curves ? curves_find(ds->curves, series) : NULL;
    double v = -12345;
    if (!s || !curves_value_at(s, step, &v)) return -12345;
    return v;
}

/* The warning containing all of a and b, or NULL. */
static const char *warned(const struct dataset *ds, const char *a, const char *b) {
    for (size_t i = 0; ds && i < ds->nwarnings; i++)
        if (strstr(ds->warnings[i], a) && (!b || strstr(ds->warnings[i], b))) return ds->warnings[i];
    return NULL;
}

static void dump_warnings(const struct dataset *ds) {
    for (size_t i = 0; ds && i < ds->nwarnings; i++) fprintf(stderr, "  warning: %s\n", ds->warnings[i]);
}

static char path_buf[4][1100];
static int path_k;
static const char *join(const char *dir, const char *name) {
    char *b = path_buf[path_k++ & 3];
    snprintf(b, sizeof path_buf[0], "%s/%s", dir, name);
    return b;
}

/* The run of the fixture: lm loss (NaN at 15), grad-norm (spike at 12),
 * learning-rate as a TF2 double tensor with scalars metadata on its first
 * event only. */
static void write_run(struct tfw *w, int from, int to) {
    tfw_event(w, 0, NULL, 0, "brain.Event:2");
    for (int s = from; s <= to; s++) {
        struct tfw_val v[3] = {
            {"lm loss", TFW_SIMPLE, s == 15 ? NAN : 2.0 + 6.0 / s},
            {"grad-norm", TFW_SIMPLE, s == 12 ? 25.0 : 1.0 + 0.01 * s},
            {"learning-rate", s == from ? TFW_DOUBLE : TFW_DOUBLE_BARE, 1e-4 * s},
        };
        for (int i = 0; i < 3; i++) tfw_event(w, s, &v[i], 1, NULL);
    }
}

static void test_crc32c(void) {
    CHECK_INT(tfrecord_crc32c(0, "123456789", 9), 0xe3069283u);   /* the CRC-32C check value */
    uint8_t buf[300];
    for (int i = 0; i < 300; i++) buf[i] = (uint8_t)(i * 7 + 3);
    for (size_t n = 0; n <= 300; n += 13) CHECK_INT(tfrecord_crc32c(0, buf, n), tfw_crc32c(buf, n));
    CHECK_INT(tfrecord_crc32c(tfrecord_crc32c(0, buf, 100), buf + 100, 200), tfw_crc32c(buf, 300));
}

static void test_values(void) {
    const char *dir = pt_tmpdir("tfe_values");
    struct tfw w = {0};
    write_run(&w, 1, 20);
    CHECK(tfw_save(join(dir, "events.out.tfevents.1700000000.host.1.0"), &w) == 0);
    free(w.b);
    struct pt_error err = {0};
    const char *f = join(dir, "events.out.tfevents.1700000000.host.1.0");
    CHECK(formats_detect(f) == formats_find("tfevents"));
    CHECK(formats_detect(dir) == formats_find("tfevents"));
    struct dataset *ds = load(dir, 0, 0, &err);
    CHECK(ds != NULL);
    if (!ds) { fprintf(stderr, "%s\n", err.msg); return; }
    CHECK_STR(ds->format->name, "tfevents");
    CHECK_INT(ds->nwarnings, 0);
    dump_warnings(ds);
    CHECK_INT(ds->curves->nseries, 3);
    CHECK_INT(ds->curves->first_step, 1);
    CHECK_INT(ds->curves->last_step, 20);
    CHECK_NEAR(at(ds, "lm loss", 3), (float)(2.0 + 6.0 / 3), 0);
    CHECK(isnan(at(ds, "lm loss", 15)));
    CHECK_NEAR(at(ds, "grad-norm", 12), 25.0, 0);
    CHECK_NEAR(at(ds, "grad-norm", 11), (float)1.11, 0);
    CHECK_NEAR(at(ds, "learning-rate", 7), 7e-4, 0);   /* a double: not rounded to float */
    CHECK_NEAR(at(ds, "learning-rate", 20), 20e-4, 0);
    CHECK_INT(curves_find(ds->curves, "lm loss")->role, CURVES_LOSS);
    CHECK_INT(curves_find(ds->curves, "grad-norm")->role, CURVES_GRAD_NORM);
    CHECK_INT(ds->cube->nsteps, 20);
    CHECK_INT(ds->files_read, 1);
    dataset_free(ds);
}

/* Other tensors: a float scalar in tensor_content (read), a [2,3] histogram
 * tensor and a one-element tensor of the text plugin (left out, even on
 * events after the first that carry no metadata). */
static void test_tensor_kinds(void) {
    const char *dir = pt_tmpdir("tfe_tensors");
    struct tfw w = {0};
    tfw_event(&w, 0, NULL, 0, "brain.Event:2");
    for (int s = 1; s <= 3; s++) {
        struct tfw_val v[4] = {
            {"throughput", TFW_FLOAT_CONTENT, 100.5 * s},
            {"weights", TFW_HISTO_TENSOR, 1.0},
            {"note", s == 1 ? TFW_TEXT_META : TFW_FLOAT_CONTENT, 3.0},
            {"loss-scale", TFW_HALF, -1.5 * s},
        };
        tfw_event(&w, s, v, 4, NULL);
    }
    const char *f = join(dir, "events.out.tfevents.1.h");
    CHECK(tfw_save(f, &w) == 0);
    free(w.b);
    struct pt_error err = {0};
    struct dataset *ds = load(f, 0, 0, &err);
    CHECK(ds != NULL);
    if (!ds) return;
    CHECK_INT(ds->curves->nseries, 2);
    CHECK_NEAR(at(ds, "throughput", 2), 201.0, 0);
    CHECK_NEAR(at(ds, "loss-scale", 3), -4.5, 0);   /* a half in half_val */
    CHECK(curves_find(ds->curves, "weights") == NULL);
    CHECK(curves_find(ds->curves, "note") == NULL);
    dataset_free(ds);
}

/* Two files of one run (a restart logs steps 8..10 again: the later file
 * wins), and a run root with sub-runs named by their folder. */
static void test_merge_and_subruns(void) {
    const char *dir = pt_tmpdir("tfe_merge");
    struct tfw a = {0}, b = {0};
    write_run(&a, 1, 10);
    tfw_event(&b, 0, NULL, 0, "brain.Event:2");
    for (int s = 8; s <= 12; s++) {
        struct tfw_val v = {"lm loss", TFW_SIMPLE, 100.0 + s};
        tfw_event(&b, s, &v, 1, NULL);
    }
    CHECK(tfw_save(join(dir, "events.out.tfevents.1700000000.h.1.0"), &a) == 0);
    CHECK(tfw_save(join(dir, "events.out.tfevents.1700000500.h.1.0"), &b) == 0);
    struct pt_error err = {0};
    struct dataset *ds = load(dir, 0, 0, &err);
    CHECK(ds != NULL);
    if (ds) {
        CHECK_NEAR(at(ds, "lm loss", 7), (float)(2.0 + 6.0 / 7), 0);
        CHECK_NEAR(at(ds, "lm loss", 8), 108.0, 0);
        CHECK_NEAR(at(ds, "lm loss", 12), 112.0, 0);
        CHECK_INT(curves_find(ds->curves, "lm loss")->n, 12);
        CHECK_INT(ds->files_read, 2);
        dataset_free(ds);
    }
    /* a root of two sub-runs (SummaryWriter.add_scalars' layout) */
    const char *root = pt_tmpdir("tfe_root");
    char sub[1200];
    snprintf(sub, sizeof sub, "mkdir -p '%s/train' '%s/val'", root, root);
    CHECK(system(sub) == 0);
    snprintf(sub, sizeof sub, "%s/train", root);
    CHECK(tfw_save(join(sub, "events.out.tfevents.1.h"), &a) == 0);
    snprintf(sub, sizeof sub, "%s/val", root);
    CHECK(tfw_save(join(sub, "events.out.tfevents.1.h"), &b) == 0);
    CHECK(formats_detect(root) == formats_find("tfevents"));
    ds = load(root, 0, 0, &err);
    CHECK(ds != NULL);
    if (ds) {
        CHECK_NEAR(at(ds, "train/lm loss", 8), (float)(2.0 + 6.0 / 8), 0);
        CHECK_NEAR(at(ds, "val/lm loss", 8), 108.0, 0);
        CHECK(curves_find(ds->curves, "lm loss") == NULL);
        dataset_free(ds);
    }
    free(a.b);
    free(b.b);
}

/* Corrupt records: each warned of with its byte offset, the rest read. */
static void test_corrupt(void) {
    const char *dir = pt_tmpdir("tfe_corrupt");
    struct tfw w = {0};
    size_t rec[8];
    tfw_event(&w, 0, NULL, 0, "brain.Event:2");
    for (int s = 1; s <= 7; s++) {
        rec[s] = w.n;
        struct tfw_val v = {"loss", TFW_SIMPLE, (double)s};
        tfw_event(&w, s, &v, 1, NULL);
    }
    size_t end = w.n;
    /* step 2: a data byte flipped (data CRC); step 4: a length byte flipped
     * (length CRC: the reader finds step 5's record again); step 6: a record
     * whose CRCs hold but whose bytes are no protobuf */
    w.b[rec[2] + 14] ^= 0x40;
    w.b[rec[4] + 1] ^= 0x01;
    struct tfw junk = {0}, tail = {0};
    tfw_put(&junk, "\x0a\xff\xff\xff", 4);   /* field 1, a length past the end */
    struct tfw fixed = {0};
    tfw_put(&fixed, w.b, rec[6]);
    size_t at6 = fixed.n;
    tfw_frame(&fixed, &junk);
    tfw_put(&fixed, w.b + rec[7], end - rec[7]);
    size_t cut_at = fixed.n;
    struct tfw_val v8 = {"loss", TFW_SIMPLE, 8.0};
    tfw_event(&tail, 8, &v8, 1, NULL);
    tfw_put(&fixed, tail.b, tail.n - 5);   /* step 8 cut: the writer died */
    const char *f = join(dir, "events.out.tfevents.1.h");
    CHECK(tfw_save(f, &fixed) == 0);
    struct pt_error err = {0};
    struct dataset *ds = load(f, 0, 0, &err);
    CHECK(ds != NULL);
    if (ds) {
        char want[128];
        CHECK_NEAR(at(ds, "loss", 1), 1, 0);
        CHECK(at(ds, "loss", 2) == -12345);
        CHECK_NEAR(at(ds, "loss", 3), 3, 0);
        CHECK(at(ds, "loss", 4) == -12345);
        CHECK_NEAR(at(ds, "loss", 5), 5, 0);
        CHECK(at(ds, "loss", 6) == -12345);
        CHECK_NEAR(at(ds, "loss", 7), 7, 0);
        CHECK(at(ds, "loss", 8) == -12345);
        snprintf(want, sizeof want, "byte %zu: the record's data CRC does not match", rec[2]);
        CHECK(warned(ds, f, want) != NULL);
        snprintf(want, sizeof want, "byte %zu: the record's length CRC does not match: %zu bytes skipped", rec[4], rec[5] - rec[4]);
        CHECK(warned(ds, f, want) != NULL);
        snprintf(want, sizeof want, "byte %zu: a record that is no Event", at6);
        CHECK(warned(ds, f, want) != NULL);
        snprintf(want, sizeof want, "byte %zu: the file ends inside a record", cut_at);
        CHECK(warned(ds, f, want) != NULL);
        CHECK_INT(ds->nwarnings, 4);
        CHECK_INT(ds->npartial, 1);
        CHECK_INT(ds->npending, 0);
        dump_warnings(ds);
        dataset_free(ds);
    }
    /* follow mode: the cut end of a file just written is pending, no warning */
    ds = load(f, 0, 1, &err);
    CHECK(ds != NULL);
    if (ds) {
        CHECK_INT(ds->npending, 1);
        if (ds->npending) CHECK_CONTAINS(ds->pending[0], "a record being written at byte");
        CHECK_INT(ds->npartial, 0);
        CHECK(warned(ds, "the file ends inside a record", NULL) == NULL);
        CHECK_INT(ds->nwarnings, 3);
        dataset_free(ds);
    }
    free(w.b);
    free(junk.b);
    free(fixed.b);
    free(tail.b);
}

/* An empty event file (a writer that has not flushed) and a file named like
 * one that is no event file. */
static void test_empty_and_impostor(void) {
    const char *dir = pt_tmpdir("tfe_empty");
    const char *empty = join(dir, "events.out.tfevents.2.h");
    const char *fake = join(dir, "events.out.tfevents.3.h");
    CHECK(pt_write(empty, "") == 0);
    CHECK(pt_write(fake, "iteration 1/ 10 | lm loss: 5.0E+00 |\niteration 2/ 10 | lm loss: 4.0E+00 |\n") == 0);
    struct pt_error err = {0};
    CHECK(formats_detect(empty) == formats_find("tfevents"));
    CHECK(formats_detect(fake) != formats_find("tfevents"));
    struct dataset *ds = load(empty, 0, 0, &err);
    CHECK(ds != NULL);
    if (ds) {
        CHECK_INT(ds->curves->nseries, 0);
        CHECK(warned(ds, "no scalar summary", NULL) != NULL);
        dataset_free(ds);
    }
    ds = load(fake, 1, 0, &err);
    CHECK(ds == NULL);
    CHECK_CONTAINS(err.msg, "no readable TensorBoard event file");
    /* beside a good file: skipped with a warning naming it */
    struct tfw w = {0};
    write_run(&w, 1, 3);
    CHECK(tfw_save(join(dir, "events.out.tfevents.1.h"), &w) == 0);
    free(w.b);
    ds = load(dir, 0, 0, &err);
    CHECK(ds != NULL);
    if (ds) {
        CHECK(warned(ds, fake, "byte 0: not a TFRecord file") != NULL);
        CHECK_INT(ds->nskipped, 1);
        CHECK_NEAR(at(ds, "grad-norm", 3), (float)1.03, 0);
        CHECK_INT(ds->files_read, 2);   /* the good one and the empty one */
        dataset_free(ds);
    }
}

/* Past eight bad records in a file, a warning counts the rest; a file
 * not named like an event file is one when its first record is an Event
 * naming its version. */
static void test_many_bad_and_unnamed(void) {
    const char *dir = pt_tmpdir("tfe_many");
    struct tfw w = {0};
    tfw_event(&w, 0, NULL, 0, "brain.Event:2");
    for (int s = 1; s <= 20; s++) {
        size_t at = w.n;
        struct tfw_val v = {"loss", TFW_SIMPLE, (double)s};
        tfw_event(&w, s, &v, 1, NULL);
        if (s <= 12) w.b[at + 13] ^= 0x08;   /* data CRC */
    }
    const char *f = join(dir, "run.tfrecord");
    CHECK(tfw_save(f, &w) == 0);
    free(w.b);
    CHECK(formats_detect(f) == formats_find("tfevents"));
    struct pt_error err = {0};
    struct dataset *ds = load(f, 0, 0, &err);
    CHECK(ds != NULL);
    if (!ds) return;
    CHECK_INT(curves_find(ds->curves, "loss")->n, 8);
    CHECK_INT(ds->nwarnings, 9);
    CHECK(warned(ds, f, "4 more bad records") != NULL);
    dataset_free(ds);
}

/* The scalars of one buffer straight (what the fuzz harness calls). */
static void test_read_buf(void) {
    struct tfw w = {0};
    write_run(&w, 1, 4);
    struct curves *c = curves_new();
    struct tfevents_ctx *x = tfevents_ctx_new(c);
    struct dataset *ds = calloc(1, sizeof *ds);
    struct pt_error err = {0};
    int not_rec = 1;
    CHECK_INT(tfevents_read_buf(x, w.b, w.n, "mem", "r/", ds, &not_rec, &err), 12);
    CHECK_INT(not_rec, 0);
    CHECK(curves_find(c, "r/lm loss") != NULL);
    /* a negative step (int64 as a 10-byte varint) */
    struct tfw n = {0};
    struct tfw_val v = {"loss", TFW_SIMPLE, 1.5};
    tfw_event(&n, -3, &v, 1, NULL);
    CHECK_INT(tfevents_read_buf(x, n.b, n.n, "mem", "", ds, &not_rec, &err), 1);
    CHECK(curves_finish(c) == 0);
    double got = 0;
    CHECK(curves_value_at(curves_find(c, "loss"), -3, &got) == 1);
    CHECK_NEAR(got, 1.5, 0);
    tfevents_ctx_free(x);
    curves_free(c);
    dataset_free(ds);
    free(w.b);
    free(n.b);
}

/* The scalars as the protobuf library decodes them (tests/tfevents_pbcheck.py,
 * google.protobuf: Debian's python3-protobuf) are the ones read: the values
 * run, the tensor kinds, and the committed fixture. */
static void test_against_protobuf(void) {
    const char *tool = pt_tool("tfevents_pbcheck.py");
    if (!tool) SKIP("tests/tfevents_pbcheck.py not found (PT_SRC)");
    const char *dir = pt_tmpdir("tfe_pbcheck");
    struct tfw w = {0};
    write_run(&w, 1, 30);
    for (int s = 31; s <= 33; s++) {
        struct tfw_val v[4] = {{"throughput", TFW_FLOAT_CONTENT, 10.25 * s}, {"weights", TFW_HISTO_TENSOR, 1.0},
                               {"note", s == 31 ? TFW_TEXT_META : TFW_FLOAT_CONTENT, 3.0}, {"loss-scale", TFW_HALF, 0.25 * s}};
        tfw_event(&w, s, v, 4, NULL);
    }
    const char *f = join(dir, "events.out.tfevents.1.h");
    CHECK(tfw_save(f, &w) == 0);
    free(w.b);
    const char *files[2] = {f, pt_shared_file("tfevents", "run/events.out.tfevents.1700000000.host.1.0")};
    for (int i = 0; i < 2; i++) {
        if (!files[i]) { CHECK(files[i] != NULL); continue; }
        char cmd[4096], out[1200];
        snprintf(out, sizeof out, "%s/pb.txt", dir);
        snprintf(cmd, sizeof cmd, "{ [ -x /usr/bin/python3 ] && /usr/bin/python3 '%s' '%s' || python3 '%s' '%s'; } > '%s' 2>/dev/null",
                 tool, files[i], tool, files[i], out);
        int rc = system(cmd);
        if (WIFEXITED(rc) && WEXITSTATUS(rc) == 77) SKIP("google.protobuf is not installed (python3-protobuf)");
        CHECK_INT(rc, 0);
        char *txt = pt_slurp(out);
        struct pt_error err = {0};
        struct dataset *ds = load(files[i], 0, 0, &err);
        CHECK(txt != NULL && ds != NULL);
        if (!txt || !ds) { free(txt); dataset_free(ds); continue; }
        size_t lines = 0, same = 0, pts = 0;
        for (char *line = strtok(txt, "\n"); line; line = strtok(NULL, "\n")) {
            char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
            if (!t2) continue;
            *t1 = *t2 = '\0';
            lines++;
            double want = strtod(t2 + 1, NULL), got = at(ds, line, strtoll(t1 + 1, NULL, 10));
            if ((isnan(want) && isnan(got)) || want == got) same++;
            else fprintf(stderr, "  %s step %s: protobuf %.17g, probetop %.17g\n", line, t1 + 1, want, got);
        }
        for (size_t k = 0; k < ds->curves->nseries; k++) pts += ds->curves->series[k].n;
        CHECK(lines > 0);
        CHECK_INT(same, lines);
        CHECK_INT(pts, lines);
        free(txt);
        dataset_free(ds);
    }
}

static int append_bytes(const char *path, const void *p, size_t n) {
    FILE *f = fopen(path, "ab");
    if (!f) return -1;
    size_t k = fwrite(p, 1, n, f);
    return fclose(f) == 0 && k == n ? 0 : -1;
}

/* Follow mode with the curves cache (as the session loads): a reload reads
 * the bytes appended since the last one (ds->bytes_read counts them), a
 * half-written record is pending and read whole later, a bad record's
 * warning is said again at each load without reading it again, a second
 * file of the run is read from its start, and a file cut shorter is read
 * again from its start. */
static void test_follow_incremental(void) {
    const char *dir = pt_tmpdir("tfe_incr");
    const char *f = join(dir, "events.out.tfevents.1.h");
    struct tfw w = {0}, more = {0}, last = {0};
    tfw_event(&w, 0, NULL, 0, "brain.Event:2");
    for (int s = 1; s <= 3; s++) {
        struct tfw_val v = {"loss", TFW_SIMPLE, (double)s};
        tfw_event(&w, s, &v, 1, NULL);
    }
    size_t bad = w.n;
    struct tfw_val v4 = {"loss", TFW_SIMPLE, 4.0};
    tfw_event(&w, 4, &v4, 1, NULL);
    w.b[bad + 14] ^= 0x40;   /* step 4's data CRC broken */
    CHECK(tfw_save(f, &w) == 0);
    struct load_opts lo;
    load_opts_init(&lo);
    lo.follow = 1;
    lo.curves_cache = curves_cache_new();
    struct pt_error err = {0};
    struct dataset *ds = NULL;
    CHECK_INT(load_dataset(dir, &lo, &ds, &err), 0);
    if (ds) {
        CHECK_INT(ds->bytes_read, w.n);
        CHECK_NEAR(at(ds, "loss", 3), 3, 0);
        CHECK(at(ds, "loss", 4) == -12345);
        CHECK_INT(ds->nwarnings, 1);
        dataset_free(ds);
    }
    /* steps 5 and 6, and half of step 7's record */
    for (int s = 5; s <= 6; s++) {
        struct tfw_val v = {"loss", TFW_SIMPLE, (double)s};
        tfw_event(&more, s, &v, 1, NULL);
    }
    struct tfw_val v7 = {"loss", TFW_SIMPLE, 7.0};
    tfw_event(&last, 7, &v7, 1, NULL);
    size_t half = last.n / 2;
    CHECK_INT(append_bytes(f, more.b, more.n), 0);
    CHECK_INT(append_bytes(f, last.b, half), 0);
    ds = NULL;
    CHECK_INT(load_dataset(dir, &lo, &ds, &err), 0);
    if (ds) {
        CHECK_INT(ds->bytes_read, more.n + half);
        CHECK_NEAR(at(ds, "loss", 1), 1, 0);
        CHECK_NEAR(at(ds, "loss", 6), 6, 0);
        CHECK(at(ds, "loss", 7) == -12345);
        CHECK_INT(ds->npending, 1);
        CHECK_INT(ds->nwarnings, 1);   /* step 4's, said again */
        if (ds->nwarnings) CHECK_CONTAINS(ds->warnings[0], "data CRC does not match");
        dataset_free(ds);
    }
    /* the rest of step 7, and a second file of the run */
    CHECK_INT(append_bytes(f, last.b + half, last.n - half), 0);
    const char *g = join(dir, "events.out.tfevents.2.h");
    struct tfw w2 = {0};
    tfw_event(&w2, 0, NULL, 0, "brain.Event:2");
    struct tfw_val v8 = {"loss", TFW_SIMPLE, 8.0};
    tfw_event(&w2, 8, &v8, 1, NULL);
    CHECK(tfw_save(g, &w2) == 0);
    ds = NULL;
    CHECK_INT(load_dataset(dir, &lo, &ds, &err), 0);
    if (ds) {
        CHECK_INT(ds->bytes_read, (last.n - half + half) + w2.n);   /* the cut record again, whole, and the new file */
        CHECK_NEAR(at(ds, "loss", 7), 7, 0);
        CHECK_NEAR(at(ds, "loss", 8), 8, 0);
        CHECK_INT(ds->npending, 0);
        dataset_free(ds);
    }
    /* the first file cut shorter (a new run): every file from its start */
    struct tfw w3 = {0};
    tfw_event(&w3, 0, NULL, 0, "brain.Event:2");
    struct tfw_val v1 = {"loss", TFW_SIMPLE, 10.0};
    tfw_event(&w3, 1, &v1, 1, NULL);
    CHECK(tfw_save(f, &w3) == 0);
    ds = NULL;
    CHECK_INT(load_dataset(dir, &lo, &ds, &err), 0);
    if (ds) {
        CHECK_INT(ds->bytes_read, w3.n + w2.n);
        CHECK_NEAR(at(ds, "loss", 1), 10, 0);
        CHECK(at(ds, "loss", 3) == -12345);
        CHECK_NEAR(at(ds, "loss", 8), 8, 0);
        CHECK_INT(ds->nwarnings, 0);
        dataset_free(ds);
    }
    curves_cache_free(lo.curves_cache);
    free(w.b);
    free(more.b);
    free(last.b);
    free(w2.b);
    free(w3.b);
}

int main(void) {
    RUN(test_crc32c);
    RUN(test_values);
    RUN(test_tensor_kinds);
    RUN(test_merge_and_subruns);
    RUN(test_corrupt);
    RUN(test_empty_and_impostor);
    RUN(test_many_bad_and_unnamed);
    RUN(test_read_buf);
    RUN(test_against_protobuf);
    RUN(test_follow_incremental);
    PT_DONE();
}
