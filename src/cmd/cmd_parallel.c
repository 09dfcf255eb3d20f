/* cmd_parallel: `probetop parallel`, the Megatron model-parallel layout as
 * text (msProbe draws it as a PNG), as an SVG picture of that text (--svg), or
 * as a rank table in JSON or CSV for scripts.  The layout itself is model/layout/layout.c; this file parses the
 * options and prints. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "model/layout/layout.h"
#include "src/cmd/cmd.h"
#include "ui/svg.h"

enum par_format { FMT_TEXT, FMT_JSON, FMT_CSV };

struct par_opts {
    struct layout_config cfg;
    int have_world, have_layers;
    enum par_format format;
    int color;      /* -1 auto, 0 never, 1 always */
    long width;     /* -1 auto (the terminal), 0 no wrapping */
    const char *svg;   /* --svg FILE: the coloured text as a picture */
};

/* Long option -> layout_config key.  The Megatron argument names are
 * accepted too, so a launch script's values can be pasted. */
static const struct { const char *opt, *key; } par_valued[] = {
    {"--world-size", "world_size"},
    {"--num-layers", "num_layers"},
    {"--tp", "tp"},
    {"--tensor-model-parallel-size", "tp"},
    {"--pp", "pp"},
    {"--pipeline-model-parallel-size", "pp"},
    {"--vpp-layers", "vpp_layers"},
    {"--num-layers-per-virtual-pipeline-stage", "vpp_layers"},
    {"--order", "order"},
};

static int par_parse(int argc, char **argv, struct par_opts *o) {
    layout_config_init(&o->cfg);
    o->have_world = o->have_layers = 0;
    o->format = FMT_TEXT;
    o->color = -1;
    o->width = -1;
    o->svg = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        int matched = 0, bad = 0;
        if (!strcmp(a, "--standalone-embedding")) {
            o->cfg.standalone = 1;
            continue;
        }
        if (!strncmp(a, "--standalone-embedding=", 23)) {
            struct pt_error e;
            layout_config_set(&o->cfg, "standalone", a + 23, &e);   /* a bad value fails validation */
            continue;
        }
        size_t k;
        for (k = 0; k < sizeof par_valued / sizeof par_valued[0]; k++) {
            v = opt_value(argc, argv, &i, par_valued[k].opt, &matched, &bad);
            if (bad) return -1;
            if (!matched) continue;
            struct pt_error e;
            layout_config_set(&o->cfg, par_valued[k].key, v, &e);
            if (!strcmp(par_valued[k].key, "world_size")) o->have_world = 1;
            if (!strcmp(par_valued[k].key, "num_layers")) o->have_layers = 1;
            break;
        }
        if (matched) continue;
        if ((v = opt_value(argc, argv, &i, "--format", &matched, &bad)) || matched) {
            if (bad) return -1;
            if (!strcmp(v, "text")) o->format = FMT_TEXT;
            else if (!strcmp(v, "json")) o->format = FMT_JSON;
            else if (!strcmp(v, "csv")) o->format = FMT_CSV;
            else {
                fprintf(stderr, "probetop parallel: --format must be text, json or csv, not '%s'\n", CMD_ESC(v));
                return -1;
            }
            continue;
        }
        if ((v = opt_value(argc, argv, &i, "--color", &matched, &bad)) || matched) {
            if (bad) return -1;
            if (!strcmp(v, "auto")) o->color = -1;
            else if (!strcmp(v, "always")) o->color = 1;
            else if (!strcmp(v, "never")) o->color = 0;
            else {
                fprintf(stderr, "probetop parallel: --color must be auto, always or never, not '%s'\n", CMD_ESC(v));
                return -1;
            }
            continue;
        }
        if ((v = opt_value(argc, argv, &i, "--width", &matched, &bad)) || matched) {
            if (bad) return -1;
            if (opt_int(v, 0, 100000, &o->width) != 0) {
                fprintf(stderr, "probetop parallel: --width must be a number of columns (0 = no wrapping), not '%s'\n", CMD_ESC(v));
                return -1;
            }
            continue;
        }
        if ((v = opt_value(argc, argv, &i, "--svg", &matched, &bad)) || matched) {
            if (bad) return -1;
            if (!*v) {
                fprintf(stderr, "probetop parallel: --svg wants a file name\n");
                return -1;
            }
            o->svg = v;
            continue;
        }
        int none = 0;
        cmd_operand(&cmd_parallel_entry, a, NULL, &none);   /* it takes none: refused */
        return -1;
    }
    if (!o->have_world) {
        fprintf(stderr, "probetop parallel: --world-size is required\n");
        return -1;
    }
    if (!o->have_layers) {
        fprintf(stderr, "probetop parallel: --num-layers is required\n");
        return -1;
    }
    if (o->svg && o->format != FMT_TEXT) {
        fprintf(stderr, "probetop parallel: --svg draws the text layout, not --format json or csv\n");
        return -1;
    }
    return 0;
}

/* --- text -------------------------------------------------------------- */

struct par_text {
    FILE *f;
    const struct layout *l;
    int color;
    long width;              /* 0: unlimited */
    int label_w;             /* the "TP Group" column */
    int *col_w;              /* per chunk, padding included */
};

static void par_color_on(const struct par_text *t, int copy) {
    if (!t->color) return;
    uint32_t rgb = layout_copy_rgb(t->l->dp, copy);
    fprintf(t->f, "\033[48;5;%dm\033[38;5;%dm", layout_rgb_xterm256(rgb), layout_rgb_dark(rgb) ? 231 : 16);
}

static void par_color_off(const struct par_text *t) {
    if (t->color) fputs("\033[0m", t->f);
}

/* Stage columns [c0, c1) of every row. */
static void par_block(const struct par_text *t, int c0, int c1) {
    const struct layout *l = t->l;
    char buf[64];
    /* Without colour the last column needs no padding: no trailing blanks. */
    fprintf(t->f, "%-*s  %2s  %4s |", t->label_w, "TP Group", "PP", "Copy");
    for (int c = c0; c < c1; c++) {
        snprintf(buf, sizeof buf, "Stage %d", c);
        fprintf(t->f, " %-*s", c + 1 < c1 || t->color ? t->col_w[c] : 0, buf);
    }
    fputc('\n', t->f);
    for (int row = 0; row < l->nrows; row++) {
        int copy = layout_row_copy(l, row);
        fprintf(t->f, "%-*s  %2d  %4d |", t->label_w, layout_row_label(l, row, buf, sizeof buf),
                layout_row_stage(l, row), copy + 1);
        for (int c = c0; c < c1; c++) {
            struct layout_chunk ch;
            layout_chunk(l, l->row_rank[row], c, &ch);
            layout_chunk_text(&ch, buf, sizeof buf);
            fputc(' ', t->f);
            par_color_on(t, copy);
            fprintf(t->f, " %-*s", c + 1 < c1 || t->color ? t->col_w[c] - 1 : 0, buf);
            par_color_off(t);
        }
        fputc('\n', t->f);
    }
}

static void par_legend(const struct par_text *t) {
    const struct layout *l = t->l;
    if (!t->color) {
        fprintf(t->f, "Model Copies: %d (column Copy)\n", l->dp);
        return;
    }
    long limit = t->width > 0 ? t->width : 100;
    long x = fprintf(t->f, "Model Copies:");
    for (int j = 0; j < l->dp; j++) {
        char name[32];
        int n = snprintf(name, sizeof name, "Model Copy %d", j + 1);
        if (x + 5 + n > limit && x > 14) {
            fputs("\n             ", t->f);
            x = 13;
        }
        fputs("  ", t->f);
        par_color_on(t, j);
        fputs("  ", t->f);
        par_color_off(t);
        fprintf(t->f, " %s", name);
        x += 5 + n;
    }
    fputc('\n', t->f);
}

static int par_text(FILE *f, const struct layout *l, int color, long width) {
    struct par_text t = {f, l, color, width, 8, NULL};
    t.col_w = calloc((size_t)l->vpp, sizeof *t.col_w);
    if (!t.col_w) {
        fprintf(stderr, "probetop parallel: out of memory\n");
        return EXIT_USAGE;
    }
    char buf[64];
    for (int row = 0; row < l->nrows; row++) {
        int n = (int)strlen(layout_row_label(l, row, buf, sizeof buf));
        if (n > t.label_w) t.label_w = n;
    }
    for (int c = 0; c < l->vpp; c++) {
        int w = snprintf(buf, sizeof buf, "Stage %d", c);
        for (int row = 0; row < l->nrows; row++) {
            struct layout_chunk ch;
            layout_chunk(l, l->row_rank[row], c, &ch);
            int n = (int)strlen(layout_chunk_text(&ch, buf, sizeof buf));
            if (n > w) w = n;
        }
        t.col_w[c] = w + 2;   /* a blank on each side inside the colour */
    }

    /* msProbe's title, then the settings behind it; each line breaks at a
     * " | " when it would not fit. */
    char parts[2][6][LAYOUT_ORDER_MAX + 16];
    int nparts[2] = {6, 2};
    snprintf(parts[0][0], sizeof parts[0][0], "Model Parallelism Configuration");
    snprintf(parts[0][1], sizeof parts[0][0], "Total Layers: %d", l->layers);
    snprintf(parts[0][2], sizeof parts[0][0], "DP=%d", l->dp);
    snprintf(parts[0][3], sizeof parts[0][0], "TP=%d", l->tp);
    snprintf(parts[0][4], sizeof parts[0][0], "PP=%d", l->pp);
    snprintf(parts[0][5], sizeof parts[0][0], "VPP=%d", l->vpp);
    snprintf(parts[1][0], sizeof parts[0][0], "Order %s", l->order);
    snprintf(parts[1][1], sizeof parts[0][0], "%d layers per pipeline stage", l->lps);
    if (l->vpp_layers) snprintf(parts[1][nparts[1]++], sizeof parts[0][0], "%d per virtual stage", l->vpp_layers);
    if (l->standalone) snprintf(parts[1][nparts[1]++], sizeof parts[0][0], "standalone embedding stage");
    for (int line = 0; line < 2; line++) {
        long x = 0;
        for (int i = 0; i < nparts[line]; i++) {
            long n = (long)strlen(parts[line][i]);
            if (i && width > 0 && x + 3 + n + (i + 1 < nparts[line] ? 2 : 0) > width) {
                fputs(" |\n", f);
                x = 0;
            } else if (i) {
                fputs(" | ", f);
                x += 3;
            }
            fputs(parts[line][i], f);
            x += n;
        }
        fputc('\n', f);
    }
    fputc('\n', f);

    /* Wrap the stage columns into blocks that fit the width. */
    int prefix = t.label_w + 2 + 2 + 2 + 4 + 2;
    for (int c0 = 0; c0 < l->vpp;) {
        int c1 = c0 + 1;
        long used = prefix + 1 + t.col_w[c0];
        while (c1 < l->vpp && (width <= 0 || used + 1 + t.col_w[c1] <= width)) used += 1 + t.col_w[c1++];
        if (c0 > 0) fputc('\n', f);
        par_block(&t, c0, c1);
        c0 = c1;
    }
    fputc('\n', f);
    par_legend(&t);
    free(t.col_w);
    return EXIT_OK;
}

/* --- json and csv ------------------------------------------------------ */

static void par_json_groups(FILE *f, const struct layout *l, enum layout_dim d) {
    int members[LAYOUT_MAX_WORLD];
    fprintf(f, "\"%s\": [", layout_dim_name(d));
    for (int g = 0; g < layout_ngroups(l, d); g++) {
        layout_group(l, d, g, members);
        fprintf(f, "%s[", g ? ", " : "");
        for (int k = 0; k < l->size[d]; k++) fprintf(f, "%s%d", k ? ", " : "", members[k]);
        fputc(']', f);
    }
    fputc(']', f);
}

static int par_json(FILE *f, const struct layout *l) {
    fprintf(f, "{\n  \"world_size\": %d,\n  \"num_layers\": %d,\n  \"tp\": %d,\n  \"pp\": %d,\n  \"dp\": %d,\n"
               "  \"cp\": %d,\n  \"vpp\": %d,\n",
            l->world, l->layers, l->tp, l->pp, l->dp, l->cp, l->vpp);
    if (l->vpp_layers) fprintf(f, "  \"vpp_layers\": %d,\n", l->vpp_layers);
    else fputs("  \"vpp_layers\": null,\n", f);
    fprintf(f, "  \"layers_per_stage\": %d,\n  \"order\": \"%s\",\n  \"standalone_embedding\": %s,\n",
            l->lps, l->order, l->standalone ? "true" : "false");
    fputs("  \"groups\": {\n    ", f);
    par_json_groups(f, l, LAYOUT_TP);
    fputs(",\n    ", f);
    par_json_groups(f, l, LAYOUT_DP);
    fputs(",\n    ", f);
    par_json_groups(f, l, LAYOUT_PP);
    fputs("\n  },\n  \"ranks\": [\n", f);
    for (int r = 0; r < l->world; r++) {
        const struct layout_rank *lr = &l->rank[r];
        fprintf(f, "    {\"rank\": %d, \"dp\": %d, \"pp\": %d, \"tp\": %d, \"chunks\": [", r,
                lr->coord[LAYOUT_DP], lr->coord[LAYOUT_PP], lr->coord[LAYOUT_TP]);
        for (int c = 0; c < l->vpp; c++) {
            struct layout_chunk ch;
            char text[64];
            layout_chunk(l, r, c, &ch);
            fprintf(f, "%s\n      {\"chunk\": %d, \"embedding\": %s, \"output\": %s, \"layers\": [", c ? "," : "", c,
                    ch.embedding ? "true" : "false", ch.output ? "true" : "false");
            for (int g = ch.first; g && g <= ch.last; g++) fprintf(f, "%s%d", g > ch.first ? ", " : "", g);
            fprintf(f, "], \"text\": \"%s\"}", layout_chunk_text(&ch, text, sizeof text));
        }
        fprintf(f, "]}%s\n", r + 1 < l->world ? "," : "");
    }
    fputs("  ]\n}\n", f);
    return EXIT_OK;
}

static int par_csv(FILE *f, const struct layout *l) {
    fputs("rank,dp,pp,tp,chunk,embedding,output,first_layer,last_layer,text\n", f);
    for (int r = 0; r < l->world; r++) {
        const struct layout_rank *lr = &l->rank[r];
        for (int c = 0; c < l->vpp; c++) {
            struct layout_chunk ch;
            char text[64];
            layout_chunk(l, r, c, &ch);
            fprintf(f, "%d,%d,%d,%d,%d,%d,%d,", r, lr->coord[LAYOUT_DP], lr->coord[LAYOUT_PP],
                    lr->coord[LAYOUT_TP], c, ch.embedding, ch.output);
            if (ch.first) fprintf(f, "%d,%d,", ch.first, ch.last);
            else fputs(",,", f);
            fprintf(f, "%s\n", layout_chunk_text(&ch, text, sizeof text));
        }
    }
    return EXIT_OK;
}

/* The terminal's width for wrapping: $COLUMNS, else the tty's. */
static long par_term_width(void) {
    const char *c = getenv("COLUMNS");
    long w;
    if (c && opt_int(c, 1, 100000, &w) == 0) return w;
    struct winsize ws;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
    return 80;
}

/* --svg: the text layout in colour (as --color always prints it) turned
 * into cells and written as a picture. */
static int par_svg(const struct par_opts *o, const struct layout *l) {
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m) {
        fprintf(stderr, "probetop parallel: out of memory\n");
        return EXIT_USAGE;
    }
    int rc = par_text(m, l, o->color != 0, o->width > 0 ? o->width : 0);
    if (fclose(m) != 0 || !text) rc = EXIT_USAGE;
    struct svg_grid g;
    if (rc == EXIT_OK && svg_grid_text(&g, text, len) != 0) {
        fprintf(stderr, "probetop parallel: out of memory\n");
        rc = EXIT_USAGE;
    } else if (rc == EXIT_OK) {
        struct pt_error e;
        if (svg_save(o->svg, &g, "probetop parallel", &e) != 0) {
            fprintf(stderr, "probetop parallel: %s\n", e.msg);
            rc = EXIT_USAGE;
        }
        svg_grid_free(&g);
    }
    free(text);
    return rc;
}

static int par_run(int argc, char **argv) {
    struct par_opts o;
    if (par_parse(argc, argv, &o) != 0) return EXIT_USAGE;
    struct pt_error e;
    struct layout *l = layout_new(&o.cfg, &e);
    if (!l) {
        fprintf(stderr, "probetop parallel: %s\n", e.msg);
        return EXIT_USAGE;
    }
    int tty = isatty(STDOUT_FILENO);
    int rc;
    if (o.svg) rc = par_svg(&o, l);
    else if (o.format == FMT_JSON) rc = par_json(stdout, l);
    else if (o.format == FMT_CSV) rc = par_csv(stdout, l);
    else {
        const char *nc = getenv("NO_COLOR");
        int color = o.color >= 0 ? o.color : tty && !(nc && *nc);
        long width = o.width >= 0 ? o.width : tty ? par_term_width() : 0;
        rc = par_text(stdout, l, color, width);
    }
    layout_free(l);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "probetop parallel: cannot write the output\n");
        return EXIT_USAGE;
    }
    return rc;
}

const struct cmd_entry cmd_parallel_entry = {
    "parallel",
    "probetop parallel --world-size W --num-layers L [--tp T] [--pp P] [--vpp-layers V] [--order ORDER] "
    "[--standalone-embedding] [--format text|json|csv] [--color auto|always|never] [--width N] [--svg FILE]",
    "show which layers every rank of a Megatron TP/PP/VPP run holds",
    "  --world-size W          number of ranks, 1..1024 (required)\n"
    "  --num-layers L          transformer layers, 1..256 (required)\n"
    "  --tp T                  tensor-parallel size (default 1); also --tensor-model-parallel-size\n"
    "  --pp P                  pipeline-parallel size (default 1); also --pipeline-model-parallel-size\n"
    "  --vpp-layers V          layers per virtual pipeline stage (default: no virtual pipeline);\n"
    "                          also --num-layers-per-virtual-pipeline-stage\n"
    "  --order ORDER           Megatron rank order, '-' joined tp, cp, ep, dp, pp (default tp-cp-ep-dp-pp)\n"
    "  --standalone-embedding  the first pipeline stage holds only the embedding\n"
    "  --format F              text (the picture, default), json or csv (rank -> dp, pp, tp, chunk, layers)\n"
    "  --color WHEN            colour cells by model copy: auto (a terminal without NO_COLOR), always, never\n"
    "  --width N               wrap stage columns to N columns (default: the terminal's; 0 = never)\n"
    "  --svg FILE              write the text layout as an SVG picture to FILE instead (in colour unless\n"
    "                          --color never; wrapped only with --width)\n"
    "Exit status 2 when the configuration is invalid (the message says which check failed).\n",
    par_run,
};
