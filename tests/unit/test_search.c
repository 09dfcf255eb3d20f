/* test_search: the one regex search (errors with columns, limits, UTF-8,
 * case), label selection with msProbe's AND-of-texts semantics, and the
 * prompt history ring. */
#include <time.h>

#include "pt_test.h"
#include "model/cube/search.h"
#include "ui/hist.h"

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int m(struct search *s, const char *subject) {
    return search_match(s, subject, strlen(subject));
}

static void test_basic_and_case(void) {
    struct search s;
    struct pt_error err = { { 0 } };
    search_init(&s);
    CHECK(!search_active(&s));
    CHECK_INT(m(&s, "anything"), 1);             /* no pattern: everything matches */
    CHECK_INT(search_compile(&s, "linear\\.\\d+", 0, &err), 0);
    CHECK(search_active(&s));
    CHECK_STR(s.pattern, "linear\\.\\d+");
    CHECK_INT(m(&s, "Functional.linear.5.forward"), 1);
    CHECK_INT(m(&s, "Functional.LINEAR.5.forward"), 1);   /* caseless by default */
    CHECK_INT(m(&s, "Functional.linear.x.forward"), 0);
    CHECK_INT(search_compile(&s, "linear", SEARCH_CASE, &err), 0);
    CHECK_INT(m(&s, "Functional.LINEAR.5.forward"), 0);
    CHECK_INT(m(&s, "Functional.linear.5.forward"), 1);
    /* Literal mode: dots are dots. */
    CHECK_INT(search_compile(&s, "a.b", SEARCH_LITERAL, &err), 0);
    CHECK_INT(m(&s, "xaxb"), 0);
    CHECK_INT(m(&s, "xA.B"), 1);
    CHECK_INT(search_compile(&s, "(", SEARCH_LITERAL, &err), 0);
    CHECK_INT(m(&s, "f(x)"), 1);
    /* The subject length is honoured (no NUL needed, embedded NUL ok). */
    CHECK_INT(search_compile(&s, "conv", 0, &err), 0);
    CHECK_INT(search_match(&s, "conv2d", 3), 0);
    CHECK_INT(search_match(&s, "ab\0conv", 7), 1);
    CHECK_INT(search_match(&s, NULL, 0), 0);
    /* An empty pattern clears the search. */
    CHECK_INT(search_compile(&s, "", 0, &err), 0);
    CHECK(!search_active(&s));
    CHECK_INT(m(&s, "x"), 1);
    search_free(&s);
    search_free(&s);   /* twice is harmless */
}

static void test_utf8(void) {
    struct search s = { 0 };
    struct pt_error err;
    /* Caseless applies to non-ASCII letters (UTF mode). */
    CHECK_INT(search_compile(&s, "\xc3\xa9tape", 0, &err), 0);           /* étape */
    CHECK_INT(m(&s, "\xc3\x89TAPE.1"), 1);                                  /* ÉTAPE */
    CHECK_INT(search_compile(&s, "\xc3\xa9tape", SEARCH_CASE, &err), 0);
    CHECK_INT(m(&s, "\xc3\x89TAPE.1"), 0);
    /* . is one character, not one byte. */
    CHECK_INT(search_compile(&s, "^.$", 0, &err), 0);
    CHECK_INT(m(&s, "\xe5\xb1\x82"), 1);   /* 层 */
    CHECK_INT(m(&s, "ab"), 0);
    /* \w knows Unicode letters (UCP). */
    CHECK_INT(search_compile(&s, "^\\w+$", 0, &err), 0);
    CHECK_INT(m(&s, "\xe5\xb1\x82\xc3\xa9"), 1);
    /* A subject with invalid UTF-8 (a hostile dump name) is searched, not
     * refused: the bad byte just never matches. */
    CHECK_INT(search_compile(&s, "relu", 0, &err), 0);
    CHECK_INT(m(&s, "Module.\xff\xfe.relu.ReLU"), 1);
    CHECK_INT(m(&s, "Module.\xff\xfe.gelu"), 0);
    /* Highlight spans are byte offsets on character boundaries. */
    size_t so, eo;
    CHECK_INT(search_compile(&s, "\xc3\xa9", 0, &err), 0);
    const char *subj = "a\xc3\x89" "b\xc3\xa9";
    CHECK_INT(search_find(&s, subj, strlen(subj), 0, &so, &eo), 1);
    CHECK_INT(so, 1);
    CHECK_INT(eo, 3);
    CHECK_INT(search_find(&s, subj, strlen(subj), eo, &so, &eo), 1);
    CHECK_INT(so, 4);
    CHECK_INT(eo, 6);
    CHECK_INT(search_find(&s, subj, strlen(subj), eo, &so, &eo), 0);
    search_free(&s);
}

static void test_errors_keep_previous(void) {
    struct search s = { 0 };
    struct pt_error err = { { 0 } };
    CHECK_INT(search_compile(&s, "layers\\.0", 0, &err), 0);
    CHECK_INT(search_compile(&s, "a(b", 0, &err), -1);
    CHECK_STR(err.msg, "regex error at column 4: missing closing parenthesis");
    /* the previous pattern is still in force */
    CHECK_STR(s.pattern, "layers\\.0");
    CHECK_INT(m(&s, "x.layers.0.y"), 1);
    CHECK_INT(m(&s, "x.layers.1.y"), 0);

    CHECK_INT(search_compile(&s, "*conv", 0, &err), -1);
    CHECK_STR(err.msg, "regex error at column 1: quantifier does not follow a repeatable item");
    CHECK_INT(search_compile(&s, "[z-a]", 0, &err), -1);
    CHECK_STR(err.msg, "regex error at column 4: range out of order in character class");
    /* Columns count characters, not bytes: é is one column. */
    CHECK_INT(search_compile(&s, "\xc3\xa9\xc3\xa9[", 0, &err), -1);
    CHECK_STR(err.msg, "regex error at column 4: missing terminating ] for character class");
    CHECK_INT(search_compile(&s, "ab\xff", 0, &err), -1);
    CHECK_CONTAINS(err.msg, "regex error at column 3: UTF-8 error");
    CHECK_STR(s.pattern, "layers\\.0");
    search_free(&s);

    /* A failed first compile leaves an empty search. */
    struct search t = { 0 };
    CHECK_INT(search_compile(&t, "(?<", 0, &err), -1);
    CHECK(!search_active(&t));
    CHECK_CONTAINS(err.msg, "regex error at column");
    search_free(&t);
}

/* Catastrophic backtracking stops at PCRE2's limits and says so. */
static void test_limits(void) {
    struct search s = { 0 };
    struct pt_error err;
    char subj[4100];
    memset(subj, 'a', 4000);
    subj[4000] = 'b';
    subj[4001] = '\0';
    CHECK_INT(search_compile(&s, "(a+)+$", 0, &err), 0);
    double t0 = now_ms();
    CHECK_INT(search_match(&s, subj, 4001), -1);
    double t1 = now_ms();
    CHECK_CONTAINS(s.why, "match limit");
    fprintf(stderr, "(a+)+$ on 4000 a's + b: limit result after %.2f ms\n", t1 - t0);
    /* The search object stays usable afterwards. */
    CHECK_INT(m(&s, "aaa"), 1);
    CHECK_INT(search_find(&s, subj, 4001, 0, &(size_t){ 0 }, &(size_t){ 0 }), -1);

    CHECK_INT(search_compile(&s, "^(\\w+\\s?)*$", 0, &err), 0);
    CHECK_INT(m(&s, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"), -1);
    CHECK_CONTAINS(s.why, "limit");

    /* Deep backtracking frames hit the depth limit. */
    static char ab[40001];
    for (int i = 0; i < 40000; i++) ab[i] = i % 2 ? 'a' : 'b';
    CHECK_INT(search_compile(&s, "(?:(a)|b)*$", 0, &err), 0);
    CHECK_INT(search_match(&s, ab, 40000), -1);
    CHECK_CONTAINS(s.why, "depth limit");
    /* A sane pattern on the same long subject is fine. */
    CHECK_INT(search_compile(&s, "ba+b", 0, &err), 0);
    CHECK_INT(search_match(&s, ab, 40000), 1);
    search_free(&s);
}

static void test_find_spans(void) {
    struct search s = { 0 };
    struct pt_error err;
    const char *subj = "Module.layers.0.LAYERS.1.mlp";
    size_t so, eo, from = 0, n = 0, starts[4];
    CHECK_INT(search_compile(&s, "layers", 0, &err), 0);
    while (n < 4 && search_find(&s, subj, strlen(subj), from, &so, &eo) == 1) {
        starts[n++] = so;
        CHECK_INT(eo - so, 6);
        from = eo;
    }
    CHECK_INT(n, 2);
    CHECK_INT(starts[0], 7);
    CHECK_INT(starts[1], 16);
    /* Empty matches are never reported (nothing to highlight) ... */
    CHECK_INT(search_compile(&s, "x*", 0, &err), 0);
    CHECK_INT(search_find(&s, subj, strlen(subj), 0, &so, &eo), 0);
    /* ... but count as a match for filtering, as regexes do. */
    CHECK_INT(m(&s, subj), 1);
    CHECK_INT(search_compile(&s, "mlp$", 0, &err), 0);
    CHECK_INT(search_find(&s, subj, strlen(subj), 0, &so, &eo), 1);
    CHECK_INT(so, 25);
    CHECK_INT(search_find(&s, subj, strlen(subj), strlen(subj), &so, &eo), 0);
    search_free(&s);
}

/* ---- labels ---- */

static const char *const T[] = {
    "Module.layer1.0.conv1.Conv2d.input.0",     /* 0: Module; input.0; layer1.0; conv1.Conv2d */
    "Module.layer1.0.conv1.Conv2d.output.0",    /* 1: Module; output.0; layer1.0; conv1.Conv2d */
    "Module.layer2.0.conv1.Conv2d.input.0",     /* 2: Module; input.0; layer2.0; conv1.Conv2d */
    "Functional.conv2d.input.0",                /* 3: function Functional.conv2d; input.0 */
    "Module.layer1.1.relu.ReLU.input.0",        /* 4: Module; input.0; layer1.1; relu.ReLU */
    "Module.x.input.0.Linear.output.0",         /* 5: Module; output.0; layer input.0; module x, Linear */
    "Tensor.add",                               /* 6: fewer than 3 parts: no labels */
};
#define NT (sizeof T / sizeof T[0])

static struct names *make_names(void) {
    struct names *n = names_new();
    for (size_t i = 0; i < NT; i++) names_intern(n, T[i], strlen(T[i]), 0, 0);
    CHECK_INT(names_build_labels(n, LABELS_DUMP), 0);
    return n;
}

static uint32_t lab(const struct names *n, const char *text, int cat) {
    uint32_t id = names_label_find(n, text, cat);
    if (id == NAMES_NONE) fprintf(stderr, "no label %s/%d\n", text, cat);
    return id;
}

/* The selected targets as "0,2,3" for easy comparison. */
static const char *sel_str(const struct names *n, const uint32_t *sel, size_t nsel) {
    static char buf[128];
    uint32_t *v, nv;
    struct pt_error err;
    buf[0] = '\0';
    if (search_labels_targets(n, sel, nsel, &v, &nv, &err) != 0) {
        snprintf(buf, sizeof buf, "error: %.100s", err.msg);
        return buf;
    }
    for (uint32_t i = 0; i < nv; i++)
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%u", i ? "," : "", v[i]);
    free(v);
    return buf;
}

static void test_label_and(void) {
    struct names *n = make_names();
    uint32_t in0 = lab(n, "input.0", LABEL_INDEX), l10 = lab(n, "layer1.0", LABEL_LAYER);
    uint32_t mod = lab(n, "Module", LABEL_DEFAULT), conv = lab(n, "conv1.Conv2d", LABEL_MODULE);
    uint32_t fn = lab(n, "Functional.conv2d", LABEL_FUNCTION);

    CHECK_STR(sel_str(n, NULL, 0), "0,1,2,3,4,5,6");          /* no selection: all */
    /* input.0 is an index label of 0,2,3,4 and a layer label of 5: msProbe
     * matches the text whatever the category, so 5 is in. */
    CHECK_STR(sel_str(n, (uint32_t[]){ in0 }, 1), "0,2,3,4,5");
    CHECK_STR(sel_str(n, (uint32_t[]){ lab(n, "input.0", LABEL_LAYER) }, 1), "0,2,3,4,5");
    CHECK_STR(sel_str(n, (uint32_t[]){ in0, l10 }, 2), "0");  /* AND */
    CHECK_STR(sel_str(n, (uint32_t[]){ mod, in0 }, 2), "0,2,4,5");
    CHECK_STR(sel_str(n, (uint32_t[]){ conv }, 1), "0,1,2");
    CHECK_STR(sel_str(n, (uint32_t[]){ conv, in0, mod }, 3), "0,2");
    CHECK_STR(sel_str(n, (uint32_t[]){ fn, mod }, 2), "");    /* nothing has both */
    CHECK_STR(sel_str(n, (uint32_t[]){ in0, in0 }, 2), "0,2,3,4,5");   /* repeats are harmless */

    uint8_t mask[NT];
    struct pt_error err;
    CHECK_INT(search_labels_mask(n, (uint32_t[]){ in0, l10 }, 2, mask, &err), 1);
    CHECK_INT(mask[0], 1);
    CHECK_INT(mask[1], 0);
    CHECK_INT(mask[6], 0);
    CHECK_INT(search_labels_mask(n, (uint32_t[]){ 9999 }, 1, mask, &err), -1);
    CHECK_CONTAINS(err.msg, "no label #9999");
    names_free(n);
}

static void test_label_order(void) {
    struct names *n = make_names();
    uint32_t *v, nv;
    struct pt_error err;
    CHECK_INT(search_labels_sorted(n, &v, &nv, &err), 0);
    CHECK_INT(nv, names_label_count(n));
    char buf[512] = "";
    for (uint32_t i = 0; i < nv; i++)
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s:%s", i ? " " : "",
                 label_cat_name(names_label(n, v[i])->cat), names_label_text(n, v[i]));
    CHECK_STR(buf, "default:Module function:Functional.conv2d index:input.0 index:output.0 "
                   "layer:input.0 layer:layer1.0 layer:layer1.1 layer:layer2.0 "
                   "module:Linear module:conv1.Conv2d module:relu.ReLU module:x");
    free(v);
    names_free(n);
}

static void test_match_target(void) {
    struct names *n = make_names();
    struct search s = { 0 };
    struct pt_error err;
    CHECK_INT(search_compile(&s, "^relu\\.relu$", 0, &err), 0);   /* a label text, caseless */
    CHECK_INT(search_match_target(&s, n, 4), 1);
    CHECK_INT(search_match_target(&s, n, 0), 0);
    CHECK_INT(search_compile(&s, "conv2d\\.output", 0, &err), 0);  /* the name */
    CHECK_INT(search_match_target(&s, n, 1), 1);
    CHECK_INT(search_match_target(&s, n, 0), 0);
    CHECK_INT(search_match_target(&s, n, 999), 0);
    CHECK_INT(search_compile(&s, "(a+)+$", 0, &err), 0);
    CHECK_INT(search_match_target(&s, n, 6), 0);
    search_free(&s);
    names_free(n);
}

/* ---- history ---- */

static void test_history(void) {
    struct hist h;
    hist_init(&h);
    CHECK(hist_prev(&h, "typed") == NULL);   /* empty */
    CHECK(hist_next(&h) == NULL);
    CHECK_INT(hist_add(&h, "one"), 0);
    CHECK_INT(hist_add(&h, "two"), 0);
    CHECK_INT(hist_add(&h, "two"), 0);      /* same as newest: not repeated */
    CHECK_INT(hist_add(&h, ""), 0);         /* empty: not kept */
    CHECK_INT(hist_add(&h, "three"), 0);
    CHECK_INT(h.n, 3);
    CHECK_STR(hist_prev(&h, "dra"), "three");
    CHECK_STR(hist_prev(&h, "three"), "two");
    CHECK_STR(hist_prev(&h, "two"), "one");
    CHECK(hist_prev(&h, "one") == NULL);   /* nothing older: keep the line */
    CHECK_STR(hist_next(&h), "two");
    CHECK_STR(hist_next(&h), "three");
    CHECK_STR(hist_next(&h), "dra");       /* the line being typed comes back */
    CHECK(hist_next(&h) == NULL);
    CHECK_STR(hist_prev(&h, "dra"), "three");
    hist_reset(&h);
    CHECK(hist_next(&h) == NULL);
    /* Adding ends browsing; the ring keeps the newest HIST_MAX. */
    char line[16];
    for (int i = 0; i < HIST_MAX + 6; i++) {
        snprintf(line, sizeof line, "p%d", i);
        CHECK_INT(hist_add(&h, line), 0);
    }
    CHECK_INT(h.n, HIST_MAX);
    CHECK_STR(hist_prev(&h, ""), "p69");
    const char *oldest = NULL, *p;
    while ((p = hist_prev(&h, "")) != NULL) oldest = p;
    CHECK_STR(oldest, "p6");
    hist_free(&h);
    CHECK_INT(h.n, 0);
    hist_free(&h);
}

int main(void) {
    RUN(test_basic_and_case);
    RUN(test_utf8);
    RUN(test_errors_keep_previous);
    RUN(test_limits);
    RUN(test_find_spans);
    RUN(test_label_and);
    RUN(test_label_order);
    RUN(test_match_target);
    RUN(test_history);
    PT_DONE();
}
