/* search: the one search every pane's `/` uses, and the label selection.
 * (The prompt's line history is ui/hist.h.)
 *
 * Regex: PCRE2 (8-bit) in UTF mode, case-insensitive unless asked, over
 * names that may hold invalid UTF-8 (PCRE2_MATCH_INVALID_UTF: such bytes
 * simply never match).  Compile errors carry PCRE2's message and the 1-based
 * column (in characters) where it stopped.  Every match runs under a match,
 * depth and heap limit, so a pattern with catastrophic backtracking returns
 * -1 ("too complex") instead of hanging the screen; callers stop a whole
 * scan at the first -1.  One match context and one match-data block live as
 * long as the struct search and are reused by every match.  No JIT: the
 * depth limit does not apply to JIT code and names are short.
 *
 * Labels: msProbe filters by label TEXT, whatever its category, AND-ed
 * across the selection (probetop-rules(7), LABELS; probetop-formats(5), TREND.DB).
 */
#ifndef PT_SEARCH_H
#define PT_SEARCH_H

#ifndef PCRE2_CODE_UNIT_WIDTH
#define PCRE2_CODE_UNIT_WIDTH 8
#endif
#include <pcre2.h>
#include <stddef.h>
#include <stdint.h>

#include "model/err.h"
#include "model/cube/names.h"

/* search_compile() flags. */
#define SEARCH_CASE 1u        /* case-sensitive (default: caseless) */
#define SEARCH_LITERAL 2u     /* the pattern is plain text, not a regex */

/* Limits per subject: enough for any sane pattern on names of a few KB. */
#define SEARCH_MATCH_LIMIT 200000u   /* pcre2_set_match_limit */
#define SEARCH_DEPTH_LIMIT 10000u    /* pcre2_set_depth_limit */
#define SEARCH_HEAP_LIMIT 8192u      /* pcre2_set_heap_limit, KiB */

struct search {
    pcre2_code *code;               /* NULL: no pattern (matches everything) */
    pcre2_match_data *md;
    pcre2_match_context *mctx;
    char *pattern;                  /* as given */
    unsigned flags;
    char why[160];                  /* after a -1: what stopped the match */
};

/* A zeroed struct search is valid and empty; search_init() does that. */
void search_init(struct search *s);
/* Compiles pattern (NUL-terminated).  On error s is left exactly as it
 * was (the previous pattern stays in force) and err says e.g.
 * "regex error at column 4: missing closing parenthesis".  An empty pattern
 * clears the search. */
int search_compile(struct search *s, const char *pattern, unsigned flags, struct pt_error *err);
/* Drops the pattern (s matches everything) and keeps the buffers. */
void search_clear(struct search *s);
void search_free(struct search *s);
static inline int search_active(const struct search *s) { return s->code != NULL; }

/* 1 match, 0 no match, -1 a limit was hit (or PCRE2 failed): s->why says
 * which; treat as "stop searching".  An inactive search matches. */
int search_match(struct search *s, const char *subject, size_t len);
/* The next non-empty match at or after byte `from` (for highlighting):
 * 1 with [*so, *eo) set, 0 none, -1 as above.  Empty matches are never
 * reported, so a loop `from = eo` always advances. */
int search_find(struct search *s, const char *subject, size_t len, size_t from, size_t *so, size_t *eo);

/* A target matches when its name or any of its label texts does. */
int search_match_target(struct search *s, const struct names *n, uint32_t target);

/* ---- label selection ---- */

/* mask[t] (names_count() bytes) = 1 when target t carries, for every
 * selected label, a label with the same text (any category); 0 otherwise.
 * No selection marks every target.  Returns how many are marked, or -1 when
 * memory ran out (err set).  Label ids out of range are an error too. */
long search_labels_mask(const struct names *n, const uint32_t *sel, size_t nsel, uint8_t *mask,
                        struct pt_error *err);
/* The same as a list of ascending target ids (*out owned by the caller). */
int search_labels_targets(const struct names *n, const uint32_t *sel, size_t nsel, uint32_t **out,
                          uint32_t *nout, struct pt_error *err);
/* Every label id sorted the way the picker lists them: by category
 * (default, function, index, layer, module) then by text (bytewise).
 * *out is owned by the caller. */
int search_labels_sorted(const struct names *n, uint32_t **out, uint32_t *nout, struct pt_error *err);

#endif
