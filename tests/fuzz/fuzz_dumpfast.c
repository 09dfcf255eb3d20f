/* fuzz_dumpfast: one rank folder (input "dump.json [\x1e construct.json]",
 * as fuzz_dump) parsed with the tensor objects read from their bytes
 * (src/io/dump/parse_dump_elem.c) and with the tokens alone; everything
 * parse_dump gives must be the same (tests/pt_dumpfast.h). */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>

#include "tests/pt_dumpfast.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const uint8_t *part[2];
    size_t len[2];
    int n = fuzz_split(data, size, part, len, 2);
    fuzz_write("dump.json", part[0], len[0]);
    if (n > 1) fuzz_write("construct.json", part[1], len[1]);
    else fuzz_unlink("construct.json");
    char why[512];
    if (!pt_df_same(fuzz_dir(), why, sizeof why)) {
        fprintf(stderr, "fuzz_dumpfast: the fast read differs: %s\n", why);
        abort();
    }
    return 0;
}
