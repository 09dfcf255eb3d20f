/* Cancelling a dump load ends it (the TUI sets the flag when q is pressed
 * while the trend data loads, then joins the loading thread).  A worker that
 * saw the flag left without waking the merging thread, which could then
 * wait forever for a file no one would parse: `q` hung probetop after the
 * screen was restored (found by screen.test_graph.test_match_config under
 * load).  Here a load of many small rank folders is cancelled at varying
 * moments; every one must return, with "cancelled" or with the data. */
#include "pt_test.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "src/io/load.h"

#define RANKS 48
#define ROUNDS 300

static const char DUMP[] =
    "{\"task\": \"statistics\", \"level\": \"mix\", \"framework\": \"pytorch\", \"data\": {"
    "\"Functional.linear.0.forward\": {\"input_args\": [{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", "
    "\"shape\": [2], \"Max\": 1.0, \"Min\": -1.0, \"Mean\": 0.5, \"Norm\": 2.0}], \"input_kwargs\": {}, "
    "\"output\": [{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [2], \"Max\": 3.0, "
    "\"Min\": -3.0, \"Mean\": 0.0, \"Norm\": 4.0}]}}}";

struct job {
    const char *root;
    atomic_int cancel;
    atomic_int finished;
    int rc;
    struct pt_error err;
};

static void *load(void *arg) {
    struct job *j = arg;
    struct load_opts lo;
    load_opts_init(&lo);
    lo.cancel = &j->cancel;
    lo.threads = 2;
    struct dataset *ds = NULL;
    j->rc = load_dataset(j->root, &lo, &ds, &j->err);
    dataset_free(ds);
    atomic_store(&j->finished, 1);
    return NULL;
}

static void sleep_us(long us) {
    struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
    nanosleep(&ts, NULL);
}

static void cancel_ends_the_load(void) {
    const char *t = pt_tmpdir("cancel");
    if (!t) SKIP("no scratch folder");
    char root[1100];
    snprintf(root, sizeof root, "%s", t);
    for (int r = 0; r < RANKS; r++) {
        char p[1300];
        snprintf(p, sizeof p, "mkdir -p '%s/step0/rank%d'", root, r);
        if (system(p) != 0) SKIP("cannot make the rank folders");
        snprintf(p, sizeof p, "%s/step0/rank%d/dump.json", root, r);
        CHECK_INT(pt_write(p, DUMP), 0);
        snprintf(p, sizeof p, "%s/step0/rank%d/construct.json", root, r);
        CHECK_INT(pt_write(p, "{\"Functional.linear.0.forward\": null}"), 0);
    }
    int hung = 0, cancelled = 0;
    for (int i = 0; i < ROUNDS && !hung; i++) {
        struct job j = { .root = root };
        atomic_init(&j.cancel, 0);
        atomic_init(&j.finished, 0);
        pthread_t th;
        if (pthread_create(&th, NULL, load, &j) != 0) SKIP("no thread");
        sleep_us((i * 37) % 1500);
        atomic_store(&j.cancel, 1);
        /* a cancelled load of 48 tiny files ends at once; 10 s is a hang */
        for (int w = 0; w < 10000 && !atomic_load(&j.finished); w++) sleep_us(1000);
        if (!atomic_load(&j.finished)) {
            fprintf(stderr, "round %d: the load did not end 10 s after the cancel\n", i);
            hung = 1;
            pthread_detach(th);   /* cannot be joined; the test fails */
            break;
        }
        pthread_join(th, NULL);
        if (j.rc != 0) {
            CHECK_CONTAINS(j.err.msg, "cancelled");
            cancelled++;
        }
    }
    CHECK(!hung);
    fprintf(stderr, "%d of %d loads ended cancelled, the rest complete\n", cancelled, ROUNDS);
}

int main(void) {
    RUN(cancel_ends_the_load);
    PT_DONE();
}
