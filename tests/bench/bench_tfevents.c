/* bench_tfevents: writes the TensorBoard event files tests/bench/curves_tfevents.sh
 * times (with tests/tfevents_write.h, apart from the reader's code):
 *
 *   bench_tfevents DIR MB [FILE_MB]
 *
 * MB megabytes in files of FILE_MB (default 64) as one Megatron-style run
 * writes them: one scalar per Event ("lm loss", "grad-norm", "loss-scale"
 * as simple_value, "learning-rate" as a TF2 DT_DOUBLE tensor with its
 * scalars metadata on the first event), the steps going on from file to
 * file (events.out.tfevents.<time>.bench.<n>.0). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "tfevents_write.h"

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: bench_tfevents DIR MB [FILE_MB]\n");
        return 2;
    }
    const char *dir = argv[1];
    long long total = atoll(argv[2]) << 20, per = (argc > 3 ? atoll(argv[3]) : 64) << 20, written = 0;
    int64_t step = 0;
    static const char *const tags[] = {"lm loss", "grad-norm", "loss-scale", "learning-rate"};
    for (int k = 0; written < total; k++) {
        struct tfw w = {0};
        tfw_event(&w, step, NULL, 0, "brain.Event:2");
        while ((long long)w.n < per && written + (long long)w.n < total) {
            step++;
            for (int i = 0; i < 4; i++) {
                double x = i == 0 ? 2.0 + 6.0 * exp(-(double)step / 40000.0) : i == 3 ? 1e-4 : 1.0 + (double)(step % 97) * 0.01;
                struct tfw_val v = {tags[i], i == 3 ? (step == 1 ? TFW_DOUBLE : TFW_DOUBLE_BARE) : TFW_SIMPLE, x};
                tfw_event(&w, step, &v, 1, NULL);
            }
        }
        char path[4096];
        snprintf(path, sizeof path, "%s/events.out.tfevents.%d.bench.%d.0", dir, 1700000000 + k, k);
        if (tfw_save(path, &w) != 0) {
            perror(path);
            return 1;
        }
        written += (long long)w.n;
        free(w.b);
    }
    printf("%lld bytes, steps 1..%lld\n", written, (long long)step);
    return 0;
}
