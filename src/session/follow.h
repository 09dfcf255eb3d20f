/* follow: follow mode (src/session/follow.c), watching the input for
 * changes and reloading it. */
#ifndef PT_SESSION_FOLLOW_H
#define PT_SESSION_FOLLOW_H

#include <stddef.h>

#include "model/err.h"

struct session;

int follow_on(struct session *a, struct pt_error *err);
void follow_off(struct session *a);
/* Called from the main loop: starts a reload when the input changed (or
 * a pending file settled); 1 when it did. */
int follow_tick(struct session *a);
/* "live, grew 12:03:41" for the status line (buf), or "" when off. */
const char *follow_text(const struct session *a, char *buf, size_t size);

#endif
