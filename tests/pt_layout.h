/* pt_layout.h: a scratch folder and a Megatron layout from `:parallel`
 * words, for the layout tests (test_layout.c, test_layout_rename.c).
 * Include after pt_test.h. */
#ifndef PT_TEST_LAYOUT_H
#define PT_TEST_LAYOUT_H

#include "model/layout/layout.h"

/* A scratch directory under PT_TMP (pt_tmpdir() trips -Wformat-truncation
 * when inlined here, so this is the plain mkdir version). */
static inline const char *scratch(void) {
    static char dir[1024];
    const char *base = getenv("PT_TMP");
    if (!base) base = "/tmp/probetop-test";
    snprintf(dir, sizeof dir, "%s/test_layout", base);
    mkdir(base, 0755);
    mkdir(dir, 0755);
    struct stat st;
    return stat(dir, &st) == 0 && S_ISDIR(st.st_mode) ? dir : NULL;
}

/* Builds a layout from `:parallel` words; NULL (and the message in e). */
static inline struct layout *mk(const char *words, struct pt_error *e) {
    struct layout_config c;
    if (layout_config_parse(&c, words, e) != 0) return NULL;
    return layout_new(&c, e);
}

#endif
