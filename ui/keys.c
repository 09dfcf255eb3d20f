/* keys: key names, table lookup, grouping for the help screen and the man
 * page.  No curses here (see keys.h). */
#include "ui/keys.h"

#include <string.h>

static const char *const special_names[] = {
    [KEYS_UP - KEYS_BASE] = "Up", [KEYS_DOWN - KEYS_BASE] = "Down",
    [KEYS_LEFT - KEYS_BASE] = "Left", [KEYS_RIGHT - KEYS_BASE] = "Right",
    [KEYS_PGUP - KEYS_BASE] = "PgUp", [KEYS_PGDN - KEYS_BASE] = "PgDn",
    [KEYS_HOME - KEYS_BASE] = "Home", [KEYS_END - KEYS_BASE] = "End",
    [KEYS_INSERT - KEYS_BASE] = "Ins", [KEYS_DELETE - KEYS_BASE] = "Del",
    [KEYS_BTAB - KEYS_BASE] = "S-Tab",
    [KEYS_SUP - KEYS_BASE] = "S-Up", [KEYS_SDOWN - KEYS_BASE] = "S-Down",
    [KEYS_SLEFT - KEYS_BASE] = "S-Left", [KEYS_SRIGHT - KEYS_BASE] = "S-Right",
    [KEYS_F1 - KEYS_BASE] = "F1", [KEYS_F2 - KEYS_BASE] = "F2", [KEYS_F3 - KEYS_BASE] = "F3",
    [KEYS_F4 - KEYS_BASE] = "F4", [KEYS_F5 - KEYS_BASE] = "F5", [KEYS_F6 - KEYS_BASE] = "F6",
    [KEYS_F7 - KEYS_BASE] = "F7", [KEYS_F8 - KEYS_BASE] = "F8", [KEYS_F9 - KEYS_BASE] = "F9",
    [KEYS_F10 - KEYS_BASE] = "F10", [KEYS_F11 - KEYS_BASE] = "F11", [KEYS_F12 - KEYS_BASE] = "F12",
    [KEYS_MOUSE - KEYS_BASE] = "Mouse", [KEYS_RESIZE - KEYS_BASE] = "Resize",
    [KEYS_NONE - KEYS_BASE] = "None",
};

const char *keys_name(int code, char *buf, size_t size) {
    if (size == 0) return buf;
    buf[0] = '\0';
    if (code > KEYS_BASE && code <= KEYS_NONE) {
        const char *s = special_names[code - KEYS_BASE];
        snprintf(buf, size, "%s", s ? s : "?");
    } else if (code == KEYS_ENTER || code == '\n') {
        snprintf(buf, size, "Enter");
    } else if (code == KEYS_TAB) {
        snprintf(buf, size, "Tab");
    } else if (code == KEYS_ESC) {
        snprintf(buf, size, "Esc");
    } else if (code == KEYS_BACKSPACE || code == 0x08) {
        snprintf(buf, size, "BS");
    } else if (code == ' ') {
        snprintf(buf, size, "Space");
    } else if (code > 0 && code < 0x20) {
        snprintf(buf, size, "C-%c", code + 'a' - 1);
    } else if (code >= 0x20 && code < 0x7f) {
        snprintf(buf, size, "%c", code);
    } else if (code >= 0x80 && code < KEYS_BASE) {
        /* A code point: encode as UTF-8. */
        char u[5] = {0};
        if (code < 0x800) { u[0] = (char)(0xc0 | (code >> 6)); u[1] = (char)(0x80 | (code & 0x3f)); }
        else if (code < 0x10000) { u[0] = (char)(0xe0 | (code >> 12)); u[1] = (char)(0x80 | ((code >> 6) & 0x3f)); u[2] = (char)(0x80 | (code & 0x3f)); }
        else { u[0] = (char)(0xf0 | (code >> 18)); u[1] = (char)(0x80 | ((code >> 12) & 0x3f)); u[2] = (char)(0x80 | ((code >> 6) & 0x3f)); u[3] = (char)(0x80 | (code & 0x3f)); }
        snprintf(buf, size, "%s", u);
    } else {
        snprintf(buf, size, "#%d", code);
    }
    return buf;
}

const struct keys_row *keys_find(const struct keys_row *rows, size_t n, int code) {
    /* Enter arrives as CR or LF depending on the terminal mode. */
    if (code == '\n') code = KEYS_ENTER;
    if (code == 0x08) code = KEYS_BACKSPACE;
    for (size_t i = 0; i < n; i++)
        if (rows[i].code == code) return &rows[i];
    return NULL;
}

static const char *row_name(const struct keys_row *r, char *buf, size_t size) {
    return r->name ? r->name : keys_name(r->code, buf, size);
}

void keys_group(const struct keys_row *rows, size_t n, keys_emit_fn emit, void *ctx) {
    for (size_t i = 0; i < n; i++) {
        if (!rows[i].help) continue;
        /* Shown already with an earlier row of the same action and help? */
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = rows[j].help && rows[j].action == rows[i].action && !strcmp(rows[j].help, rows[i].help);
        if (seen) continue;
        char names[128], one[16];
        size_t len = 0;
        names[0] = '\0';
        for (size_t j = i; j < n; j++) {
            if (rows[j].action != rows[i].action) continue;
            /* An alias row (help NULL) of the same action joins the group. */
            if (rows[j].help && strcmp(rows[j].help, rows[i].help)) continue;
            const char *nm = row_name(&rows[j], one, sizeof one);
            int w = snprintf(names + len, sizeof names - len, "%s%s", len ? ", " : "", nm);
            if (w < 0 || (size_t)w >= sizeof names - len) break;
            len += (size_t)w;
        }
        emit(ctx, names, rows[i].help);
    }
}

void keys_roff(FILE *f, const char *text) {
    int bol = 1;
    for (const char *p = text; *p; p++) {
        if (bol && (*p == '.' || *p == '\'')) fputs("\\&", f);
        bol = 0;
        if (*p == '\\') fputs("\\e", f);
        else if (*p == '-') fputs("\\-", f);
        else if (*p == '\n') { fputc('\n', f); bol = 1; }
        else if ((unsigned char)*p >= 0xc0) {
            /* a UTF-8 glyph (the legend's) as groff's \[uXXXX] escape */
            const unsigned char *q = (const unsigned char *)p;
            int n = *q >= 0xf0 ? 3 : *q >= 0xe0 ? 2 : 1, ok = 1;
            unsigned cp = *q & (0x3f >> n);
            for (int k = 1; k <= n && ok; k++) {
                ok = (q[k] & 0xc0) == 0x80;
                cp = cp << 6 | (q[k] & 0x3f);
            }
            if (ok) {
                fprintf(f, "\\[u%04X]", cp);
                p += n;
            } else fputc('?', f);
        } else if ((unsigned char)*p >= 0x80) fputc('?', f);
        else fputc(*p, f);
    }
}
