/* Generated text training logs (probetop-formats(5), TRAINING CURVES,
 * Text training logs) for the tests: written, never stored, so that what
 * each holds is read here.
 *
 * pt_log_megatron(path, n): a Megatron-LM log of iterations 1..n (n >= 35),
 *   banner lines between; lm loss 8 - 0.05 i, grad norm 1 + 0.01 i, loss
 *   scale 65536, lr 1e-4.  Iteration 10 is a NaN iteration (the loss field
 *   left out, as Megatron does, grad norm "nan", number of nan iterations
 *   1); iteration 20 a skipped one (loss scale halved to 32768 from there
 *   on, no grad norm field, number of skipped iterations 1); iteration 30
 *   a spike (lm loss 20, grad norm 50).
 * pt_log_mindformers(path): MindFormers, 2 epochs of 3 steps; loss 10 - s
 *   at global step s (1..6), global_norm [s / 10], step 5 overflowing.
 * pt_log_verl(path): verl, steps 0..3; actor/pg_loss -0.1 * s,
 *   critic/score/mean s / 4, training/rollout_probs_diff_mean 0.001 * s
 *   but 0.05 at step 2, actor/grad_norm nan at step 3. */
#ifndef PT_CURVES_LOG_H
#define PT_CURVES_LOG_H

#include <stdio.h>

static inline double pt_log_mega_loss(int i) { return i == 30 ? 20.0 : 8.0 - 0.05 * i; }
static inline double pt_log_mega_gnorm(int i) { return i == 30 ? 50.0 : 1.0 + 0.01 * i; }

static inline int pt_log_megatron(const char *path, int n) {
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fprintf(f, "using world size: 8, data-parallel size: 8\n------------------------ arguments ------------------------\n"
               "  lr .............................................. 0.0001\n");
    for (int i = 1; i <= n; i++) {
        if (i % 7 == 0) fprintf(f, "[after training is done] datetime: 2024-05-10 12:%02d:00\n", i % 60);
        fprintf(f, " [2024-05-10 12:00:%02d] iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f | "
                   "learning rate: %.6E | global batch size: %5d |",
                i % 60, i, n, i * 128, 1200.0 + i, 1e-4, 128);
        if (i != 10) fprintf(f, " lm loss: %.6E |", pt_log_mega_loss(i));
        fprintf(f, " loss scale: %.1f |", i >= 20 ? 32768.0 : 65536.0);
        if (i == 10) fprintf(f, " grad norm: nan |");
        else if (i != 20) fprintf(f, " grad norm: %.3f |", pt_log_mega_gnorm(i));
        fprintf(f, " number of skipped iterations: %3d | number of nan iterations: %3d |\n", i == 20, i == 10);
    }
    return fclose(f);
}

static inline int pt_log_mindformers(const char *path) {
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fprintf(f, "2024-05-10 12:00:00,000 - mindformers[mindformers/trainer/base_trainer.py:100] - INFO - .........Build Model..........\n");
    for (int s = 1; s <= 6; s++) {
        int e = (s - 1) / 3 + 1, k = (s - 1) % 3 + 1;
        fprintf(f, "2024-05-10 12:00:%02d,000 - mindformers[mindformers/core/callback/callback.py:529] - INFO - "
                   "{ Epoch:[%3d/%3d], step:[%5d/%5d], loss: %.3f, per_step_time: %dms, lr: 1e-05, overflow cond: %s, "
                   "loss_scale: %.1f, global_norm: [%.3f], train_throughput_per_npu: %.3fT\n",
                s, e, 2, k, 3, 10.0 - s, 1000 + s, s == 5 ? "True" : "False", s == 5 ? 512.0 : 1024.0, s / 10.0, 100.5);
    }
    return fclose(f);
}

static inline int pt_log_verl(const char *path) {
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fprintf(f, "(TaskRunner pid=123) Training Progress:   0%%|          | 0/4\n");
    for (int s = 0; s <= 3; s++) {
        fprintf(f, "(TaskRunner pid=123) step:%d - actor/pg_loss:%.3f - actor/grad_norm:", s, -0.1 * s);
        if (s == 3) fprintf(f, "nan");
        else fprintf(f, "%.3f", 0.5 + s);
        fprintf(f, " - critic/score/mean:%.3f - training/rollout_probs_diff_mean:%.3f - timing_s/gen:%.3f\n", s / 4.0,
                s == 2 ? 0.05 : 0.001 * s, 12.5);
    }
    return fclose(f);
}

#endif
