/* fuzz_origin_light: the light capture of communication ops
 * (src/io/dump/origin_light.c) against the old path: input a dump.json.
 * Read by the load with origin_keep (parse_dump.c: ops held light when
 * they can be), then by the search from what the load kept
 * (graph_read_cap) and whole (graph_read): for every communication op,
 * what the pairing reads (origin_op_view) must be the same, else abort.
 * The scan is also run on the raw input as one record's bytes. */
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "model/overflow/origin.h"
#include "src/io/dump/origin_light.h"
#include "src/io/dump/read_dump.h"
#include "src/io/dump/read_graph.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    struct origin_cap *raw = origin_cap_new("x", size, 0, 0);
    if (raw) {
        origin_light_scan(raw, 0, (const char *)data, size, NULL, 0);
        origin_cap_free(raw);
    }
    fuzz_write("dump.json", data, size);
    fuzz_unlink("construct.json");
    char dump[1024];
    fuzz_path(dump, sizeof dump, "dump.json");
    struct dump_opts o = {.micro_step = 1, .want_rows = 0, .origin_keep = 1};
    struct dump_file f;
    memset(&f, 0, sizeof f);
    parse_dump_file(fuzz_dir(), dump, &o, &f);
    struct tree *a = NULL, *b = NULL;
    struct pt_error err;
    if (f.ok && f.ocap && graph_read_cap(fuzz_dir(), f.ocap, origin_is_comm, &a, &err) == 0 &&
        graph_read(fuzz_dir(), GRAPH_NO_STACK | GRAPH_NO_CONSTRUCT, &b, &err) == 0) {
        if (a->nrecs != b->nrecs) abort();
        for (size_t r = 0; r < a->nrecs; r++) {
            const char *n = tree_s(b, b->recs[r].name);
            if (strcmp(tree_s(a, a->recs[r].name), n)) abort();
            if (!origin_is_comm(n)) continue;
            char *u = origin_op_view(a, r), *v = origin_op_view(b, r);
            if (u && v && strcmp(u, v)) abort();   /* the light op pairs otherwise */
            free(u);
            free(v);
        }
    }
    tree_free(a);
    tree_free(b);
    dump_file_free(&f);
    return 0;
}
