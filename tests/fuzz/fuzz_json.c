/* fuzz_json: src/io/common/json.c on raw bytes, no file: the pull tokenizer (every
 * token, every string decoded, json_lex_skip from every container), and the
 * cJSON tree path with the NaN/Infinity rewrite and json_number on every
 * value.  The input buffer is libFuzzer's own, exactly size bytes, so ASan
 * sees any read past the end. */
#include "fuzz.h"

#include "src/io/common/json.h"

static void walk_tree(const cJSON *n, int depth) {
    double d;
    for (; n && depth < 64; n = n->next) {
        (void)json_number(n, &d);
        walk_tree(n->child, depth + 1);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *buf = size ? (const char *)data : NULL;
    struct pt_error err;
    struct json_lex lx;
    char s[256];

    /* every token */
    json_lex_init(&lx, buf, size, "fuzz.json", &err);
    for (int i = 0; i < 1000000; i++) {
        enum json_tok t = json_lex_next(&lx);
        if (t == JT_ERROR || t == JT_END) break;
        if (t == JT_KEY || t == JT_STRING) (void)json_lex_string(&lx, s, sizeof s);
        if (t == JT_KEY || t == JT_STRING) (void)json_line_of(lx.buf, lx.tok_start);
    }
    /* skipping: the first value inside the top container, whole */
    json_lex_init(&lx, buf, size, "fuzz.json", &err);
    enum json_tok t = json_lex_next(&lx);
    if (t == JT_OBJ_BEGIN || t == JT_ARR_BEGIN) {
        enum json_tok v = json_lex_next(&lx);
        if (v == JT_KEY) v = json_lex_next(&lx);
        if (v != JT_ERROR && v != JT_END && v != JT_OBJ_END && v != JT_ARR_END && json_lex_skip(&lx, v) == 0)
            (void)json_lex_next(&lx);
    } else if (t != JT_ERROR && t != JT_END) {
        (void)json_lex_skip(&lx, t);
    }

    /* the tree path */
    cJSON *root = NULL;
    if (json_tree_parse(buf, size, "fuzz.json", &root, &err) == 0) {
        walk_tree(root, 0);
        cJSON_Delete(root);
    }
    return 0;
}
