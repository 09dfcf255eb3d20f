/* hist: the line history of the `/` and `:` prompts -- a ring of the
 * last HIST_MAX entered lines, browsed with Up/Down as in a shell, the
 * line being typed kept as a draft.  Plain strings: no curses, no model. */
#ifndef PT_UI_HIST_H
#define PT_UI_HIST_H

#define HIST_MAX 64

struct hist {
    char *item[HIST_MAX];    /* ring; item[(head + i) % MAX], i = 0 oldest */
    int head, n;
    int pos;                 /* browsing: 0..n-1 the entry shown, n the draft;
                                -1 not browsing */
    char *draft;             /* the line being typed when browsing started */
};

void hist_init(struct hist *h);
void hist_free(struct hist *h);
/* Remembers an entered line (not empty, not equal to the newest entry; the
 * oldest is dropped when full) and ends browsing.  0 ok, -1 no memory. */
int hist_add(struct hist *h, const char *line);
/* Up: the previous (older) entry; `current` is the line on screen, kept
 * as the draft when browsing starts.  NULL when there is nothing older. */
const char *hist_prev(struct hist *h, const char *current);
/* Down: the next (newer) entry, then the draft; NULL when not browsing. */
const char *hist_next(struct hist *h);
/* Ends browsing (Esc, Enter) without adding. */
void hist_reset(struct hist *h);

#endif
