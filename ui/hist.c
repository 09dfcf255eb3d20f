/* hist: prompt line history (see hist.h). */
#include "ui/hist.h"

#include <stdlib.h>
#include <string.h>

void hist_init(struct hist *h) {
    memset(h, 0, sizeof *h);
    h->pos = -1;
}

void hist_free(struct hist *h) {
    for (int i = 0; i < h->n; i++) free(h->item[(h->head + i) % HIST_MAX]);
    free(h->draft);
    hist_init(h);
}

static const char *item_at(const struct hist *h, int i) {
    return h->item[(h->head + i) % HIST_MAX];
}

void hist_reset(struct hist *h) {
    free(h->draft);
    h->draft = NULL;
    h->pos = -1;
}

int hist_add(struct hist *h, const char *line) {
    hist_reset(h);
    if (!line || !line[0]) return 0;
    if (h->n > 0 && strcmp(item_at(h, h->n - 1), line) == 0) return 0;
    char *dup = strdup(line);
    if (!dup) return -1;
    if (h->n == HIST_MAX) {
        free(h->item[h->head]);
        h->item[h->head] = dup;
        h->head = (h->head + 1) % HIST_MAX;
    } else {
        h->item[(h->head + h->n) % HIST_MAX] = dup;
        h->n++;
    }
    return 0;
}

const char *hist_prev(struct hist *h, const char *current) {
    if (h->pos < 0) {
        if (h->n == 0) return NULL;
        h->draft = strdup(current ? current : "");   /* lost on no memory: Down gives "" */
        h->pos = h->n;
    }
    if (h->pos == 0) return NULL;
    h->pos--;
    return item_at(h, h->pos);
}

const char *hist_next(struct hist *h) {
    if (h->pos < 0 || h->pos >= h->n) return NULL;
    h->pos++;
    if (h->pos == h->n) return h->draft ? h->draft : "";
    return item_at(h, h->pos);
}
