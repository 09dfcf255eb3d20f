/* svg: terminal cells as an SVG picture (see svg.h). */
#include "ui/svg.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ui/palette.h"

#define CW 9.0        /* cell width: 0.6em of a 15px monospace font */
#define CH 18.0       /* cell height */
#define PAD 12.0
#define BAR 30.0      /* window title bar */

int svg_grid_init(struct svg_grid *g, int rows, int cols) {
    g->rows = g->cols = 0;
    g->cells = NULL;
    if (rows < 0 || cols < 0 || rows > 10000 || cols > 10000) return -1;
    size_t n = (size_t)rows * (size_t)cols;
    g->cells = malloc((n ? n : 1) * sizeof *g->cells);
    if (!g->cells) return -1;
    for (size_t i = 0; i < n; i++)
        g->cells[i] = (struct svg_cell){' ', SVG_DEFAULT_FG, SVG_DEFAULT_BG, SVG_FG_DEFAULT | SVG_BG_DEFAULT, 1};
    g->rows = rows;
    g->cols = cols;
    return 0;
}

void svg_grid_free(struct svg_grid *g) {
    free(g->cells);
    g->cells = NULL;
    g->rows = g->cols = 0;
}

struct svg_cell *svg_grid_at(struct svg_grid *g, int row, int col) {
    if (row < 0 || col < 0 || row >= g->rows || col >= g->cols) return NULL;
    return &g->cells[(size_t)row * (size_t)g->cols + (size_t)col];
}

uint32_t svg_xterm_rgb(int index) {
    struct rgb c = palette_xterm_rgb(index);
    return ((uint32_t)c.r << 16) | ((uint32_t)c.g << 8) | c.b;
}

/* ---- text with SGR escapes -> cells ---------------------------------- */

/* Decodes one UTF-8 sequence at s (n bytes left); returns its length
 * (1 for an invalid byte, which becomes U+FFFD). */
static size_t utf8_next(const unsigned char *s, size_t n, uint32_t *cp) {
    unsigned c = s[0];
    size_t len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
    if (!len || len > n) { *cp = 0xfffd; return 1; }
    uint32_t v = len == 1 ? c : len == 2 ? (c & 0x1f) : len == 3 ? (c & 0x0f) : (c & 0x07);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80) { *cp = 0xfffd; return 1; }
        v = (v << 6) | (s[i] & 0x3f);
    }
    *cp = v;
    return len;
}

static void sgr(struct svg_cell *pen, const int *p, int np) {
    if (np == 0) { p = (const int[]){0}; np = 1; }
    for (int i = 0; i < np; i++) {
        int v = p[i];
        if (v == 0) { pen->flags = SVG_FG_DEFAULT | SVG_BG_DEFAULT; pen->fg = SVG_DEFAULT_FG; pen->bg = SVG_DEFAULT_BG; }
        else if (v == 1) pen->flags |= SVG_BOLD;
        else if (v == 3) pen->flags |= SVG_ITALIC;
        else if (v == 4) pen->flags |= SVG_UNDERLINE;
        else if (v == 7) pen->flags |= SVG_REVERSE;
        else if (v == 22) pen->flags &= (uint8_t)~SVG_BOLD;
        else if (v == 23) pen->flags &= (uint8_t)~SVG_ITALIC;
        else if (v == 24) pen->flags &= (uint8_t)~SVG_UNDERLINE;
        else if (v == 27) pen->flags &= (uint8_t)~SVG_REVERSE;
        else if ((v >= 30 && v <= 37) || (v >= 90 && v <= 97)) {
            pen->fg = svg_xterm_rgb(v >= 90 ? v - 90 + 8 : v - 30);
            pen->flags &= (uint8_t)~SVG_FG_DEFAULT;
        } else if ((v >= 40 && v <= 47) || (v >= 100 && v <= 107)) {
            pen->bg = svg_xterm_rgb(v >= 100 ? v - 100 + 8 : v - 40);
            pen->flags &= (uint8_t)~SVG_BG_DEFAULT;
        } else if (v == 39) { pen->fg = SVG_DEFAULT_FG; pen->flags |= SVG_FG_DEFAULT; }
        else if (v == 49) { pen->bg = SVG_DEFAULT_BG; pen->flags |= SVG_BG_DEFAULT; }
        else if ((v == 38 || v == 48) && i + 1 < np) {
            uint32_t rgb;
            if (p[i + 1] == 5 && i + 2 < np) { rgb = svg_xterm_rgb(p[i + 2] & 255); i += 2; }
            else if (p[i + 1] == 2 && i + 4 < np) {
                rgb = ((uint32_t)(p[i + 2] & 255) << 16) | ((uint32_t)(p[i + 3] & 255) << 8) | (uint32_t)(p[i + 4] & 255);
                i += 4;
            } else break;
            if (v == 38) { pen->fg = rgb; pen->flags &= (uint8_t)~SVG_FG_DEFAULT; }
            else { pen->bg = rgb; pen->flags &= (uint8_t)~SVG_BG_DEFAULT; }
        }
    }
}

/* One pass over the text: counts the grid's size (g NULL) or fills it. */
static void text_pass(const char *text, size_t len, struct svg_grid *g, int *rows, int *cols) {
    const unsigned char *s = (const unsigned char *)text;
    struct svg_cell pen = {' ', SVG_DEFAULT_FG, SVG_DEFAULT_BG, SVG_FG_DEFAULT | SVG_BG_DEFAULT, 1};
    int r = 0, c = 0, maxc = 0;
    size_t i = 0;
    while (i < len) {
        if (s[i] == '\033') {
            i++;
            if (i < len && s[i] == '[') {
                int p[32], np = 0, cur = 0, have = 0;
                for (i++; i < len && s[i] >= 0x20 && s[i] < 0x40; i++) {
                    if (s[i] >= '0' && s[i] <= '9') { cur = cur * 10 + (s[i] - '0'); have = 1; if (cur > 100000) cur = 100000; }
                    else if (s[i] == ';' || s[i] == ':') { if (np < 32) p[np++] = cur; cur = 0; have = 0; }
                }
                if (have && np < 32) p[np++] = cur;
                if (i < len && s[i] == 'm') sgr(&pen, p, np);
                if (i < len) i++;
            } else if (i < len) i++;
            continue;
        }
        if (s[i] == '\n') { r++; c = 0; i++; continue; }
        if (s[i] == '\r') { c = 0; i++; continue; }
        uint32_t cp;
        i += utf8_next(s + i, len - i, &cp);
        if (cp == '\t') {
            int to = (c / 8 + 1) * 8;
            while (c < to) {
                struct svg_cell *cell = g ? svg_grid_at(g, r, c) : NULL;
                if (cell) { *cell = pen; cell->ch = ' '; }
                c++;
            }
        } else {
            if (cp < 0x20 || cp == 0x7f) cp = ' ';
            struct svg_cell *cell = g ? svg_grid_at(g, r, c) : NULL;
            if (cell) { *cell = pen; cell->ch = cp; }
            c++;
        }
        if (c > maxc) maxc = c;
    }
    if (c > 0) r++;
    if (rows) *rows = r;
    if (cols) *cols = maxc;
}

int svg_grid_text(struct svg_grid *g, const char *text, size_t len) {
    int rows, cols;
    text_pass(text, len, NULL, &rows, &cols);
    if (svg_grid_init(g, rows, cols) != 0) return -1;
    text_pass(text, len, g, NULL, NULL);
    return 0;
}

/* ---- the picture ------------------------------------------------------ */

static uint32_t ink(const struct svg_cell *c) {
    uint32_t fg = c->flags & SVG_FG_DEFAULT ? SVG_DEFAULT_FG : c->fg;
    uint32_t bg = c->flags & SVG_BG_DEFAULT ? SVG_DEFAULT_BG : c->bg;
    return c->flags & SVG_REVERSE ? bg : fg;
}

static uint32_t paper(const struct svg_cell *c) {
    uint32_t fg = c->flags & SVG_FG_DEFAULT ? SVG_DEFAULT_FG : c->fg;
    uint32_t bg = c->flags & SVG_BG_DEFAULT ? SVG_DEFAULT_BG : c->bg;
    return c->flags & SVG_REVERSE ? fg : bg;
}

static int paper_default(const struct svg_cell *c) {
    return !(c->flags & SVG_REVERSE) && (c->flags & SVG_BG_DEFAULT);
}

static void put_utf8(FILE *f, uint32_t cp) {
    if (cp < 0x20 || cp == 0x7f || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff || cp == 0xfffe || cp == 0xffff) cp = ' ';
    if (cp == '&') fputs("&amp;", f);
    else if (cp == '<') fputs("&lt;", f);
    else if (cp == '>') fputs("&gt;", f);
    else if (cp == '"') fputs("&quot;", f);
    else if (cp < 0x80) fputc((int)cp, f);
    else if (cp < 0x800) { fputc(0xc0 | (int)(cp >> 6), f); fputc(0x80 | (int)(cp & 0x3f), f); }
    else if (cp < 0x10000) {
        fputc(0xe0 | (int)(cp >> 12), f); fputc(0x80 | (int)((cp >> 6) & 0x3f), f); fputc(0x80 | (int)(cp & 0x3f), f);
    } else {
        fputc(0xf0 | (int)(cp >> 18), f); fputc(0x80 | (int)((cp >> 12) & 0x3f), f);
        fputc(0x80 | (int)((cp >> 6) & 0x3f), f); fputc(0x80 | (int)(cp & 0x3f), f);
    }
}

static void put_text(FILE *f, const char *s) {
    const unsigned char *u = (const unsigned char *)s;
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        i += utf8_next(u + i, n - i, &cp);
        put_utf8(f, cp);
    }
}

static void rect(FILE *f, double x, double y, double w, double h, uint32_t rgb, double opacity) {
    fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"#%06x\"", x, y, w, h, rgb);
    if (opacity < 1.0) fprintf(f, " fill-opacity=\"%.2f\"", opacity);
    fputs("/>\n", f);
}

/* Block elements U+2580..U+259F as rectangles in the ink colour. */
static void block_rects(FILE *f, uint32_t ch, double x, double y, uint32_t c) {
    const double w = CW, h = CH;
    if (ch < 0x2580 || ch > 0x259f) return;
    if (ch == 0x2580) rect(f, x, y, w, h / 2, c, 1);
    else if (ch >= 0x2581 && ch <= 0x2588) { double k = (ch - 0x2580) / 8.0; rect(f, x, y + h * (1 - k), w, h * k, c, 1); }
    else if (ch >= 0x2589 && ch <= 0x258f) { double k = (0x2590 - ch) / 8.0; rect(f, x, y, w * k, h, c, 1); }
    else if (ch == 0x2590) rect(f, x + w / 2, y, w / 2, h, c, 1);
    else if (ch >= 0x2591 && ch <= 0x2593) rect(f, x, y, w, h, c, (ch - 0x2590) * 0.25);
    else if (ch == 0x2594) rect(f, x, y, w, h / 8, c, 1);
    else if (ch == 0x2595) rect(f, x + w * 7 / 8, y, w / 8, h, c, 1);
    else {
        /* Quadrants: bits UL, UR, LL, LR. */
        static const unsigned char q[] = {4, 8, 1, 1 | 4 | 8, 1 | 8, 1 | 2 | 4, 1 | 2 | 8, 2, 2 | 4, 2 | 4 | 8};
        unsigned bits = q[ch - 0x2596];
        if (bits & 1) rect(f, x, y, w / 2, h / 2, c, 1);
        if (bits & 2) rect(f, x + w / 2, y, w / 2, h / 2, c, 1);
        if (bits & 4) rect(f, x, y + h / 2, w / 2, h / 2, c, 1);
        if (bits & 8) rect(f, x + w / 2, y + h / 2, w / 2, h / 2, c, 1);
    }
}

static void text_open(FILE *f, double x, double y, const struct svg_cell *c, int ncells) {
    fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" fill=\"#%06x\"", x, y, ink(c));
    if (c->flags & SVG_BOLD) fputs(" font-weight=\"bold\"", f);
    if (c->flags & SVG_ITALIC) fputs(" font-style=\"italic\"", f);
    if (c->flags & SVG_UNDERLINE) fputs(" text-decoration=\"underline\"", f);
    if (ncells > 1) fprintf(f, " textLength=\"%.2f\" lengthAdjust=\"spacing\"", ncells * CW);
    fputc('>', f);
}

static int same_style(const struct svg_cell *a, const struct svg_cell *b) {
    return ink(a) == ink(b) && (a->flags & (SVG_BOLD | SVG_ITALIC | SVG_UNDERLINE)) ==
                                   (b->flags & (SVG_BOLD | SVG_ITALIC | SVG_UNDERLINE));
}

void svg_write(FILE *f, const struct svg_grid *g, const char *title) {
    if (!title) title = "probetop";
    double W = g->cols * CW + 2 * PAD, H = g->rows * CH + 2 * PAD + BAR;
    double ox = PAD, oy = PAD + BAR;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
               "viewBox=\"0 0 %.0f %.0f\" font-family=\"'DejaVu Sans Mono', 'Menlo', 'Consolas', monospace\" "
               "font-size=\"15px\">\n", W, H, W, H);
    fputs("<title>", f);
    put_text(f, title);
    fputs("</title>\n", f);
    fprintf(f, "<rect width=\"%.0f\" height=\"%.0f\" rx=\"8\" fill=\"#%06x\"/>\n", W, H, SVG_DEFAULT_BG);
    fprintf(f, "<rect width=\"%.0f\" height=\"%.0f\" rx=\"8\" fill=\"#2e3440\"/>\n", W, BAR);
    fprintf(f, "<rect y=\"%.0f\" width=\"%.0f\" height=\"8\" fill=\"#2e3440\"/>\n", BAR - 8, W);
    static const uint32_t dots[] = {0xbf616a, 0xebcb8b, 0xa3be8c};
    for (int i = 0; i < 3; i++)
        fprintf(f, "<circle cx=\"%.0f\" cy=\"%.0f\" r=\"6\" fill=\"#%06x\"/>\n", 20.0 + 20 * i, BAR / 2, dots[i]);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#d8dee9\" text-anchor=\"middle\" font-size=\"13px\">", W / 2,
            BAR / 2 + 4.5);
    put_text(f, title);
    fputs("</text>\n", f);

    /* Pass 1: backgrounds and block glyphs.  Pass 2: text on top. */
    fputs("<g shape-rendering=\"crispEdges\">\n", f);
    for (int r = 0; r < g->rows; r++) {
        const struct svg_cell *cells = &g->cells[(size_t)r * (size_t)g->cols];
        double y = oy + r * CH;
        for (int c = 0; c < g->cols;) {
            uint32_t p = paper(&cells[c]);
            int dflt = paper_default(&cells[c]);
            int e = c + 1;
            while (e < g->cols && paper(&cells[e]) == p && paper_default(&cells[e]) == dflt) e++;
            if (!dflt) rect(f, ox + c * CW, y, (e - c) * CW, CH, p, 1);
            c = e;
        }
        for (int c = 0; c < g->cols; c++) block_rects(f, cells[c].ch, ox + c * CW, y, ink(&cells[c]));
    }
    fputs("</g>\n<g xml:space=\"preserve\">\n", f);
    for (int r = 0; r < g->rows; r++) {
        const struct svg_cell *cells = &g->cells[(size_t)r * (size_t)g->cols];
        double base = oy + r * CH + CH * 0.75;
        for (int c = 0; c < g->cols;) {
            uint32_t ch = cells[c].ch;
            if (ch == 0 || ch == ' ' || (ch >= 0x2580 && ch <= 0x259f)) { c++; continue; }
            if (ch >= 0x80) {
                /* One element per non-ASCII glyph: fallback fonts for
                 * braille or symbols need not share the ASCII advance. */
                text_open(f, ox + c * CW, base, &cells[c], 1);
                put_utf8(f, ch);
                fputs("</text>\n", f);
                c += cells[c].width > 1 ? cells[c].width : 1;
                continue;
            }
            int e = c + 1;
            while (e < g->cols && cells[e].ch < 0x80 && same_style(&cells[e], &cells[c])) e++;
            while (e > c + 1 && (cells[e - 1].ch == ' ' || cells[e - 1].ch == 0)) e--;
            text_open(f, ox + c * CW, base, &cells[c], e - c);
            for (int k = c; k < e; k++) put_utf8(f, cells[k].ch ? cells[k].ch : ' ');
            fputs("</text>\n", f);
            c = e;
        }
    }
    fputs("</g>\n</svg>\n", f);
}

int svg_save(const char *path, const struct svg_grid *g, const char *title, struct pt_error *err) {
    if (!path || !*path) return pt_errorf(err, "no file name to write the picture to");
    size_t n = strlen(path);
    char name[512];
    pt_escape(path, n, name, sizeof name);
    char *tmp = malloc(n + 16);
    if (!tmp) return pt_errorf(err, "cannot write %s: out of memory", name);
    /* The temporary file beside the target: the rename stays in one file
     * system, and a reader of path never sees half a picture. */
    const char *slash = strrchr(path, '/');
    size_t dir = slash ? (size_t)(slash - path) + 1 : 0;
    memcpy(tmp, path, dir);
    snprintf(tmp + dir, n + 16 - dir, ".svg-XXXXXX");
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int e = errno;
        free(tmp);
        return pt_errorf(err, "cannot write %s: %s", name, strerror(e));
    }
    (void)fchmod(fd, 0644);   /* mkstemp's 0600 would hide the picture from its readers */
    FILE *f = fdopen(fd, "w");
    if (!f) {
        int e = errno;
        close(fd);
        unlink(tmp);
        free(tmp);
        return pt_errorf(err, "cannot write %s: %s", name, strerror(e));
    }
    svg_write(f, g, title);
    int bad = ferror(f);
    int e = errno;
    if (fclose(f) != 0 && !bad) { bad = 1; e = errno; }
    if (!bad && rename(tmp, path) != 0) { bad = 1; e = errno; }
    if (bad) {
        unlink(tmp);
        free(tmp);
        return pt_errorf(err, "cannot write %s: %s", name, strerror(e ? e : EIO));
    }
    free(tmp);
    return 0;
}
