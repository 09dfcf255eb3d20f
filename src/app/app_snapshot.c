/* app_snapshot: `probetop snapshot PATH [BENCH] [--view NAME] [--keys KEYS]
 * [--size WxH] --svg FILE`: the screen the analyzer would show, drawn
 * headless (an off-screen curses screen, ui_opts.rows) by the same panes,
 * keys typed as a user would, and written as :export writes it (ui/shot.h,
 * ui/svg.h: a temporary file renamed). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/util/util.h"
#include "src/app/app.h"
#include "src/app/app_state.h"
#include "src/cmd/cmd.h"
#include "ui/keys.h"

#define SNAP_MAX_KEYS 256

static const struct { const char *name; int code; } snap_names[] = {
    {"Enter", KEYS_ENTER}, {"CR", KEYS_ENTER}, {"Esc", KEYS_ESC}, {"Tab", KEYS_TAB}, {"BTab", KEYS_BTAB},
    {"BS", KEYS_BACKSPACE}, {"Space", ' '}, {"lt", '<'},
    {"Up", KEYS_UP}, {"Down", KEYS_DOWN}, {"Left", KEYS_LEFT}, {"Right", KEYS_RIGHT},
    {"PgUp", KEYS_PGUP}, {"PgDn", KEYS_PGDN}, {"Home", KEYS_HOME}, {"End", KEYS_END},
    {"Del", KEYS_DELETE}, {"S-Up", KEYS_SUP}, {"S-Down", KEYS_SDOWN}, {"S-Left", KEYS_SLEFT}, {"S-Right", KEYS_SRIGHT},
};

/* One <NAME>: 0 with *code, or -1. */
static int snap_named(const char *name, size_t n, int *code) {
    for (size_t i = 0; i < sizeof snap_names / sizeof *snap_names; i++)
        if (strlen(snap_names[i].name) == n && !strncmp(snap_names[i].name, name, n)) { *code = snap_names[i].code; return 0; }
    if (n == 3 && !strncmp(name, "C-", 2) && name[2] >= 'a' && name[2] <= 'z') { *code = KEYS_CTRL(name[2]); return 0; }
    if ((n == 2 || n == 3) && name[0] == 'F') {
        int f = atoi(name + 1);
        if (f >= 1 && f <= 12) { *code = KEYS_F1 + f - 1; return 0; }
    }
    return -1;
}

/* KEYS as the screen tests write them: characters as typed (UTF-8 taken
 * as bytes are not keys here: ASCII only), <Enter>, <Esc>, <Tab>, <Up>,
 * <PgDn>, <C-u>, <F2>, <lt> for '<'... -> codes; their number, or -1
 * with the bad part in err. */
static int snap_parse_keys(const char *s, int *out, int max, char *bad, size_t badsize) {
    int n = 0;
    while (*s) {
        int code;
        if (*s == '<') {
            const char *e = strchr(s + 1, '>');
            if (!e || snap_named(s + 1, (size_t)(e - s - 1), &code) < 0) {
                snprintf(bad, badsize, "%.*s", e ? (int)(e - s + 1) : (int)strlen(s), s);
                return -1;
            }
            s = e + 1;
        } else {
            if ((unsigned char)*s >= 0x80) { snprintf(bad, badsize, "%s", s); return -1; }
            code = (unsigned char)*s++;
        }
        if (n == max) { snprintf(bad, badsize, "more than %d keys", max); return -1; }
        out[n++] = code;
    }
    return n;
}

static int snapshot_run(int argc, char **argv) {
    static int keys[SNAP_MAX_KEYS];
    struct app_snap snap = {24, 80, NULL, keys, 0, NULL};
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    if (!rest) return EXIT_USAGE;
    int nrest = 0;
    rest[nrest++] = "probetop";
    for (int i = 1; i < argc; i++) {
        const char *v;
        int matched = 0, bad = 0;
        v = opt_value(argc, argv, &i, "--svg", &matched, &bad);
        if (bad) goto usage;
        if (matched) { snap.svg = v; continue; }
        v = opt_value(argc, argv, &i, "--view", &matched, &bad);
        if (bad) goto usage;
        if (matched) { snap.view = v; continue; }
        v = opt_value(argc, argv, &i, "--keys", &matched, &bad);
        if (bad) goto usage;
        if (matched) {
            char what[80];
            int n = snap_parse_keys(v, keys, SNAP_MAX_KEYS, what, sizeof what);
            if (n < 0) { app_args_usage_error("--keys: cannot type '%s' (characters, <Enter>, <Esc>, <Up>, <C-u>, <F2>, <lt>...)", what); goto usage_said; }
            snap.nkeys = n;
            continue;
        }
        v = opt_value(argc, argv, &i, "--size", &matched, &bad);
        if (bad) goto usage;
        if (matched) {
            char *e;
            long w = strtol(v, &e, 10), h = 0;
            if (e != v && (*e == 'x' || *e == 'X')) {
                const char *t = e + 1;
                h = strtol(t, &e, 10);
                if (e == t || *e) h = 0;
            }
            if (w < 10 || w > 1000 || h < 2 || h > 1000) { app_args_usage_error("--size wants WxH (columns x rows, 10x2 to 1000x1000), not '%s'", v); goto usage_said; }
            snap.cols = (int)w;
            snap.rows = (int)h;
            continue;
        }
        rest[nrest++] = argv[i];
    }
    if (!snap.svg) { app_args_usage_error("%s", "give --svg FILE (the picture to write)"); goto usage_said; }
    if (!util_ends_with(snap.svg, ".svg")) { app_args_usage_error("--svg wants a FILE.svg, not '%s'", snap.svg); goto usage_said; }
    int rc = app_run(nrest, rest, &snap);
    free(rest);
    return rc;
usage:
    app_args_usage_error("%s", "usage: probetop snapshot PATH [BENCH] [--view NAME] [--keys KEYS] [--size WxH] --svg FILE");
usage_said:
    free(rest);
    return EXIT_USAGE;
}

const struct cmd_entry app_snapshot_entry = {
    "snapshot",
    "probetop snapshot PATH [BENCH] [--view NAME] [--keys KEYS] [--size WxH] --svg FILE",
    "write the screen the analyzer shows for the input as an SVG picture, without a terminal",
    "  --svg FILE        the picture (written to a temporary file, then renamed)\n"
    "  --view NAME       show this pane first (a name of :show: heatmap, tree, lanes, ...)\n"
    "  --keys KEYS       keys typed once the data is there, as a user would: characters,\n"
    "                    <Enter> <Esc> <Tab> <Up> <Down> <PgDn> <C-u> <F2> <lt> ...\n"
    "  --size WxH        the screen in cells (default 80x24)\n"
    "  the analyzer's options (--demo, --ascii, --format, ...) as for probetop PATH;\n"
    "  the colours are those of a 256-colour terminal (none with NO_COLOR)\n",
    snapshot_run,
};
