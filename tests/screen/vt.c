/* vt: pty + libvterm screen-test harness (see vt.h).  Owns the child
 * process, the pty master and the emulator of one struct vt; nothing here is
 * process-wide. */
#ifndef _XOPEN_SOURCE           /* ncursesw's flags (through ui/) may set it already */
#define _XOPEN_SOURCE 700     /* ptsname() */
#endif
#include "screen/vt.h"
#include "ui/svg.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <vterm.h>

#define SHELL_LINE "$ probetop-vt-shell"

double vt_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Deadlines: generous defaults, stretched by PT_TIMEOUT_SCALE (sanitizers,
 * loaded CI machines).  Only a failing wait ever runs to its deadline. */
static int scaled(int ms) {
    const char *s = getenv("PT_TIMEOUT_SCALE");
    double k = s ? atof(s) : 1.0;
    if (!(k >= 1.0)) k = 1.0;
    return (int)(ms * k);
}

const char *vt_bin(void) {
    const char *b = getenv("PT_BIN");
    if (!b || !*b || access(b, X_OK) != 0) return NULL;
    return b;
}

/* ---- libvterm callbacks ---------------------------------------------- */

static void out_cb(const char *s, size_t len, void *user) {
    struct vt *vt = user;
    if (vt->out_len + len > vt->out_cap) {
        size_t cap = vt->out_cap ? vt->out_cap : 256;
        while (cap < vt->out_len + len) cap *= 2;
        char *p = realloc(vt->out, cap);
        if (!p) return;          /* dropped key bytes show up as a failed wait */
        vt->out = p;
        vt->out_cap = cap;
    }
    memcpy(vt->out + vt->out_len, s, len);
    vt->out_len += len;
}

static int prop_cb(VTermProp prop, VTermValue *val, void *user) {
    struct vt *vt = user;
    switch (prop) {
    case VTERM_PROP_ALTSCREEN: vt->altscreen = val->boolean; break;
    case VTERM_PROP_CURSORVISIBLE: vt->cursor_visible = val->boolean; break;
    case VTERM_PROP_MOUSE: vt->mouse_mode = val->number; break;
    case VTERM_PROP_TITLE:
        snprintf(vt->title, sizeof vt->title, "%s", val->string ? val->string : "");
        break;
    default: break;
    }
    return 1;
}

static int bell_cb(void *user) { (void)user; return 1; }

static const VTermScreenCallbacks screen_cbs = {
    .settermprop = prop_cb,
    .bell = bell_cb,
};

/* ---- raw stream scanner: DEC private modes ---------------------------- */

static void set_mode(struct vt *vt, int mode, bool on) {
    for (int i = 0; i < vt->nmodes; i++)
        if (vt->modes[i].mode == mode) { vt->modes[i].on = on; return; }
    if (vt->nmodes < VT_MODES) {
        vt->modes[vt->nmodes].mode = mode;
        vt->modes[vt->nmodes].on = on;
        vt->nmodes++;
    }
}

int vt_mode(const struct vt *vt, int mode) {
    for (int i = 0; i < vt->nmodes; i++)
        if (vt->modes[i].mode == mode) return vt->modes[i].on;
    return -1;
}

/* Bytes on their way to libvterm, in chunks. */
struct feed { struct vt *vt; size_t n; char b[4096]; };

static void feed_flush(struct feed *f) {
    if (f->n) vterm_input_write(f->vt->term, f->b, f->n);
    f->n = 0;
}

static void feed(struct feed *f, const char *s, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (f->n == sizeof f->b) feed_flush(f);
        f->b[f->n++] = s[i];
    }
}

/* A complete CSI (ESC [ esc_buf final).  Records DEC private modes, and
 * splits "CSI ? a;b h" into one sequence per mode: libvterm 0.1.4 applies
 * only the first parameter of DECSET/DECRST, and ncurses' xterm-256color
 * enables the mouse with "CSI ? 1006;1000 h". */
/* SGR with ':' sub-parameters ("38:2::R:G:B", what xterm-direct's
 * terminfo sends) rewritten with ';' ("38;2;R;G;B"), the form libvterm
 * 0.1.4 reads correctly; other sub-parameters keep their first number. */
static void sgr_colons(struct vt *vt) {
    char out[sizeof vt->esc_buf];
    size_t o = 0;
    const char *p = vt->esc_buf;
    while (*p && o + 24 < sizeof out) {
        size_t n = strcspn(p, ";");
        char param[64];
        snprintf(param, sizeof param, "%.*s", (int)(n < sizeof param ? n : sizeof param - 1), p);
        if (strchr(param, ':')) {
            long sub[8];
            int ns = 0;
            for (char *q = param; ns < 8;) {
                sub[ns++] = *q && *q != ':' ? strtol(q, &q, 10) : -1;
                q = strchr(q, ':');
                if (!q) break;
                q++;
            }
            if (ns >= 5 && (sub[0] == 38 || sub[0] == 48) && sub[1] == 2)
                o += (size_t)snprintf(out + o, sizeof out - o, "%ld;2;%ld;%ld;%ld", sub[0], sub[ns - 3] < 0 ? 0 : sub[ns - 3],
                                      sub[ns - 2] < 0 ? 0 : sub[ns - 2], sub[ns - 1] < 0 ? 0 : sub[ns - 1]);
            else if (ns >= 3 && (sub[0] == 38 || sub[0] == 48) && sub[1] == 5)
                o += (size_t)snprintf(out + o, sizeof out - o, "%ld;5;%ld", sub[0], sub[2] < 0 ? 0 : sub[2]);
            else
                o += (size_t)snprintf(out + o, sizeof out - o, "%ld", sub[0] < 0 ? 0 : sub[0]);
        } else {
            memcpy(out + o, param, strlen(param));
            o += strlen(param);
        }
        p += n;
        if (*p == ';') { out[o++] = ';'; p++; }
    }
    out[o] = 0;
    memcpy(vt->esc_buf, out, o + 1);
    vt->esc_len = (int)o;
}

static void csi_done(struct vt *vt, struct feed *f, char final) {
    vt->esc_buf[vt->esc_len] = 0;
    if (final == 'm' && strchr(vt->esc_buf, ':')) sgr_colons(vt);
    if (vt->esc_buf[0] != '?' || (final != 'h' && final != 'l') || !strchr(vt->esc_buf, ';')) {
        feed(f, "\x1b[", 2);
        feed(f, vt->esc_buf, (size_t)vt->esc_len);
        feed(f, &final, 1);
        if (vt->esc_buf[0] == '?' && (final == 'h' || final == 'l'))
            set_mode(vt, atoi(vt->esc_buf + 1), final == 'h');
        return;
    }
    char *p = vt->esc_buf + 1;
    for (;;) {
        char *end;
        long m = strtol(p, &end, 10);
        if (end != p) {
            char one[32];
            int n = snprintf(one, sizeof one, "\x1b[?%ld%c", m, final);
            feed(f, one, (size_t)n);
            set_mode(vt, (int)m, final == 'h');
        }
        if (*end != ';') break;
        p = end + 1;
    }
}

/* A complete OSC: an OSC 52 (clipboard) payload is kept in vt->clip. */
static void osc_done(struct vt *vt) {
    if (!vt->in_osc) return;
    vt->in_osc = false;
    vt->osc[vt->osc_len] = 0;
    if (strncmp(vt->osc, "52;", 3)) return;
    snprintf(vt->clip, sizeof vt->clip, "%s", vt->osc + 3);
    vt->nclip++;
}

/* Passes the program's output to libvterm, watching escape sequences.
 * States: 0 text, 1 after ESC, 2 in a CSI (held in esc_buf), 3 in a string
 * (OSC/DCS/APC/PM), 4 ESC inside a string, 5 an over-long CSI passed
 * through to its final byte. */
static void scan(struct vt *vt, const unsigned char *b, size_t n) {
    struct feed f;
    f.vt = vt;
    f.n = 0;
    for (size_t i = 0; i < n; i++) {
        char c = (char)b[i];
        switch (vt->esc_state) {
        case 0:
            if (c == 0x1b) vt->esc_state = 1;
            else feed(&f, &c, 1);
            break;
        case 1:
            if (c == '[') { vt->esc_state = 2; vt->esc_len = 0; break; }
            feed(&f, "\x1b", 1);
            if (c == 0x1b) break;                        /* a new ESC is pending */
            feed(&f, &c, 1);
            vt->esc_state = 0;
            vt->in_osc = c == ']';
            vt->osc_len = 0;
            if (c == ']' || c == 'P' || c == '_' || c == '^') vt->esc_state = 3;
            else if (c == '=') set_mode(vt, 66, true);
            else if (c == '>') set_mode(vt, 66, false);
            else if (c == 'c') vt->nmodes = 0;
            break;
        case 2:
            if (c >= 0x40 && c <= 0x7e) { csi_done(vt, &f, c); vt->esc_state = 0; }
            else if (c == 0x1b) {                        /* cancelled: pass what came */
                feed(&f, "\x1b[", 2);
                feed(&f, vt->esc_buf, (size_t)vt->esc_len);
                vt->esc_state = 1;
            } else if (vt->esc_len < (int)sizeof vt->esc_buf - 1) vt->esc_buf[vt->esc_len++] = c;
            else {
                feed(&f, "\x1b[", 2);
                feed(&f, vt->esc_buf, (size_t)vt->esc_len);
                feed(&f, &c, 1);
                vt->esc_state = 5;
            }
            break;
        case 3:
            feed(&f, &c, 1);
            if (c == 0x07) { vt->esc_state = 0; osc_done(vt); }
            else if (c == 0x1b) vt->esc_state = 4;
            else if (vt->in_osc && vt->osc_len < sizeof vt->osc - 1) vt->osc[vt->osc_len++] = c;
            break;
        case 4:
            feed(&f, &c, 1);
            vt->esc_state = c == '\\' ? 0 : 3;
            if (c == '\\') osc_done(vt);
            break;
        case 5:
            feed(&f, &c, 1);
            if (c >= 0x40 && c <= 0x7e) vt->esc_state = 0;
            break;
        }
    }
    feed_flush(&f);
}

/* ---- process and pty -------------------------------------------------- */

int vt_spawn(struct vt *vt, int cols, int rows, char *const argv[], const char *const env[]) {
    memset(vt, 0, sizeof *vt);
    vt->fd = -1;
    vt->cols = vt->min_cols = cols;
    vt->rows = vt->min_rows = rows;
    vt->cursor_visible = true;
    vt->timeout_ms = scaled(10000);

    vt->term = vterm_new(rows, cols);
    if (!vt->term) { fprintf(stderr, "vt: vterm_new failed\n"); return -1; }
    vterm_set_utf8(vt->term, 1);
    vterm_output_set_callback(vt->term, out_cb, vt);
    VTermState *st = vterm_obtain_state(vt->term);
    VTermColor fg, bg;
    vterm_color_rgb(&fg, VT_DEFAULT_FG >> 16, (VT_DEFAULT_FG >> 8) & 0xff, VT_DEFAULT_FG & 0xff);
    vterm_color_rgb(&bg, VT_DEFAULT_BG >> 16, (VT_DEFAULT_BG >> 8) & 0xff, VT_DEFAULT_BG & 0xff);
    vterm_state_set_default_colors(st, &fg, &bg);
    vt->screen = vterm_obtain_screen(vt->term);
    vterm_screen_enable_altscreen(vt->screen, 1);
    vterm_screen_set_callbacks(vt->screen, &screen_cbs, vt);
    vterm_screen_reset(vt->screen, 1);
    /* What the user's shell showed before; vt_restored() looks for it. */
    const char *pre = SHELL_LINE "\r\n";
    vterm_input_write(vt->term, pre, strlen(pre));

    struct winsize ws = { .ws_row = (unsigned short)rows, .ws_col = (unsigned short)cols };
    int fd;
    pid_t pid = forkpty(&fd, NULL, NULL, &ws);
    if (pid < 0) {
        fprintf(stderr, "vt: forkpty: %s\n", strerror(errno));
        vterm_free(vt->term);
        vt->term = NULL;
        return -1;
    }
    if (pid == 0) {
        setenv("TERM", "xterm-256color", 1);
        setenv("LANG", "C.UTF-8", 1);
        unsetenv("COLORTERM");
        unsetenv("NO_COLOR");
        unsetenv("LC_ALL");
        unsetenv("LC_CTYPE");
        unsetenv("TMUX");
        unsetenv("STY");
        /* The screens the tests were written for have no key bar (the
         * program's default shows it): a test that looks at it unsets this. */
        setenv("PROBETOP_KEYBAR", "off", 1);
        for (size_t i = 0; env && env[i]; i++) {
            const char *eq = strchr(env[i], '=');
            if (eq) {
                char name[256];
                size_t n = (size_t)(eq - env[i]);
                if (n >= sizeof name) n = sizeof name - 1;
                memcpy(name, env[i], n);
                name[n] = 0;
                setenv(name, eq + 1, 1);
            } else {
                unsetenv(env[i]);
            }
        }
        execv(argv[0], argv);
        fprintf(stderr, "vt: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    vt->pid = pid;
    vt->fd = fd;
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    return 0;
}

int vt_spawn_app(struct vt *vt, int cols, int rows, const char *const args[], const char *const env[]) {
    const char *bin = vt_bin();
    if (!bin) { fprintf(stderr, "vt: PT_BIN is not set to an executable\n"); return -1; }
    size_t n = 0;
    while (args && args[n]) n++;
    char **argv = calloc(n + 2, sizeof *argv);
    if (!argv) return -1;
    argv[0] = (char *)bin;
    for (size_t i = 0; i < n; i++) argv[i + 1] = (char *)args[i];
    int rc = vt_spawn(vt, cols, rows, argv, env);
    free(argv);
    return rc;
}

static void reap(struct vt *vt, int options) {
    if (vt->pid <= 0) return;
    int st;
    pid_t r = waitpid(vt->pid, &st, options);
    if (r == vt->pid) { vt->status = st; vt->pid = 0; }
}

/* Writes the queued bytes libvterm produced.  The master is non-blocking:
 * when the pty is full, keep reading so the child can drain it. */
static int flush_out(struct vt *vt) {
    size_t done = 0;
    int rc = 0;
    double deadline = vt_now() + vt->timeout_ms / 1000.0;
    while (done < vt->out_len && vt->fd >= 0) {
        ssize_t w = write(vt->fd, vt->out + done, vt->out_len - done);
        if (w > 0) { done += (size_t)w; continue; }
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && errno == EAGAIN && vt_now() < deadline) {
            struct pollfd p = { .fd = vt->fd, .events = POLLOUT };
            poll(&p, 1, 10);
            continue;
        }
        rc = -1;
        break;
    }
    vt->out_len = 0;
    return rc;
}

long vt_pump(struct vt *vt, int timeout_ms) {
    if (vt->fd < 0 || vt->eof) return -1;
    struct pollfd p = { .fd = vt->fd, .events = POLLIN };
    int r = poll(&p, 1, timeout_ms < 0 ? 0 : timeout_ms);
    if (r < 0) return errno == EINTR ? 0 : -1;
    if (r == 0) return 0;
    long total = 0;
    char buf[65536];
    for (;;) {
        ssize_t n = read(vt->fd, buf, sizeof buf);
        if (n > 0) {
            double t = vt_now();
            if (vt->bytes_mark == 0) vt->t_first = t;
            vt->t_last = t;
            vt->bytes_total += (uint64_t)n;
            vt->bytes_mark += (uint64_t)n;
            total += n;
            scan(vt, (const unsigned char *)buf, (size_t)n);
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EAGAIN) break;
        vt->eof = true;          /* EIO: every slave fd closed */
        break;
    }
    if (vt->out_len) flush_out(vt);
    return total;
}

void vt_mark(struct vt *vt) {
    vt->bytes_mark = 0;
    vt->t_first = 0;
    vt->t_mark = vt_now();
}

int vt_send_raw(struct vt *vt, const void *buf, size_t len) {
    if (vt->fd < 0) return -1;
    out_cb(buf, len, vt);
    return flush_out(vt);
}

/* ---- keys ------------------------------------------------------------- */

static const struct { const char *name; VTermKey key; VTermModifier mod; } keynames[] = {
    { "Enter", VTERM_KEY_ENTER, VTERM_MOD_NONE }, { "CR", VTERM_KEY_ENTER, VTERM_MOD_NONE },
    { "Tab", VTERM_KEY_TAB, VTERM_MOD_NONE }, { "S-Tab", VTERM_KEY_TAB, VTERM_MOD_SHIFT },
    { "BS", VTERM_KEY_BACKSPACE, VTERM_MOD_NONE }, { "Esc", VTERM_KEY_ESCAPE, VTERM_MOD_NONE },
    { "Up", VTERM_KEY_UP, VTERM_MOD_NONE }, { "Down", VTERM_KEY_DOWN, VTERM_MOD_NONE },
    { "Left", VTERM_KEY_LEFT, VTERM_MOD_NONE }, { "Right", VTERM_KEY_RIGHT, VTERM_MOD_NONE },
    { "S-Up", VTERM_KEY_UP, VTERM_MOD_SHIFT }, { "S-Down", VTERM_KEY_DOWN, VTERM_MOD_SHIFT },
    { "S-Left", VTERM_KEY_LEFT, VTERM_MOD_SHIFT }, { "S-Right", VTERM_KEY_RIGHT, VTERM_MOD_SHIFT },
    { "Home", VTERM_KEY_HOME, VTERM_MOD_NONE }, { "End", VTERM_KEY_END, VTERM_MOD_NONE },
    { "PgUp", VTERM_KEY_PAGEUP, VTERM_MOD_NONE }, { "PgDn", VTERM_KEY_PAGEDOWN, VTERM_MOD_NONE },
    { "Ins", VTERM_KEY_INS, VTERM_MOD_NONE }, { "Del", VTERM_KEY_DEL, VTERM_MOD_NONE },
};

static int send_mouse(struct vt *vt, const char *what, const char *args) {
    int row, col;
    if (sscanf(args, "%d,%d", &row, &col) != 2 || row < 0 || col < 0 ||
        row >= vt->rows || col >= vt->cols) {
        fprintf(stderr, "vt: bad mouse position <%s:%s>\n", what, args);
        return -1;
    }
    vterm_mouse_move(vt->term, row, col, VTERM_MOD_NONE);
    if (!strcmp(what, "click") || !strcmp(what, "rclick")) {
        int b = what[0] == 'r' ? 3 : 1;
        vterm_mouse_button(vt->term, b, true, VTERM_MOD_NONE);
        vterm_mouse_button(vt->term, b, false, VTERM_MOD_NONE);
    } else if (!strcmp(what, "dclick")) {
        for (int i = 0; i < 2; i++) {
            vterm_mouse_button(vt->term, 1, true, VTERM_MOD_NONE);
            vterm_mouse_button(vt->term, 1, false, VTERM_MOD_NONE);
        }
    } else if (!strcmp(what, "press") || !strcmp(what, "release")) {
        /* halves of a drag: a press, then (moved, or after the program's
         * click interval) a release */
        vterm_mouse_button(vt->term, 1, what[0] == 'p', VTERM_MOD_NONE);
    } else if (!strcmp(what, "wheelup")) {
        vterm_mouse_button(vt->term, 4, true, VTERM_MOD_NONE);
    } else if (!strcmp(what, "wheeldown")) {
        vterm_mouse_button(vt->term, 5, true, VTERM_MOD_NONE);
    } else {
        fprintf(stderr, "vt: unknown mouse event <%s:...>\n", what);
        return -1;
    }
    return 0;
}

static int send_named(struct vt *vt, const char *name) {
    for (size_t i = 0; i < sizeof keynames / sizeof keynames[0]; i++)
        if (!strcmp(keynames[i].name, name)) {
            vterm_keyboard_key(vt->term, keynames[i].key, keynames[i].mod);
            return 0;
        }
    if (!strcmp(name, "lt")) { out_cb("<", 1, vt); return 0; }
    if (name[0] == 'F' && name[1] >= '1' && name[1] <= '9') {
        int n = atoi(name + 1);
        if (n >= 1 && n <= 24) { vterm_keyboard_key(vt->term, VTERM_KEY_FUNCTION(n), VTERM_MOD_NONE); return 0; }
    }
    if ((name[0] == 'C' || name[0] == 'M') && name[1] == '-' && name[2] && !name[3]) {
        vterm_keyboard_unichar(vt->term, (uint32_t)(unsigned char)name[2],
                               name[0] == 'C' ? VTERM_MOD_CTRL : VTERM_MOD_ALT);
        return 0;
    }
    const char *colon = strchr(name, ':');
    if (colon) {
        char what[16];
        size_t n = (size_t)(colon - name);
        if (n < sizeof what) {
            memcpy(what, name, n);
            what[n] = 0;
            return send_mouse(vt, what, colon + 1);
        }
    }
    fprintf(stderr, "vt: unknown key <%s>\n", name);
    return -1;
}

int vt_send(struct vt *vt, const char *keys) {
    if (vt->fd < 0) return -1;
    const char *p = keys;
    while (*p) {
        if (*p == '<') {
            const char *end = strchr(p, '>');
            if (end && end > p + 1 && end - p < 40) {
                char name[40];
                memcpy(name, p + 1, (size_t)(end - p - 1));
                name[end - p - 1] = 0;
                if (send_named(vt, name) < 0) { vt->out_len = 0; return -1; }
                p = end + 1;
                continue;
            }
        }
        out_cb(p, 1, vt);        /* UTF-8 goes through byte by byte */
        p++;
    }
    return flush_out(vt);
}

/* ---- reading the screen ----------------------------------------------- */

static size_t utf8_put(char *o, uint32_t c) {
    if (c < 0x80) { o[0] = (char)c; return 1; }
    if (c < 0x800) { o[0] = (char)(0xc0 | (c >> 6)); o[1] = (char)(0x80 | (c & 0x3f)); return 2; }
    if (c < 0x10000) {
        o[0] = (char)(0xe0 | (c >> 12)); o[1] = (char)(0x80 | ((c >> 6) & 0x3f));
        o[2] = (char)(0x80 | (c & 0x3f)); return 3;
    }
    o[0] = (char)(0xf0 | (c >> 18)); o[1] = (char)(0x80 | ((c >> 12) & 0x3f));
    o[2] = (char)(0x80 | ((c >> 6) & 0x3f)); o[3] = (char)(0x80 | (c & 0x3f)); return 4;
}

/* Row text into out (cap bytes); colof[i] = cell column of byte i when
 * non-NULL.  Returns the length after trimming trailing blanks. */
static size_t row_text(struct vt *vt, int row, char *out, size_t cap, int *colof) {
    size_t len = 0, keep = 0;
    for (int col = 0; col < vt->cols; col++) {
        VTermScreenCell c;
        VTermPos pos = { .row = row, .col = col };
        if (!vterm_screen_get_cell(vt->screen, pos, &c)) continue;
        if (c.chars[0] == (uint32_t)-1) continue;           /* right half of a wide glyph */
        char tmp[4 * VTERM_MAX_CHARS_PER_CELL + 1];
        size_t n = 0;
        if (c.chars[0] == 0) tmp[n++] = ' ';
        else
            for (int k = 0; k < VTERM_MAX_CHARS_PER_CELL && c.chars[k]; k++) n += utf8_put(tmp + n, c.chars[k]);
        if (len + n + 1 > cap) break;
        for (size_t k = 0; k < n; k++) {
            if (colof) colof[len + k] = col;
            out[len + k] = tmp[k];
        }
        len += n;
        if (!(n == 1 && tmp[0] == ' ')) keep = len;
    }
    out[keep] = 0;
    return keep;
}

const char *vt_row_text(struct vt *vt, int row) {
    char *b = vt->rowbuf[vt->rowbuf_next++ % VT_ROWBUF];
    b[0] = 0;
    if (row < 0 || row >= vt->rows) return b;
    row_text(vt, row, b, sizeof vt->rowbuf[0], NULL);
    return b;
}

const char *vt_screen_text(struct vt *vt) {
    size_t cap = (size_t)vt->rows * ((size_t)vt->cols * 4 * VTERM_MAX_CHARS_PER_CELL + 1) + 1;
    char *t = realloc(vt->textbuf, cap);
    if (!t) return "";
    vt->textbuf = t;
    size_t len = 0;
    for (int r = 0; r < vt->rows; r++) {
        len += row_text(vt, r, t + len, cap - len - 1, NULL);
        t[len++] = '\n';
    }
    t[len] = 0;
    return t;
}

bool vt_find_from(struct vt *vt, const char *text, int from_row, int *row, int *col) {
    size_t cap = (size_t)vt->cols * 4 * VTERM_MAX_CHARS_PER_CELL + 1;
    char *buf = malloc(cap);
    int *colof = malloc(cap * sizeof *colof);
    bool found = false;
    for (int r = from_row < 0 ? 0 : from_row; buf && colof && r < vt->rows && !found; r++) {
        row_text(vt, r, buf, cap, colof);
        char *hit = strstr(buf, text);
        if (hit) {
            if (row) *row = r;
            if (col) *col = colof[hit - buf];
            found = true;
        }
    }
    free(buf);
    free(colof);
    return found;
}

int vt_col_of(struct vt *vt, int row, const char *text) {
    if (row < 0 || row >= vt->rows) return -1;
    size_t cap = (size_t)vt->cols * 4 * VTERM_MAX_CHARS_PER_CELL + 1;
    char *buf = malloc(cap);
    int *colof = malloc(cap * sizeof *colof);
    int col = -1;
    if (buf && colof) {
        row_text(vt, row, buf, cap, colof);
        char *hit = strstr(buf, text);
        if (hit) col = colof[hit - buf];
    }
    free(buf);
    free(colof);
    return col;
}

bool vt_find(struct vt *vt, const char *text, int *row, int *col) {
    return vt_find_from(vt, text, 0, row, col);
}

static uint32_t rgb_of(struct vt *vt, VTermColor col) {
    vterm_screen_convert_color_to_rgb(vt->screen, &col);
    return ((uint32_t)col.rgb.red << 16) | ((uint32_t)col.rgb.green << 8) | col.rgb.blue;
}

int vt_cell(struct vt *vt, int row, int col, struct vt_cell *cell) {
    memset(cell, 0, sizeof *cell);
    if (row < 0 || row >= vt->rows || col < 0 || col >= vt->cols) return -1;
    VTermScreenCell c;
    VTermPos pos = { .row = row, .col = col };
    if (!vterm_screen_get_cell(vt->screen, pos, &c)) return -1;
    size_t n = 0;
    if (c.chars[0] != (uint32_t)-1)
        for (int k = 0; k < VTERM_MAX_CHARS_PER_CELL && c.chars[k]; k++)
            if (n + 4 < sizeof cell->glyph) n += utf8_put(cell->glyph + n, c.chars[k]);
    cell->glyph[n] = 0;
    cell->ch = c.chars[0] == (uint32_t)-1 ? 0 : c.chars[0];
    cell->width = c.width;
    cell->fg_default = VTERM_COLOR_IS_DEFAULT_FG(&c.fg);
    cell->bg_default = VTERM_COLOR_IS_DEFAULT_BG(&c.bg);
    cell->fg = rgb_of(vt, c.fg);
    cell->bg = rgb_of(vt, c.bg);
    cell->bold = c.attrs.bold;
    cell->reverse = c.attrs.reverse;
    cell->underline = c.attrs.underline != 0;
    cell->italic = c.attrs.italic;
    return 0;
}

uint64_t vt_hash_rows(struct vt *vt, int r0, int r1) {
    uint64_t h = 0xcbf29ce484222325ull;   /* FNV-1a */
    if (r0 < 0) r0 = 0;
    if (r1 > vt->rows) r1 = vt->rows;
    for (int r = r0; r < r1; r++)
        for (int c = 0; c < vt->cols; c++) {
            struct vt_cell cell;
            vt_cell(vt, r, c, &cell);
            /* What a viewer can tell apart: a blank is a blank, whether
             * written as a space or never written, in any ink. */
            bool blank = (cell.ch == 0 || cell.ch == ' ') && !cell.underline;
            uint32_t parts[5] = { blank ? ' ' : cell.ch, blank ? 0 : vt_cell_ink(&cell), vt_cell_paper(&cell),
                                  blank ? 0 : (uint32_t)(cell.bold | cell.underline << 1 | cell.italic << 2),
                                  (uint32_t)(r * 65536 + c) };
            const unsigned char *b = (const unsigned char *)parts;
            for (size_t i = 0; i < sizeof parts; i++) h = (h ^ b[i]) * 0x100000001b3ull;
        }
    return h;
}

uint32_t vt_cell_ink(const struct vt_cell *c) { return c->reverse ? c->bg : c->fg; }
uint32_t vt_cell_paper(const struct vt_cell *c) { return c->reverse ? c->fg : c->bg; }

bool vt_in_palette(struct vt *vt, uint32_t rgb) {
    VTermState *st = vterm_obtain_state(vt->term);
    for (int i = 0; i < 256; i++) {
        VTermColor c;
        vterm_state_get_palette_color(st, i, &c);
        vterm_state_convert_color_to_rgb(st, &c);
        if ((((uint32_t)c.rgb.red << 16) | ((uint32_t)c.rgb.green << 8) | c.rgb.blue) == rgb) return true;
    }
    return false;
}

void vt_cursor(struct vt *vt, int *row, int *col) {
    VTermPos p;
    vterm_state_get_cursorpos(vterm_obtain_state(vt->term), &p);
    if (row) *row = p.row;
    if (col) *col = p.col;
}

/* ---- waiting ---------------------------------------------------------- */

int vt_wait_until(struct vt *vt, bool (*pred)(struct vt *, void *), void *arg, int timeout_ms) {
    double deadline = vt_now() + (timeout_ms > 0 ? scaled(timeout_ms) : vt->timeout_ms) / 1000.0;
    for (;;) {
        if (pred(vt, arg) && vt_settle(vt) == 0 && pred(vt, arg)) return 0;
        double left = deadline - vt_now();
        if (left <= 0) return -1;
        if (vt->eof || vt->fd < 0) {
            /* Child gone: its last words are all in; decide once more. */
            reap(vt, WNOHANG);
            return pred(vt, arg) ? 0 : -1;
        }
        int ms = (int)(left * 1000) + 1;
        if (vt_pump(vt, ms > 50 ? 50 : ms) < 0 && !vt->eof) return -1;
    }
}

static bool has_text(struct vt *vt, void *arg) { return vt_find(vt, arg, NULL, NULL); }
static bool lacks_text(struct vt *vt, void *arg) { return !vt_find(vt, arg, NULL, NULL); }

int vt_wait_text(struct vt *vt, const char *text, int timeout_ms) {
    return vt_wait_until(vt, has_text, (void *)text, timeout_ms);
}

int vt_wait_gone(struct vt *vt, const char *text, int timeout_ms) {
    return vt_wait_until(vt, lacks_text, (void *)text, timeout_ms);
}

struct change { int row; const char *before; };

static bool changed(struct vt *vt, void *arg) {
    struct change *c = arg;
    const char *now = c->row < 0 ? vt_screen_text(vt) : vt_row_text(vt, c->row);
    return strcmp(now, c->before) != 0;
}

int vt_wait_change(struct vt *vt, int row, const char *before, int timeout_ms) {
    struct change c = { row, before };
    return vt_wait_until(vt, changed, &c, timeout_ms);
}

bool vt_wait_failed(struct vt *vt, const char *file, int line, const char *cond) {
    if (vt->broken) return false;
    vt->broken = true;
    if (vt->pid > 0) reap(vt, WNOHANG);
    if (vt->pid > 0 && !vt->eof)
        fprintf(stderr, "%s:%d: VT_WAIT(%s) failed: not true after %.1f s\n", file, line, cond,
                vt->timeout_ms / 1000.0);
    else if (vt->pid > 0 || !(WIFEXITED(vt->status) || WIFSIGNALED(vt->status)))
        fprintf(stderr, "%s:%d: VT_WAIT(%s) failed: the program closed the terminal\n", file, line, cond);
    else if (WIFSIGNALED(vt->status))
        fprintf(stderr, "%s:%d: VT_WAIT(%s) failed: the program was killed by signal %d\n", file, line, cond,
                WTERMSIG(vt->status));
    else
        fprintf(stderr, "%s:%d: VT_WAIT(%s) failed: the program exited with status %d\n", file, line, cond,
                WEXITSTATUS(vt->status));
    vt_dump(vt, stderr);
    return true;
}

int vt_wait_idle(struct vt *vt, int quiet_ms) {
    double deadline = vt_now() + vt->timeout_ms / 1000.0;
    while (vt_now() < deadline) {
        long n = vt_pump(vt, quiet_ms);
        if (n <= 0) return 0;    /* quiet for quiet_ms, or gone (quiet forever) */
    }
    return -1;
}

int vt_settle(struct vt *vt) {
    return vt_wait_idle(vt, VT_SETTLE_MS);
}

int vt_wait_exit(struct vt *vt, int timeout_ms, int *status) {
    double deadline = vt_now() + (timeout_ms > 0 ? scaled(timeout_ms) : vt->timeout_ms) / 1000.0;
    while (vt->pid > 0) {
        reap(vt, WNOHANG);
        if (vt->pid <= 0) break;
        if (vt_now() >= deadline) return -1;
        if (vt->eof || vt_pump(vt, 20) < 0) {
            struct timespec ts = { 0, 5 * 1000 * 1000 };
            nanosleep(&ts, NULL);    /* slave closed, process not yet reaped */
        }
    }
    /* Whatever it wrote last: read on to the end of the terminal (EIO once
     * every slave fd is closed), not just what is readable now.  Linux hands
     * a pty's last bytes to the master side from a work queue, so they can
     * arrive after the child is reaped; a poll of 0 ms then missed the
     * terminal's restore sequence now and then. */
    double drain = vt_now() + scaled(2000) / 1000.0;
    while (!vt->eof && vt_now() < drain && vt_pump(vt, 20) >= 0) {}
    if (status) *status = vt->status;
    return 0;
}

int vt_resize(struct vt *vt, int cols, int rows) {
    if (cols < 1) cols = 1;
    if (rows < 1) rows = 1;
    vt->cols = cols;
    vt->rows = rows;
    if (cols < vt->min_cols) vt->min_cols = cols;
    if (rows < vt->min_rows) vt->min_rows = rows;
    vterm_set_size(vt->term, rows, cols);
    if (vt->fd < 0) return -1;
    struct winsize ws = { .ws_row = (unsigned short)rows, .ws_col = (unsigned short)cols };
    return ioctl(vt->fd, TIOCSWINSZ, &ws) == 0 ? 0 : -1;
}

/* ---- restore check ---------------------------------------------------- */

bool vt_restored(struct vt *vt, char *why, size_t whylen) {
    char msg[512] = "";
    size_t m = 0;
#define LEFT(...) (m += (size_t)snprintf(msg + m, m < sizeof msg ? sizeof msg - m : 0, __VA_ARGS__))
    if (vt->altscreen) LEFT("still on the alternate screen; ");
    if (!vt->cursor_visible) LEFT("cursor hidden; ");
    if (vt->mouse_mode) LEFT("mouse reporting on (mode %d); ", vt->mouse_mode);
    static const struct { int mode; const char *what; } off[] = {
        { 1, "application cursor keys (?1)" }, { 66, "application keypad (ESC =)" },
        { 1000, "mouse ?1000" }, { 1002, "mouse ?1002" }, { 1003, "mouse ?1003" },
        { 1006, "SGR mouse ?1006" }, { 2004, "bracketed paste ?2004" }, { 1049, "alt screen ?1049" },
    };
    for (size_t i = 0; i < sizeof off / sizeof off[0]; i++)
        if (vt_mode(vt, off[i].mode) == 1) LEFT("%s left on; ", off[i].what);
    VTermState *st = vterm_obtain_state(vt->term);
    VTermValue v;
    if (vterm_state_get_penattr(st, VTERM_ATTR_BOLD, &v) && v.boolean) LEFT("pen bold; ");
    if (vterm_state_get_penattr(st, VTERM_ATTR_REVERSE, &v) && v.boolean) LEFT("pen reverse; ");
    if (vterm_state_get_penattr(st, VTERM_ATTR_UNDERLINE, &v) && v.number) LEFT("pen underline; ");
    if (vterm_state_get_penattr(st, VTERM_ATTR_FOREGROUND, &v) && !VTERM_COLOR_IS_DEFAULT_FG(&v.color))
        LEFT("pen foreground colour set; ");
    if (vterm_state_get_penattr(st, VTERM_ATTR_BACKGROUND, &v) && !VTERM_COLOR_IS_DEFAULT_BG(&v.color))
        LEFT("pen background colour set; ");
    /* The shell line sits on row 0 of the normal screen, the cursor below
     * it; a terminal keeps only what fitted in the smallest size it was
     * given (one row pushes the line out). */
    char shell[64];
    snprintf(shell, sizeof shell, "%.*s", vt->min_cols, SHELL_LINE);
    if (vt->min_rows >= 2 && strncmp(vt_row_text(vt, 0), shell, strlen(shell)) != 0)
        LEFT("shell screen not restored; ");
    if (vt->fd >= 0 && vt->pid == 0) {
        /* The line discipline: back to cooked mode with echo. */
        const char *name = ptsname(vt->fd);
        int s = name ? open(name, O_RDWR | O_NOCTTY) : -1;
        struct termios t;
        if (s >= 0 && tcgetattr(s, &t) == 0) {
            if (!(t.c_lflag & ICANON)) LEFT("tty left in raw/cbreak mode; ");
            if (!(t.c_lflag & ECHO)) LEFT("tty echo off; ");
        }
        if (s >= 0) close(s);
    }
#undef LEFT
    if (why && whylen) snprintf(why, whylen, "%s", msg);
    return msg[0] == 0;
}

/* ---- debugging -------------------------------------------------------- */

void vt_dump(struct vt *vt, FILE *f) {
    int cr, cc;
    vt_cursor(vt, &cr, &cc);
    fprintf(f, "---- screen %dx%d cursor %d,%d%s alt=%d mouse=%d bytes=%llu ----\n",
            vt->cols, vt->rows, cr, cc, vt->cursor_visible ? "" : " (hidden)",
            vt->altscreen, vt->mouse_mode, (unsigned long long)vt->bytes_total);
    for (int r = 0; r < vt->rows; r++) fprintf(f, "%3d|%s\n", r, vt_row_text(vt, r));
    fprintf(f, "----\n");
}

void vt_close(struct vt *vt) {
    if (vt->pid > 0) {
        kill(vt->pid, SIGTERM);
        double deadline = vt_now() + 2.0;
        while (vt->pid > 0 && vt_now() < deadline) {
            reap(vt, WNOHANG);
            if (vt->pid > 0 && (vt->eof || vt_pump(vt, 20) < 0)) {
                struct timespec ts = { 0, 5 * 1000 * 1000 };
                nanosleep(&ts, NULL);
            }
        }
        if (vt->pid > 0) { kill(vt->pid, SIGKILL); reap(vt, 0); }
    }
    if (vt->fd >= 0) close(vt->fd);
    vt->fd = -1;
    if (vt->term) vterm_free(vt->term);
    vt->term = NULL;
    vt->screen = NULL;
    free(vt->out);
    vt->out = NULL;
    vt->out_len = vt->out_cap = 0;
    free(vt->textbuf);
    vt->textbuf = NULL;
}

/* ---- SVG -------------------------------------------------------------- */

/* The screen as the program's own SVG writer draws a screen (ui/svg.h:
 * the same picture `:export` makes), from libvterm's cells: ink and paper
 * with reverse applied, the default background left to the picture. */
int vt_svg(struct vt *vt, const char *path, const char *title) {
    struct svg_grid g;
    if (svg_grid_init(&g, vt->rows, vt->cols) != 0) return -1;
    for (int r = 0; r < vt->rows; r++)
        for (int c = 0; c < vt->cols; c++) {
            struct vt_cell v;
            vt_cell(vt, r, c, &v);
            struct svg_cell *o = svg_grid_at(&g, r, c);
            o->ch = v.ch;
            o->width = (uint8_t)(v.width > 1 ? 2 : 1);
            o->fg = vt_cell_ink(&v);
            o->bg = vt_cell_paper(&v);
            o->flags = (uint8_t)((v.bold ? SVG_BOLD : 0) | (v.italic ? SVG_ITALIC : 0) |
                                 (v.underline ? SVG_UNDERLINE : 0) | (!v.reverse && v.bg_default ? SVG_BG_DEFAULT : 0));
        }
    struct pt_error err;
    int rc = svg_save(path, &g, title ? title : "probetop", &err);
    if (rc != 0) fprintf(stderr, "vt: %s\n", err.msg);
    svg_grid_free(&g);
    return rc;
}

int vt_shot(struct vt *vt, const char *name, const char *title) {
    const char *dir = getenv("PT_SHOTS");
    if (!dir || !*dir) return 1;
    mkdir(dir, 0777);
    char path[4096];
    if (snprintf(path, sizeof path, "%s/%s.svg", dir, name) >= (int)sizeof path) return -1;
    return vt_svg(vt, path, title);
}
