/* prompt: the one-line editor for `:` commands and `/` patterns, with a
 * history per kind (ui/hist.h's ring, Up/Down as in a shell).
 * Editing: printable keys insert, Left/Right/Home/End (C-a, C-e) move,
 * BS/Del delete, C-u kills to the start, C-w the word before the cursor,
 * Tab completes through a callback, Enter accepts, Esc/C-g cancels. */
#ifndef PT_UI_PROMPT_H
#define PT_UI_PROMPT_H

#include <stddef.h>

#include "ui/hist.h"

#define PROMPT_MAX 1024

enum prompt_result { PROMPT_MORE, PROMPT_DONE, PROMPT_CANCEL };

/* Completion: given the line and a cycle counter (0 for the first Tab),
 * writes the completed line into out (size PROMPT_MAX); 0 none. */
typedef int (*prompt_complete_fn)(void *ctx, const char *line, int cycle, char *out);

struct prompt {
    int active;
    int kind;                     /* ':' or '/' */
    char buf[PROMPT_MAX];         /* UTF-8 */
    size_t len, cur;              /* bytes; cur at a character boundary */
    struct hist hist_cmd, hist_re;
    prompt_complete_fn complete;
    void *complete_ctx;
    char tab_base[PROMPT_MAX];    /* the line Tab started completing */
    int tab_cycle;
};

void prompt_init(struct prompt *p);
void prompt_free(struct prompt *p);
void prompt_open(struct prompt *p, int kind, const char *initial);
/* Feeds one key (ui/keys.h code).  On PROMPT_DONE the line is p->buf and
 * was added to the history; the prompt closes on DONE and CANCEL. */
enum prompt_result prompt_key(struct prompt *p, int key);
/* Columns before the cursor (for placing the terminal cursor). */
int prompt_cursor_col(const struct prompt *p);

#endif
