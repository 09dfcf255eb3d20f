/* npy_write.h: writes .npy files byte by byte for the tests (there is no
 * numpy here).  npy_write_raw takes the header dict text and the data bytes
 * as they are, so tests can write malformed files too. */
#ifndef PT_NPY_WRITE_H
#define PT_NPY_WRITE_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* version 1, 2 or 3; the header is padded with spaces and a newline to a
 * multiple of 64 bytes, as numpy does. */
static inline int npy_write_raw(const char *path, int version, const char *dict, const void *data, size_t len) {
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t pre = version == 1 ? 10 : 12, dl = strlen(dict);
    size_t total = pre + dl + 1;
    size_t pad = (64 - total % 64) % 64;
    size_t hlen = dl + pad + 1;
    unsigned char p[12] = {0x93, 'N', 'U', 'M', 'P', 'Y', (unsigned char)version, 0};
    p[8] = (unsigned char)(hlen & 255);
    p[9] = (unsigned char)(hlen >> 8 & 255);
    if (version != 1) { p[10] = (unsigned char)(hlen >> 16 & 255); p[11] = (unsigned char)(hlen >> 24 & 255); }
    fwrite(p, 1, pre, f);
    fwrite(dict, 1, dl, f);
    for (size_t i = 0; i < pad; i++) fputc(' ', f);
    fputc('\n', f);
    if (len) fwrite(data, 1, len, f);
    return fclose(f);
}

/* A float32 (little-endian) array of the given shape text, e.g. "(4,)". */
static inline int npy_write_f32(const char *path, const char *shape, const float *v, size_t n) {
    char dict[256];
    snprintf(dict, sizeof dict, "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }", shape);
    unsigned char buf[4096];
    if (n * 4 > sizeof buf) return -1;
    for (size_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, &v[i], 4);
        for (int k = 0; k < 4; k++) buf[i * 4 + (size_t)k] = (unsigned char)(u >> (8 * k));
    }
    return npy_write_raw(path, 1, dict, buf, n * 4);
}

#endif
