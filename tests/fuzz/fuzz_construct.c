/* fuzz_construct: src/io/dump/read_construct.c and src/io/dump/microstep.c: the input is
 * written once and read both as construct.json (then the micro steps and
 * renumbered keys built from it) and as stack.json (then looked up). */
#include "fuzz.h"

#include "src/io/dump/microstep.h"
#include "src/io/dump/read_construct.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char path[1024];
    struct pt_error err;
    fuzz_write("in.json", data, size);
    fuzz_path(path, sizeof path, "in.json");

    struct construct c = {0};
    if (construct_read(path, &c, &err) == 0) {
        struct microstep ms = {0};
        if (microstep_build(&c, &ms, &err) == 0) {
            for (size_t i = 0; i < c.n && i < 64; i++) (void)microstep_find(&ms, c.v[i].name, strlen(c.v[i].name));
            microstep_free(&ms);
        }
        construct_free(&c);
    }

    struct stack s = {0};
    if (stack_read(path, &s, &err) == 0) {
        for (size_t i = 0; i < s.n && i < 64; i++) (void)stack_find(&s, s.v[i].name);
        (void)stack_find(&s, "Module.a.Linear.backward.0");
        stack_free(&s);
    }
    return 0;
}
