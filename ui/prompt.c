/* prompt: line editing and history (see prompt.h).  No curses: the app
 * draws p->buf. */
#include "ui/prompt.h"

#include <string.h>

#include "ui/keys.h"

void prompt_init(struct prompt *p) {
    memset(p, 0, sizeof *p);
    hist_init(&p->hist_cmd);
    hist_init(&p->hist_re);
}

void prompt_free(struct prompt *p) {
    hist_free(&p->hist_cmd);
    hist_free(&p->hist_re);
}

static struct hist *hist(struct prompt *p) { return p->kind == '/' ? &p->hist_re : &p->hist_cmd; }

static void set_line(struct prompt *p, const char *s) {
    size_t n = strlen(s);
    if (n >= PROMPT_MAX) n = PROMPT_MAX - 1;
    /* Do not cut a UTF-8 sequence in half. */
    while (n > 0 && (s[n] & 0xc0) == 0x80) n--;
    memcpy(p->buf, s, n);
    p->buf[n] = '\0';
    p->len = p->cur = n;
}

void prompt_open(struct prompt *p, int kind, const char *initial) {
    p->active = 1;
    p->kind = kind;
    set_line(p, initial ? initial : "");
    p->tab_cycle = -1;
    hist_reset(hist(p));
}

static size_t prev_char(const struct prompt *p, size_t i) {
    if (i == 0) return 0;
    i--;
    while (i > 0 && (p->buf[i] & 0xc0) == 0x80) i--;
    return i;
}

static size_t next_char(const struct prompt *p, size_t i) {
    if (i >= p->len) return p->len;
    i++;
    while (i < p->len && (p->buf[i] & 0xc0) == 0x80) i++;
    return i;
}

static void delete_range(struct prompt *p, size_t a, size_t b) {
    if (b <= a) return;
    memmove(p->buf + a, p->buf + b, p->len - b + 1);
    p->len -= b - a;
    if (p->cur > b) p->cur -= b - a;
    else if (p->cur > a) p->cur = a;
}

static void insert_cp(struct prompt *p, int cp) {
    char u[4];
    size_t n;
    if (cp < 0x80) { u[0] = (char)cp; n = 1; }
    else if (cp < 0x800) { u[0] = (char)(0xc0 | (cp >> 6)); u[1] = (char)(0x80 | (cp & 0x3f)); n = 2; }
    else if (cp < 0x10000) { u[0] = (char)(0xe0 | (cp >> 12)); u[1] = (char)(0x80 | ((cp >> 6) & 0x3f)); u[2] = (char)(0x80 | (cp & 0x3f)); n = 3; }
    else { u[0] = (char)(0xf0 | (cp >> 18)); u[1] = (char)(0x80 | ((cp >> 12) & 0x3f)); u[2] = (char)(0x80 | ((cp >> 6) & 0x3f)); u[3] = (char)(0x80 | (cp & 0x3f)); n = 4; }
    if (p->len + n >= PROMPT_MAX) return;
    memmove(p->buf + p->cur + n, p->buf + p->cur, p->len - p->cur + 1);
    memcpy(p->buf + p->cur, u, n);
    p->len += n;
    p->cur += n;
}

enum prompt_result prompt_key(struct prompt *p, int key) {
    if (!p->active) return PROMPT_CANCEL;
    if (key != KEYS_TAB) p->tab_cycle = -1;
    switch (key) {
    case KEYS_ENTER:
        p->active = 0;
        if (p->len) hist_add(hist(p), p->buf);
        else hist_reset(hist(p));
        return PROMPT_DONE;
    case KEYS_ESC: case KEYS_CTRL('g'):
        p->active = 0;
        hist_reset(hist(p));
        return PROMPT_CANCEL;
    case KEYS_BACKSPACE:
        if (p->len == 0) {   /* backspace on an empty line leaves, as in vim */
            p->active = 0;
            hist_reset(hist(p));
            return PROMPT_CANCEL;
        }
        delete_range(p, prev_char(p, p->cur), p->cur);
        break;
    case KEYS_DELETE: case KEYS_CTRL('d'):
        delete_range(p, p->cur, next_char(p, p->cur));
        break;
    case KEYS_LEFT: case KEYS_CTRL('b'): p->cur = prev_char(p, p->cur); break;
    case KEYS_RIGHT: case KEYS_CTRL('f'): p->cur = next_char(p, p->cur); break;
    case KEYS_HOME: case KEYS_CTRL('a'): p->cur = 0; break;
    case KEYS_END: case KEYS_CTRL('e'): p->cur = p->len; break;
    case KEYS_CTRL('u'): delete_range(p, 0, p->cur); break;
    case KEYS_CTRL('k'): delete_range(p, p->cur, p->len); break;
    case KEYS_CTRL('w'): {
        size_t a = p->cur;
        while (a > 0 && p->buf[a - 1] == ' ') a--;
        while (a > 0 && p->buf[a - 1] != ' ') a--;
        delete_range(p, a, p->cur);
        break;
    }
    case KEYS_UP: {
        const char *s = hist_prev(hist(p), p->buf);
        if (s) set_line(p, s);
        break;
    }
    case KEYS_DOWN: {
        const char *s = hist_next(hist(p));
        if (s) set_line(p, s);
        break;
    }
    case KEYS_TAB: {
        if (!p->complete) break;
        char out[PROMPT_MAX];
        if (p->tab_cycle < 0) {
            memcpy(p->tab_base, p->buf, p->len + 1);
            p->tab_cycle = 0;
        }
        if (p->complete(p->complete_ctx, p->tab_base, p->tab_cycle, out)) {
            set_line(p, out);
            p->tab_cycle++;
        } else if (p->tab_cycle > 0) {
            /* Wrapped past the last candidate: back to the first. */
            p->tab_cycle = 0;
            if (p->complete(p->complete_ctx, p->tab_base, 0, out)) { set_line(p, out); p->tab_cycle = 1; }
        }
        break;
    }
    default:
        if (key >= 0x20 && key < KEYS_BASE && key != 0x7f) insert_cp(p, key);
        break;
    }
    return PROMPT_MORE;
}

int prompt_cursor_col(const struct prompt *p) {
    int w = 0;
    for (size_t i = 0; i < p->cur; i++)
        if ((p->buf[i] & 0xc0) != 0x80) w++;
    return w;
}
