/* fuzz_mapping: the --mapping JSON (src/io/dump/parse_dump.c mapping_read). */
#include "fuzz.h"

#include "src/io/dump/read_dump.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char path[1024];
    struct pt_error err;
    struct mapping m;
    fuzz_write("mapping.json", data, size);
    fuzz_path(path, sizeof path, "mapping.json");
    if (mapping_read(path, &m, &err) == 0) mapping_free(&m);
    return 0;
}
