/* fuzz_regex: the `/` prompt (model/cube/search.c): the input is
 * "flags-byte pattern \x1e subject"; the pattern is compiled as the prompt
 * does (PCRE2, UTF, caseless unless asked, or literal), then matched and
 * every highlight span found in the subject. */
#include "fuzz.h"

#include "model/cube/search.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    unsigned flags = data[0] & (SEARCH_CASE | SEARCH_LITERAL);
    const uint8_t *part[2];
    size_t len[2];
    int n = fuzz_split(data + 1, size - 1, part, len, 2);
    char *pattern = fuzz_strdup(part[0], len[0]);
    char *subject = fuzz_strdup(n > 1 ? part[1] : (const uint8_t *)"Module.layers.0.mlp.Linear.forward.0",
                                n > 1 ? len[1] : strlen("Module.layers.0.mlp.Linear.forward.0"));
    size_t slen = n > 1 ? len[1] : strlen(subject);
    struct search s;
    struct pt_error err;
    search_init(&s);
    if (search_compile(&s, pattern, flags, &err) == 0) {
        (void)search_match(&s, subject, slen);
        size_t from = 0, so, eo;
        for (int i = 0; i < 10000 && search_find(&s, subject, slen, from, &so, &eo) == 1; i++) {
            if (eo <= from || eo > slen || so > eo) abort();   /* the documented contract */
            from = eo;
        }
    }
    search_free(&s);
    free(pattern);
    free(subject);
    return 0;
}
