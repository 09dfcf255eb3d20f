/* fuzz_numfast: json_lex_number_fast (the dump's statistics read from
 * their bytes, json_lex.c) against the tokenizer on the same bytes, its
 * numbers by decfloat and by strtod: at every offset of the input that
 * starts with '-' or a digit, where the fast read takes a number, the
 * tokens read a number there too, ending at the same byte, with the same
 * bits (or, for a zero followed by digits, which the tokens refuse, it
 * stops after the zero).  The input lies after a run of spaces of its
 * first byte's choosing and before 200 more, so that the number meets the
 * buffer's start at every distance.  Any difference aborts. */
#include <stdio.h>

#include "fuzz.h"
#include "src/io/common/json.h"

static void differ(const char *what, size_t off) {
    fprintf(stderr, "fuzz_numfast: %s at offset %zu\n", what, off);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > 4096) return 0;
    size_t pad = size ? data[0] % 40 : 0, n = pad + size + 200;
    char *buf = malloc(n);
    if (!buf) return 0;
    memset(buf, ' ', n);
    memcpy(buf + pad, data, size);
    struct json_lex fx;
    struct pt_error err;
    json_lex_init(&fx, buf, n, "fuzz", &err);
    for (size_t off = pad; off < pad + size; off++) {
        char c = buf[off];
        if (c != '-' && (unsigned)(c - '0') > 9) continue;
        double v;
        const char *q = json_lex_number_fast(&fx, buf + off, &v);
        if (!q) continue;
        for (int slow = 0; slow <= 1; slow++) {
            struct json_lex lx;
            struct pt_error lerr;
            json_lex_init(&lx, buf + off, n - off, "fuzz", &lerr);
            lx.slow_numbers = (uint8_t)slow;
            enum json_tok t = json_lex_next(&lx);
            if (t != JT_NUMBER) {
                if (!(buf[off + (c == '-')] == '0' && q == buf + off + (c == '-') + 1 && (unsigned)(*q - '0') <= 9))
                    differ("read where the tokens read no number", off);
                continue;
            }
            if (lx.tok_start != buf + off || lx.pos != q) differ(slow ? "end (strtod)" : "end (decfloat)", off);
            if (memcmp(&v, &lx.num, sizeof v)) differ(slow ? "bits (strtod)" : "bits (decfloat)", off);
        }
    }
    free(buf);
    return 0;
}
