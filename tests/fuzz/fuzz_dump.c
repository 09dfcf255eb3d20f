/* fuzz_dump: one rank folder through src/io/dump/parse_dump.c, the record parser
 * data2db and the cube use: input "dump.json [\x1e construct.json]"
 * (without a second part the folder has no construct.json).  Parsed twice:
 * micro steps on, rows wanted, with a --mapping; and micro steps off,
 * overflow records only. */
#include "fuzz.h"

#include "src/io/dump/read_dump.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const uint8_t *part[2];
    size_t len[2];
    int n = fuzz_split(data, size, part, len, 2);
    fuzz_write("dump.json", part[0], len[0]);
    if (n > 1) fuzz_write("construct.json", part[1], len[1]);
    else fuzz_unlink("construct.json");

    char dump[1024];
    fuzz_path(dump, sizeof dump, "dump.json");
    char from0[] = "layers", to0[] = "blocks", from1[] = ".forward", to1[] = "";
    char *from[] = {from0, from1}, *to[] = {to0, to1};
    struct mapping map = {from, to, 2};
    struct dump_opts o1 = {.micro_step = 1, .mapping = &map, .want_rows = 1};
    struct dump_opts o2 = {.micro_step = 0, .want_rows = 0};
    struct dump_file f;
    memset(&f, 0, sizeof f);
    parse_dump_file(fuzz_dir(), dump, &o1, &f);
    dump_file_free(&f);
    memset(&f, 0, sizeof f);
    parse_dump_file(fuzz_dir(), dump, &o2, &f);
    dump_file_free(&f);
    return 0;
}
