/* fuzz_tfevents: TensorBoard event files (src/io/curves/read_tfevents.c,
 * tfrecord.c, tfevents_pb.c).  The input is decoded three ways: as the
 * bytes of one Event and as those of one Summary (the protobuf decoder
 * straight, which the CRCs would otherwise shield from most mutations);
 * as a file's bytes through tfevents_read_buf (framing, CRCs, resync,
 * every value checked against what it claims); and as a file loaded
 * through the reader table (the row forced).  Seeds: tests/gen_tfevents.py
 * seeds tests/fuzz/seeds/tfevents. */
#include "fuzz.h"

#include <math.h>

#include "src/io/load.h"
#include "src/io/formats.h"
#include "src/io/curves/read_tfevents.h"
#include "src/io/curves/tfevents_pb.h"

static int check_value(void *ctx, const struct tfevents_pb_value *v) {
    (void)ctx;
    if (v->tag_len && !v->tag) abort();
    if (v->plugin_len && !v->plugin) abort();
    if (v->kind < TFEVENTS_PB_NONE || v->kind > TFEVENTS_PB_OTHER_TENSOR) abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t *buf = malloc(size ? size : 1);   /* exactly size bytes: an overread is the sanitizer's */
    if (!buf) abort();
    if (size) memcpy(buf, data, size);
    struct tfevents_pb_event ev;
    const char *why = NULL;
    if (tfevents_pb_event(buf, size, &ev, &why) == 0) {
        if (ev.summary && (ev.summary < buf || ev.summary + ev.summary_len > buf + size)) abort();
        if (ev.summary) (void)tfevents_pb_summary(ev.summary, ev.summary_len, check_value, NULL, &why);
    } else if (!why) abort();
    (void)tfevents_pb_summary(buf, size, check_value, NULL, &why);

    struct curves *c = curves_new();
    struct tfevents_ctx *x = c ? tfevents_ctx_new(c) : NULL;
    struct dataset *ds = calloc(1, sizeof *ds);
    struct pt_error err;
    if (!x || !ds) abort();
    int not_rec = 0;
    long n = tfevents_read_buf(x, buf, size, "fuzz/events.out.tfevents.0", "", ds, &not_rec, &err);
    if (n < 0) abort();   /* only without memory */
    size_t pts = 0;
    for (size_t i = 0; i < c->nseries; i++) pts += c->series[i].n;
    if (pts != (size_t)n) abort();
    if (curves_finish(c) != 0) abort();
    tfevents_ctx_free(x);
    curves_free(c);
    dataset_free(ds);
    free(buf);

    char path[1024];
    fuzz_write("events.out.tfevents.1.fuzz", data, size);
    fuzz_path(path, sizeof path, "events.out.tfevents.1.fuzz");
    struct load_opts lo;
    struct dataset *d2;
    load_opts_init(&lo);
    lo.format = formats_find("tfevents");
    if (load_dataset(path, &lo, &d2, &err) == 0) dataset_free(d2);
    return 0;
}
