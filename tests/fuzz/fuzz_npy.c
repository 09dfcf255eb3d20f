/* fuzz_npy: src/io/dump/read_npy.c (.npy 1.0/2.0/3.0, every dtype it converts) on a
 * file holding the input. */
#include "fuzz.h"

#include "src/io/dump/read_npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char path[1024];
    struct pt_error err;
    struct tensorcmp_tensor t;
    fuzz_write("t.npy", data, size);
    fuzz_path(path, sizeof path, "t.npy");
    memset(&t, 0, sizeof t);
    if (npy_read(path, &t, &err) == 0) {
        volatile double sum = 0;
        for (size_t i = 0; i < t.n; i++) sum += t.v[i];   /* every value is readable */
        (void)sum;
        free(t.v);
    }
    return 0;
}
