/* tensor_pair.h: a small tensor-mode dump pair for the tests (MindSpore
 * style: "task": "tensor", data_name fields, .npy files written byte by
 * byte), shared by the unit test of the compare and the screen test of the
 * detail pane.  What it plants, problem vs benchmark:
 *   add.0   output 4.1 vs 4 in the last element (small error);
 *   mul.0   output negated (cosine -1, error);
 *   relu.0  input shape [4] vs [2, 2] (shape error), benchmark output
 *           file missing;
 *   sub.0   only on the problem side (unmatched). */
#ifndef PT_TENSOR_PAIR_H
#define PT_TENSOR_PAIR_H

#include "npy_write.h"
#include "pt_test.h"

static inline const char *tp_tensor_obj(char *buf, size_t size, const char *dn, const char *shape, double mx) {
    if (dn)
        snprintf(buf, size, "{\"type\": \"mindspore.Tensor\", \"dtype\": \"Float32\", \"shape\": %s, \"Max\": %g, "
                            "\"Min\": 0.5, \"Mean\": 1.0, \"Norm\": 2.0, \"data_name\": \"%s\"}", shape, mx, dn);
    else snprintf(buf, size, "{\"type\": \"int\", \"value\": 2}");
    return buf;
}

/* Writes one side: bench selects the benchmark's values and layout; ext is
 * ".npy" or ".pt" for the data_name fields. */
static inline int tp_write_side(const char *dir, int bench, const char *ext) {
    char p[2400], cmd[2600];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/dump_tensor_data'", dir);
    if (system(cmd) != 0) return -1;
    char t[8][512], dn[8][128];
    static const char *const names[8] = {"Functional.add.0.forward.input.0", "Functional.add.0.forward.output.0",
                                         "Functional.mul.0.forward.input.0", "Functional.mul.0.forward.output.0",
                                         "Functional.relu.0.forward.input.0", "Functional.relu.0.forward.output.0",
                                         "Functional.sub.0.forward.input.0", "Functional.sub.0.forward.output.0"};
    for (int i = 0; i < 8; i++) snprintf(dn[i], sizeof dn[i], "%s%s", names[i], ext);
    const char *relu_shape = bench ? "[2, 2]" : "[4]";
    char dump[8192];
    int n = snprintf(dump, sizeof dump,
        "{\"task\": \"tensor\", \"level\": \"L0\", \"framework\": \"mindspore\", \"dump_data_dir\": null, \"data\": {\n"
        "\"Functional.add.0.forward\": {\"input_args\": [%s], \"output\": [%s]},\n"
        "\"Functional.mul.0.forward\": {\"input_args\": [%s, %s], \"output\": [%s]},\n"
        "\"Functional.relu.0.forward\": {\"input_args\": [%s], \"output\": [%s]}",
        tp_tensor_obj(t[0], 512, dn[0], "[4]", 4), tp_tensor_obj(t[1], 512, dn[1], "[4]", 4),
        tp_tensor_obj(t[2], 512, dn[2], "[4]", 4), tp_tensor_obj(t[3], 512, NULL, NULL, 0), tp_tensor_obj(t[4], 512, dn[3], "[4]", 8),
        tp_tensor_obj(t[5], 512, dn[4], relu_shape, 4), tp_tensor_obj(t[6], 512, dn[5], "[4]", 4));
    if (!bench)
        n += snprintf(dump + n, sizeof dump - (size_t)n, ",\n\"Functional.sub.0.forward\": {\"input_args\": [%s], \"output\": [%s]}",
                      tp_tensor_obj(t[0], 512, dn[6], "[4]", 4), tp_tensor_obj(t[1], 512, dn[7], "[4]", 4));
    snprintf(dump + n, sizeof dump - (size_t)n, "}}\n");
    snprintf(p, sizeof p, "%s/dump.json", dir);
    if (pt_write(p, dump) != 0) return -1;
    snprintf(p, sizeof p, "%s/construct.json", dir);
    pt_write(p, bench ? "{\"Functional.add.0.forward\": null, \"Functional.mul.0.forward\": null, "
                        "\"Functional.relu.0.forward\": null}"
                      : "{\"Functional.add.0.forward\": null, \"Functional.mul.0.forward\": null, "
                        "\"Functional.relu.0.forward\": null, \"Functional.sub.0.forward\": null}");
    snprintf(p, sizeof p, "%s/stack.json", dir);
    pt_write(p, "{}");
    if (strcmp(ext, ".npy")) return 0;
    const float in[4] = {1, 2, 3, 4}, add_n[4] = {1, 2, 3, 4.1f}, mul_n[4] = {-2, -4, -6, -8}, mul_b[4] = {2, 4, 6, 8};
    struct { int k; const char *shape; const float *v; } files[] = {
        {0, "(4,)", in}, {1, "(4,)", bench ? in : add_n}, {2, "(4,)", in}, {3, "(4,)", bench ? mul_b : mul_n},
        {4, bench ? "(2, 2)" : "(4,)", in}, {6, "(4,)", in}, {7, "(4,)", in}};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        if (bench && files[i].k >= 6) continue;
        snprintf(p, sizeof p, "%s/dump_tensor_data/%s", dir, dn[files[i].k]);
        if (npy_write_f32(p, files[i].shape, files[i].v, 4) != 0) return -1;
    }
    if (!bench) {   /* the benchmark lacks relu's output file */
        snprintf(p, sizeof p, "%s/dump_tensor_data/%s", dir, dn[5]);
        if (npy_write_f32(p, "(4,)", in, 4) != 0) return -1;
    }
    return 0;
}

#endif
