/* test_vt_layout: the Megatron parallel layout pane (F5) and what it does to
 * the heat map: the layout pane at 80x24 scrolling and at 200x50;
 * screenshots.
 *
 * At 200x50 msProbe's documentation example (probetop-rules(7), MEGATRON LAYOUT: Examples,
 * W=32 L=48 TP=4 PP=4 V=3) must read as its table: the title line, one row
 * per TP group with its stage and model copy, every cell's text, cells
 * coloured by model copy with the legend's colours (tab20).  At 80x24 a
 * wide layout (W=1024 L=96 TP=8 PP=8 V=1: 128 rows, 12 stage columns)
 * scrolls both ways with the row labels kept.  An invalid `:parallel` says
 * what `probetop parallel` says and keeps the old layout.  On the demo,
 * `:group` reorders the heat map's rank axis (labelled by parallel
 * coordinates) and `:layers global|local` renames where the data fits the
 * layout and refuses where it does not. */
#include "pt_test.h"
#include "screen/vt.h"
#include "screen/vt_check.h"

#include <ctype.h>
#include <sys/wait.h>

#define CHECKV(vt, cond) do { int ok_ = (cond); CHECK(ok_); if (!ok_) vt_dump((vt), stderr); } while (0)

#define VLINE "\xe2\x94\x82"
#define TITLE "Model Parallelism Configuration"



static int msg_row(struct vt *vt) { return vt->rows - 1; }

static void command(struct vt *vt, const char *cmd) {
    char keys[512];
    snprintf(keys, sizeof keys, ":%s<Enter>", cmd);
    vt_send(vt, keys);
}

/* Starts the demo with --parallel SPEC and shows the layout screen. */
static int open_layout(struct vt *vt, int cols, int rows, const char *spec) {
    const char *args[] = { "--demo=trend", "--parallel", spec, NULL };
    if (vt_spawn_app(vt, cols, rows, args, NULL) != 0) return -1;
    VT_WAIT(vt, vt_has(vt, "Heat map"));
    vt_send(vt, "<F5>");
    /* the title line is dropped when the screen is short (80x24) */
    VT_WAIT(vt, vt_has(vt, "TP Group"));
    if (!vt_has(vt, "TP Group")) {
        vt_dump(vt, stderr);
        return -1;
    }
    return 0;
}

static int header_row(struct vt *vt) {
    int r;
    return vt_find(vt, "TP Group", &r, NULL) ? r : -1;
}

/* The table row whose label is "GroupN: ..." (-1 when not on screen). */
static int group_row(struct vt *vt, int n) {
    char lab[32];
    snprintf(lab, sizeof lab, "Group%d: ", n);
    for (int r = header_row(vt) + 1; r > 0 && r < vt->rows; r++)
        if (!strncmp(vt_row_text(vt, r), lab, strlen(lab))) return r;
    return -1;
}

/* The first table row's group number (-1 when none). */
static int first_group(struct vt *vt) {
    int h = header_row(vt);
    if (h < 0) return -1;
    const char *t = vt_row_text(vt, h + 1);
    return !strncmp(t, "Group", 5) ? atoi(t + 5) : -1;
}

/* The cells right of the vertical line, split on blanks. */
static int cells(struct vt *vt, int row, char out[][32], int max) {
    const char *t = vt_row_text(vt, row), *bar = strstr(t, VLINE);
    if (!bar) return -1;
    int n = 0;
    const char *p = bar + strlen(VLINE);
    while (*p && n < max) {
        while (*p == ' ') p++;
        if (!*p) break;
        int k = 0;
        while (*p && *p != ' ' && k < 31) out[n][k++] = *p++;
        out[n][k] = '\0';
        n++;
    }
    return n;
}

/* The leftmost stage column in the header ("Stage N"), -1 when none. */
static int first_stage(struct vt *vt) {
    const char *t = vt_row_text(vt, header_row(vt)), *s = strstr(t, "Stage ");
    return s ? atoi(s + 6) : -1;
}

/* Spec section 4: the text of chunk v of a rank on pipeline stage s (no
 * standalone embedding). */
static void chunk_text(int L, int PP, int V, int s, int v, char *buf, size_t size) {
    int lps = L / PP, vpp = V ? lps / V : 1;
    int n = V ? lps / vpp : lps;
    int off = V ? v * (L / vpp) + s * (lps / vpp) : s * lps;
    snprintf(buf, size, "%sL%d-%d%s", s == 0 && v == 0 ? "Embed+" : "", off + 1, off + n,
             s == PP - 1 && v == vpp - 1 ? "+Out" : "");
}

static uint32_t paper_at(struct vt *vt, int row, int col) {
    struct vt_cell c;
    if (vt_cell(vt, row, col, &c) != 0) return 0;
    return vt_cell_paper(&c);
}

/* Within a 256-colour palette's reach of rgb (the cube has steps of 40). */
static bool near(uint32_t a, uint32_t b) {
    for (int sh = 0; sh <= 16; sh += 8) {
        int d = (int)((a >> sh) & 0xff) - (int)((b >> sh) & 0xff);
        if (d < -48 || d > 48) return false;
    }
    return true;
}

/* `probetop parallel` with these flags: its message on stderr (without the
 * program prefix) and exit status. */
static int cli_message(const char *flags, char *msg, size_t size) {
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s' parallel %s 2>&1 >/dev/null", vt_bin(), flags);
    FILE *f = popen(cmd, "r");
    msg[0] = '\0';
    if (!f) return -1;
    if (!fgets(msg, (int)size, f)) msg[0] = '\0';
    int st = pclose(f);
    msg[strcspn(msg, "\n")] = '\0';
    const char *pre = "probetop parallel: ";
    if (!strncmp(msg, pre, strlen(pre))) memmove(msg, msg + strlen(pre), strlen(msg + strlen(pre)) + 1);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* ---- 200x50: msProbe's documentation example ---- */

static void test_200x50(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    struct vt vt;
    if (open_layout(&vt, 200, 50, "W=32 L=48 TP=4 PP=4 V=3") != 0) {
        CHECK(0);
        return;
    }
    CHECKV(&vt, vt_has(&vt, TITLE " | Total Layers: 48 | DP=2 | TP=4 | PP=4 | VPP=4"));
    int h = header_row(&vt);
    CHECKV(&vt, vt_row_has(&vt, h, "PP  Copy") && vt_row_has(&vt, h, "Stage 0") && vt_row_has(&vt, h, "Stage 3") &&
                    !vt_row_has(&vt, h, "Stage 4"));
    /* the table of probetop-rules(7), MEGATRON LAYOUT: Examples */
    static const char *const table[8][4] = {
        { "Embed+L1-3", "L13-15", "L25-27", "L37-39" }, { "Embed+L1-3", "L13-15", "L25-27", "L37-39" },
        { "L4-6", "L16-18", "L28-30", "L40-42" },       { "L4-6", "L16-18", "L28-30", "L40-42" },
        { "L7-9", "L19-21", "L31-33", "L43-45" },       { "L7-9", "L19-21", "L31-33", "L43-45" },
        { "L10-12", "L22-24", "L34-36", "L46-48+Out" }, { "L10-12", "L22-24", "L34-36", "L46-48+Out" },
    };
    /* the legend: "Model Copy j" after a two-cell swatch */
    int ly = -1, c1 = -1, c2 = -1;
    CHECKV(&vt, vt_find(&vt, "Model Copies:", &ly, NULL));
    c1 = vt_col_of(&vt, ly, "Model Copy 1");
    c2 = vt_col_of(&vt, ly, "Model Copy 2");
    CHECKV(&vt, c1 > 3 && c2 > c1 && !vt_row_has(&vt, ly, "Model Copy 3"));
    uint32_t sw[2] = { paper_at(&vt, ly, c1 - 2), paper_at(&vt, ly, c2 - 2) };
    CHECK(paper_at(&vt, ly, c1 - 3) == sw[0]);
    CHECK(sw[0] != sw[1] && sw[0] != VT_DEFAULT_BG && sw[1] != VT_DEFAULT_BG);
    CHECK(near(sw[0], 0x1f77b4) && near(sw[1], 0xaec7e8));   /* tab20's first two */
    for (int i = 0; i < 8; i++) {
        int r = group_row(&vt, i);
        char lab[64], want[32][32];
        snprintf(lab, sizeof lab, "Group%d: Rank%d-%d ", i, 4 * i, 4 * i + 3);
        CHECKV(&vt, r > 0 && vt_row_has(&vt, r, lab));
        if (r < 0) continue;
        int stage = -1, copy = -1;
        const char *after = vt_row_text(&vt, r) + strlen(lab);
        CHECK(sscanf(after, "%d %d", &stage, &copy) == 2 && stage == i / 2 && copy == i % 2 + 1);
        int n = cells(&vt, r, want, 32);
        CHECK_INT(n, 4);
        for (int v = 0; v < 4 && v < n; v++) {
            CHECK_STR(want[v], table[i][v]);
            /* the cell's colour is its model copy's */
            int col = vt_col_of(&vt, r, table[i][v]);
            uint32_t p = paper_at(&vt, r, col);
            if (p != sw[i % 2]) fprintf(stderr, "row %d cell %d: paper %06x, legend %06x\n", i, v, p, sw[i % 2]);
            CHECK(p == sw[i % 2]);
            CHECK(paper_at(&vt, r, col - 1) == sw[i % 2]);   /* padding inside the block */
        }
    }
    CHECK(group_row(&vt, 8) < 0);
    CHECKV(&vt, vt_row_has(&vt, vt_status_row(&vt), "rows 1-8 of 8"));

    /* an invalid :parallel: msProbe's message, as `probetop parallel`
     * gives it, and the old layout stays */
    static const struct { const char *spec, *flags; } bad[] = {
        { "W=8 L=8 TP=3", "--world-size 8 --num-layers 8 --tp 3" },
        { "W=8 L=8 PP=2 V=3", "--world-size 8 --num-layers 8 --pp 2 --vpp-layers 3" },
        { "W=2000 L=8", "--world-size 2000 --num-layers 8" },
        { "W=8 L=7 PP=2", "--world-size 8 --num-layers 7 --pp 2" },
        { "W=8 L=8 PP=2 tp-dp", "--world-size 8 --num-layers 8 --pp 2 --order tp-dp" },
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char msg[512], cmd[128];
        CHECK_INT(cli_message(bad[k].flags, msg, sizeof msg), 2);
        CHECK(msg[0] != '\0');
        snprintf(cmd, sizeof cmd, "parallel %s", bad[k].spec);
        command(&vt, cmd);
        VT_WAIT(&vt, msg[0] && vt_row_has(&vt, msg_row(&vt), msg));
        if (!vt_row_has(&vt, msg_row(&vt), msg)) fprintf(stderr, ":%s: want \"%s\"\n", cmd, msg);
        CHECKV(&vt, vt_row_has(&vt, msg_row(&vt), msg));
        CHECKV(&vt, vt_has(&vt, "Total Layers: 48 | DP=2 | TP=4 | PP=4 | VPP=4") && group_row(&vt, 7) > 0);
    }
    /* the picture for the README, on the settled layout */
    command(&vt, "parallel");
    VT_WAIT(&vt, vt_row_has(&vt, msg_row(&vt), "parallel layout W=32"));
    CHECK(vt_shot(&vt, "layout", "probetop --demo=trend --parallel 'W=32 L=48 TP=4 PP=4 V=3': the layout pane (F5)") >= 0);
    pt_vt_quit(&vt);
}

/* ---- 80x24: a wide layout scrolls ---- */

static void check_row_cells(struct vt *vt, int group, int L, int PP, int V, int rows_per_stage) {
    int r = group_row(vt, group), v0 = first_stage(vt);
    char got[16][32], want[32];
    CHECKV(vt, r > 0 && v0 >= 0);
    if (r < 0 || v0 < 0) return;
    int n = cells(vt, r, got, 16);
    CHECK(n >= 2);
    /* every whole cell on screen (the last may be cut by the edge) */
    for (int k = 0; k + 1 < n; k++) {
        chunk_text(L, PP, V, group / rows_per_stage, v0 + k, want, sizeof want);
        if (strcmp(got[k], want) != 0) fprintf(stderr, "group %d stage %d: \"%s\", want \"%s\"\n", group, v0 + k, got[k], want);
        CHECK_STR(got[k], want);
    }
}

static void test_80x24_scroll(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    struct vt vt;
    const int L = 96, PP = 8, V = 1, rps = 16;   /* DP=16 TP groups per stage */
    if (open_layout(&vt, 80, 24, "W=1024 L=96 TP=8 PP=8 V=1") != 0) {
        CHECK(0);
        return;
    }
    CHECKV(&vt, vt_has(&vt, "Total Layers: 96 | DP=16 | TP=8 | PP=8 | VPP=1"));
    /* a number cut by the edge reads as another number: VPP=12 must not
     * show as "VPP=1" */
    CHECKV(&vt, vt_has(&vt, "VPP=12"));
    CHECKV(&vt, first_group(&vt) == 0 && first_stage(&vt) == 0);
    CHECKV(&vt, vt_row_has(&vt, group_row(&vt, 0), "Group0: Rank0-7 "));
    check_row_cells(&vt, 0, L, PP, V, rps);
    int h = header_row(&vt), legend;
    CHECKV(&vt, vt_find(&vt, "Model Copies:", &legend, NULL));
    int nvis = legend - h - 1;
    CHECK(nvis >= 10 && nvis < 128);

    /* down: j, PgDn, G (the last row above the legend), g */
    vt_send(&vt, "j");
    VT_WAIT(&vt, first_group(&vt) == 1);
    CHECKV(&vt, first_group(&vt) == 1 && vt_row_has(&vt, h + 1, "Group1: Rank8-15 "));
    vt_send(&vt, "<PgDn>");
    VT_WAIT(&vt, first_group(&vt) > 1);
    CHECKV(&vt, first_group(&vt) == 1 + nvis - 1);
    vt_send(&vt, "G");
    VT_WAIT(&vt, group_row(&vt, 127) > 0);
    CHECKV(&vt, group_row(&vt, 127) == legend - 1 && first_group(&vt) == 128 - nvis);
    CHECKV(&vt, vt_row_has(&vt, legend - 1, "Group127: Rank1016-1023 "));
    check_row_cells(&vt, 127, L, PP, V, rps);
    vt_send(&vt, "k");
    VT_WAIT(&vt, first_group(&vt) == 127 - nvis);
    CHECKV(&vt, first_group(&vt) == 127 - nvis);

    /* right: the stage columns move, the row labels stay */
    vt_send(&vt, "l");
    VT_WAIT(&vt, first_stage(&vt) == 1);
    CHECKV(&vt, first_stage(&vt) == 1 && vt_col_of(&vt, h + 1, "Group") == 0);
    check_row_cells(&vt, first_group(&vt), L, PP, V, rps);
    for (int i = 0; i < 12; i++) vt_send(&vt, "l");   /* past the end: clamped */
    VT_WAIT(&vt, first_stage(&vt) == 11);
    CHECKV(&vt, first_stage(&vt) == 11);
    vt_send(&vt, "G");
    VT_WAIT(&vt, group_row(&vt, 127) > 0);
    char got[4][32];
    CHECKV(&vt, cells(&vt, group_row(&vt, 127), got, 4) == 1 && !strcmp(got[0], "L96-96+Out"));
    vt_send(&vt, "h");
    VT_WAIT(&vt, first_stage(&vt) == 10);
    CHECKV(&vt, first_stage(&vt) == 10);
    vt_send(&vt, "g");
    VT_WAIT(&vt, first_group(&vt) == 0 && first_stage(&vt) == 0);
    CHECKV(&vt, first_group(&vt) == 0 && first_stage(&vt) == 0);
    /* the wheel scrolls too */
    vt_send(&vt, "<wheeldown:10,20>");
    VT_WAIT(&vt, first_group(&vt) == 1);
    CHECKV(&vt, first_group(&vt) == 1);

    /* an invalid :parallel keeps this layout */
    char msg[512];
    CHECK_INT(cli_message("--world-size 8 --num-layers 8 --tp 3", msg, sizeof msg), 2);
    command(&vt, "parallel W=8 L=8 TP=3");
    VT_WAIT(&vt, vt_row_has(&vt, msg_row(&vt), "world_size (8) is not divisible"));
    CHECKV(&vt, vt_row_has(&vt, msg_row(&vt), "world_size (8) is not divisible"));
    CHECKV(&vt, vt_has(&vt, "Total Layers: 96 | DP=16") && first_group(&vt) >= 0);
    pt_vt_quit(&vt);
}

/* ---- the heat map: rank labels, :group, :layers ---- */

/* Parallel-coordinate labels of ranks 0..7 from `probetop parallel
 * --format csv` (rank,dp,pp,tp,...): "p<pp>t<tp>d<dp>". */
static int cli_labels(const char *flags, char labels[][16], int n) {
    char cmd[1024], line[512];
    snprintf(cmd, sizeof cmd, "'%s' parallel %s --format csv 2>/dev/null", vt_bin(), flags);
    FILE *f = popen(cmd, "r");
    if (!f) return -1;
    int got = 0;
    while (fgets(line, sizeof line, f)) {
        int rank, dp, pp, tp;
        if (sscanf(line, "%d,%d,%d,%d,", &rank, &dp, &pp, &tp) != 4 || rank < 0 || rank >= n) continue;
        snprintf(labels[rank], 16, "p%dt%dd%d", pp, tp, dp);
        got++;
    }
    pclose(f);
    return got;
}

/* The rank label in the heat map's status line ("rank N (X)  "). */
static bool status_rank(struct vt *vt, char *out, size_t size) {
    const char *p = strstr(vt_row_text(vt, vt_status_row(vt)), "  rank ");
    if (!p || !(p = strchr(p + 7, '('))) return false;
    p += 1;
    size_t k = 0;
    while (p[k] && p[k] != ')' && k + 1 < size) k++;
    snprintf(out, size, "%.*s", (int)k, p);
    return k > 0;
}

/* The ranks left to right: the cursor starts on rank 0 (first in every
 * grouping) and walks right. */
static int walk_ranks(struct vt *vt, char order[][16], int n) {
    command(vt, "rank 0");
    VT_WAIT(vt, status_rank(vt, order[0], 16) && !strcmp(order[0], "p0t0d0"));
    if (!status_rank(vt, order[0], 16)) return 0;
    for (int i = 1; i < n; i++) {
        char before[2048];
        snprintf(before, sizeof before, "%s", vt_row_text(vt, vt_status_row(vt)));
        vt_send(vt, "l");
        if (vt_wait_change(vt, vt_status_row(vt), before, 0) != 0 || !status_rank(vt, order[i], 16)) return i;
    }
    return n;
}

/* order is a permutation of labels[] whose character at `at` (1 p, 3 t,
 * 5 d) never decreases. */
static bool grouped(char order[][16], char labels[][16], int n, int at) {
    for (int i = 0; i < n; i++) {
        bool found = false;
        for (int j = 0; j < n; j++) found |= !strcmp(order[i], labels[j]);
        if (!found) return false;
        for (int j = 0; j < i; j++)
            if (!strcmp(order[i], order[j])) return false;
        if (i && order[i][at] < order[i - 1][at]) return false;
    }
    return true;
}

static void test_group(void) {
    if (!vt_bin()) SKIP("PT_BIN not set");
    const char *args[] = { "--demo=trend", "--parallel", "W=8 L=8 TP=2 PP=2", NULL };
    struct vt vt;
    CHECK_INT(vt_spawn_app(&vt, 80, 24, args, NULL), 0);
    VT_WAIT(&vt, vt_has(&vt, "Heat map") && vt_row_has(&vt, vt_status_row(&vt), "rank 0 (p0t0d0)"));
    char labels[8][16], order[8][16];
    CHECK_INT(cli_labels("--world-size 8 --num-layers 8 --tp 2 --pp 2", labels, 8), 8);
    /* no grouping: rank order, each labelled by its coordinates */
    CHECK_INT(walk_ranks(&vt, order, 8), 8);
    for (int i = 0; i < 8; i++) CHECK_STR(order[i], labels[i]);
    int axis = -1;
    for (int r = 0; r < 4; r++)
        if (!strncmp(vt_row_text(&vt, r), "rank ", 5)) axis = r;
    CHECKV(&vt, axis > 0);
    char natural[2048];
    snprintf(natural, sizeof natural, "%s", vt_row_text(&vt, axis));
    CHECKV(&vt, strstr(natural, labels[0]) && strstr(natural, labels[2]));   /* every other label fits */

    static const struct { const char *by; int at; const char *said; } g[] = {
        { "dp", 5, "ranks grouped by model copy" },
        { "tp", 3, "ranks grouped by tensor-parallel rank" },
        { "pp", 1, "ranks grouped by pipeline stage" },
    };
    for (size_t k = 0; k < 3; k++) {
        char cmd[32];
        snprintf(cmd, sizeof cmd, "group %s", g[k].by);
        command(&vt, cmd);
        VT_WAIT(&vt, vt_row_has(&vt, msg_row(&vt), g[k].said));
        CHECKV(&vt, vt_row_has(&vt, msg_row(&vt), g[k].said));
        CHECK_INT(walk_ranks(&vt, order, 8), 8);
        if (!grouped(order, labels, 8, g[k].at)) {
            fprintf(stderr, ":group %s:", g[k].by);
            for (int i = 0; i < 8; i++) fprintf(stderr, " %s", order[i]);
            fprintf(stderr, "\n");
        }
        CHECK(grouped(order, labels, 8, g[k].at));
        /* the axis labels follow: by model copy, d1 comes after p1's d0 */
        if (!strcmp(g[k].by, "dp")) CHECKV(&vt, strcmp(vt_row_text(&vt, axis), natural) != 0);
    }
    /* the layout pane says how ranks are grouped */
    vt_send(&vt, "<F5>");
    VT_WAIT(&vt, vt_has(&vt, "ranks by pp"));
    CHECKV(&vt, vt_has(&vt, "ranks by pp"));
    vt_send(&vt, "<F2>");
    VT_WAIT(&vt, vt_has(&vt, "Heat map"));
    command(&vt, "group none");
    VT_WAIT(&vt, vt_row_has(&vt, msg_row(&vt), "ranks in rank order"));
    CHECK_INT(walk_ranks(&vt, order, 8), 8);
    for (int i = 0; i < 8; i++) CHECK_STR(order[i], labels[i]);
    command(&vt, "group xx");
    VT_WAIT(&vt, vt_row_has(&vt, msg_row(&vt), "not 'xx'"));
    CHECKV(&vt, vt_row_has(&vt, msg_row(&vt), "group ranks by pp, dp, tp or none, not 'xx'"));

    /* :layers global: the demo holds all 8 layers on every rank, which a
     * 2-stage pipeline contradicts: refused, names stay local */
    command(&vt, "rank 0");
    VT_WAIT(&vt, vt_row_has(&vt, vt_status_row(&vt), "rank 0 (p0t0d0)"));
    command(&vt, "layers global");
    VT_WAIT(&vt, vt_row_has(&vt, msg_row(&vt), "globally"));
    CHECKV(&vt, vt_row_has(&vt, msg_row(&vt), "cannot number the layers globally"));
    command(&vt, "goto layers.5.mlp.linear_fc2.RowParallelLinear.output");
    /* (at 80 columns the rank number beside its label leaves room for this much) */
    VT_WAIT(&vt, vt_row_has(&vt, vt_status_row(&vt), "layers.5 is not a layer of rank"));
    CHECKV(&vt, vt_row_has(&vt, vt_status_row(&vt), "layers.5 is not a layer of rank"));
    /* a layout the data fits (one stage): each target's global layer in
     * the status line; :layers global and back */
    command(&vt, "parallel W=8 L=8 TP=2");
    VT_WAIT(&vt, vt_row_has(&vt, msg_row(&vt), "parallel layout W=8 L=8 TP=2"));
    vt_send(&vt, "<F2>");
    VT_WAIT(&vt, vt_row_has(&vt, vt_status_row(&vt), "global layer 6 of 8 (layers.5)"));
    CHECKV(&vt, vt_row_has(&vt, vt_status_row(&vt), "global layer 6 of 8 (layers.5)"));
    command(&vt, "layers global");
    VT_WAIT(&vt, vt_row_has(&vt, msg_row(&vt), "global layer index"));
    CHECKV(&vt, vt_row_has(&vt, msg_row(&vt), "layers.N is now the global layer index"));
    vt_send(&vt, "<F2>");
    VT_WAIT(&vt, vt_has(&vt, "Heat map") && vt_row_has(&vt, vt_status_row(&vt), "global layer"));
    CHECKV(&vt, vt_row_has(&vt, vt_status_row(&vt), "global layer 6 of 8") && !vt_row_has(&vt, vt_status_row(&vt), "(layers."));
    CHECKV(&vt, vt_row_has(&vt, msg_row(&vt), "layers.5.mlp.linear_fc2"));   /* the same row, its name kept */
    vt_send(&vt, "<F5>");
    VT_WAIT(&vt, vt_has(&vt, "names global"));
    CHECKV(&vt, vt_has(&vt, "names global"));
    command(&vt, "layers local");
    VT_WAIT(&vt, vt_has(&vt, "names local"));
    CHECKV(&vt, vt_has(&vt, "names local"));
    vt_send(&vt, "<F2>");
    VT_WAIT(&vt, vt_row_has(&vt, vt_status_row(&vt), "global layer 6 of 8 (layers.5)"));
    CHECKV(&vt, vt_row_has(&vt, vt_status_row(&vt), "global layer 6 of 8 (layers.5)"));
    pt_vt_quit(&vt);
}

int main(void) {
    RUN(test_200x50);
    RUN(test_80x24_scroll);
    RUN(test_group);
    PT_DONE();
}
