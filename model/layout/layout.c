/* layout: the Megatron model-parallel layout.  See layout.h and
 * probetop-rules(7), MEGATRON LAYOUT. */
#include "model/layout/layout.h"

#include "model/cube/cube.h"
#include "model/cube/names.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const dim_names[LAYOUT_NDIM] = {"tp", "cp", "dp", "pp"};

const char *layout_dim_name(enum layout_dim d) {
    return (unsigned)d < LAYOUT_NDIM ? dim_names[d] : "?";
}

int layout_dim_parse(const char *s) {
    for (int d = 0; d < LAYOUT_NDIM; d++)
        if (s && strcasecmp(s, dim_names[d]) == 0) return d;
    return -1;
}

/* --- configuration --------------------------------------------------- */

void layout_config_init(struct layout_config *c) {
    memset(c, 0, sizeof *c);
    c->tp = 1;
    c->pp = 1;
    snprintf(c->order, sizeof c->order, "%s", LAYOUT_DEFAULT_ORDER);
}

/* Integer text: optional sign, digits.  Anything else (empty, "1.5",
 * "true") is not an integer and reads as 0, which validation rejects as not
 * positive.  Huge values saturate so they fail the range checks with the
 * number-sized message rather than wrapping into range. */
static long parse_count(const char *s) {
    if (!s) return 0;
    while (isspace((unsigned char)*s)) s++;
    int neg = 0;
    if (*s == '+' || *s == '-') neg = *s++ == '-';
    if (!isdigit((unsigned char)*s)) return 0;
    long v = 0;
    for (; isdigit((unsigned char)*s); s++) {
        int dgt = *s - '0';
        v = v > (LONG_MAX - dgt) / 10 ? LONG_MAX : v * 10 + dgt;
    }
    while (isspace((unsigned char)*s)) s++;
    if (*s) return 0;
    return neg ? (v ? -v : -1) : v;   /* "-0" is not positive either */
}

static int parse_bool(const char *s) {
    static const char *const yes[] = {"1", "true", "yes", "on"};
    static const char *const no[] = {"0", "false", "no", "off"};
    if (!s || !*s) return 1;   /* a bare flag */
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        if (strcasecmp(s, yes[i]) == 0) return 1;
        if (strcasecmp(s, no[i]) == 0) return 0;
    }
    return -1;
}

enum cfg_key { K_WORLD, K_LAYERS, K_TP, K_PP, K_V, K_ORDER, K_SE };

static const struct { const char *name; enum cfg_key key; } cfg_keys[] = {
    {"world_size", K_WORLD}, {"world-size", K_WORLD}, {"w", K_WORLD},
    {"num_layers", K_LAYERS}, {"num-layers", K_LAYERS}, {"l", K_LAYERS},
    {"tensor_parallel_size", K_TP}, {"tp", K_TP},
    {"pipeline_parallel_size", K_PP}, {"pp", K_PP},
    {"num_layers_per_virtual_pipeline_stage", K_V}, {"vpp-layers", K_V}, {"vpp_layers", K_V}, {"v", K_V},
    {"order", K_ORDER},
    {"standalone_embedding_stage", K_SE}, {"standalone-embedding", K_SE}, {"standalone", K_SE}, {"se", K_SE},
};

int layout_config_set(struct layout_config *c, const char *key, const char *value, struct pt_error *e) {
    for (size_t i = 0; i < sizeof cfg_keys / sizeof cfg_keys[0]; i++) {
        if (strcasecmp(key, cfg_keys[i].name) != 0) continue;
        switch (cfg_keys[i].key) {
        case K_WORLD: c->world_size = parse_count(value); break;
        case K_LAYERS: c->num_layers = parse_count(value); break;
        case K_TP: c->tp = parse_count(value); break;
        case K_PP: c->pp = parse_count(value); break;
        case K_V: c->vpp_layers = parse_count(value); c->has_vpp = 1; break;
        case K_SE: c->standalone = parse_bool(value); break;
        case K_ORDER: {
            const char *v = value ? value : "";
            size_t n = strlen(v);
            c->order_overlong = n >= sizeof c->order;
            snprintf(c->order, sizeof c->order, "%s", v);
            break;
        }
        }
        return 0;
    }
    char esc[128];
    return pt_errorf(e, "unknown layout setting '%s' (expected W, L, TP, PP, V, ORDER or SE)",
                     pt_escape(key, strlen(key), esc, sizeof esc));
}

int layout_config_parse(struct layout_config *c, const char *text, struct pt_error *e) {
    layout_config_init(c);
    const char *p = text ? text : "";
    char word[256];
    for (;;) {
        while (isspace((unsigned char)*p)) p++;
        if (!*p) return 0;
        size_t n = 0;
        while (p[n] && !isspace((unsigned char)p[n])) n++;
        if (n >= sizeof word) {
            return pt_errorf(e, "parallel: word of %zu bytes is too long", n);
        }
        memcpy(word, p, n);
        word[n] = '\0';
        p += n;
        char *eq = strchr(word, '=');
        if (eq) {
            *eq = '\0';
            if (layout_config_set(c, word, eq + 1, e) != 0) return -1;
        } else if (strcasecmp(word, "se") == 0 || strcasecmp(word, "standalone") == 0) {
            c->standalone = 1;
        } else if (strchr(word, '-') || layout_dim_parse(word) >= 0 || strcasecmp(word, "ep") == 0) {
            layout_config_set(c, "order", word, e);
        } else {
            char esc[300];
            return pt_errorf(e, "parallel: '%s' is neither KEY=VALUE (W, L, TP, PP, V, ORDER, SE) nor an order like tp-cp-ep-dp-pp",
                             pt_escape(word, n, esc, sizeof esc));
        }
    }
}

char *layout_config_format(const struct layout_config *c, char *buf, size_t n) {
    int k = snprintf(buf, n, "W=%ld L=%ld TP=%ld PP=%ld", c->world_size, c->num_layers, c->tp, c->pp);
    if (k < 0 || (size_t)k >= n) return buf;
    if (c->has_vpp) {
        k += snprintf(buf + k, n - k, " V=%ld", c->vpp_layers);
        if ((size_t)k >= n) return buf;
    }
    k += snprintf(buf + k, n - k, " ORDER=%s", c->order);
    if ((size_t)k >= n) return buf;
    if (c->standalone) snprintf(buf + k, n - k, " SE");
    return buf;
}

/* --- validation (probetop-rules(7), MEGATRON LAYOUT: Validation) and layout ---------------------------------------- */

/* probetop-rules(7), MEGATRON LAYOUT: the order string.  Writes the effective order (with the
 * names left out appended) to l->order and its tokens without ep to
 * l->tok. */
static int parse_order(struct layout *l, const struct layout_config *c, struct pt_error *e) {
    char shown[LAYOUT_ORDER_MAX * 4 + 8];
    pt_escape(c->order, strlen(c->order), shown, sizeof shown);
    if (c->order_overlong)
        return pt_errorf(e, "order (%s...) is too long: expected tokens tp, cp, ep, dp, pp joined by '-'", shown);

    char ord[LAYOUT_ORDER_MAX + 32];
    size_t n = strlen(c->order);
    for (size_t i = 0; i <= n; i++) ord[i] = (char)tolower((unsigned char)c->order[i]);

    if (strstr(ord, "ep") && !strstr(ord, "ep-dp") && !strstr(ord, "dp-ep"))
        return pt_errorf(e, "The ep and dp must be adjacent in order (%s).", shown);

    /* msProbe checks the names in this order; a name that is not a
     * substring of the order must have size 1 and is appended. */
    static const char *const names[] = {"tp", "pp", "dp", "ep", "cp"};
    for (size_t i = 0; i < 5; i++) {
        int size = 1;
        int d = layout_dim_parse(names[i]);
        if (d >= 0) size = l->size[d];
        if (strstr(ord, names[i])) continue;
        if (size != 1)
            return pt_errorf(e, "The parallel size (%s) is (%d), but it's not specified in order (%s).",
                             names[i], size, shown);
        size_t m = strlen(ord);
        snprintf(ord + m, sizeof ord - m, "-%s", names[i]);
    }

    /* Tokens.  msProbe crashes on an unknown token and silently computes
     * wrong groups for a repeated one; both are errors here. */
    int seen[LAYOUT_NDIM + 1] = {0};
    l->ntok = 0;
    const char *p = ord;
    for (;;) {
        const char *dash = strchr(p, '-');
        size_t len = dash ? (size_t)(dash - p) : strlen(p);
        char tok[LAYOUT_ORDER_MAX + 32];
        memcpy(tok, p, len);
        tok[len] = '\0';
        int d = strcmp(tok, "ep") == 0 ? LAYOUT_NDIM : layout_dim_parse(tok);
        if (d < 0) {
            char t[200];
            return pt_errorf(e, "unknown parallel dimension '%s' in order (%s): expected tp, cp, ep, dp or pp",
                             pt_escape(tok, len, t, sizeof t), shown);
        }
        if (seen[d]++)
            return pt_errorf(e, "parallel dimension '%s' appears more than once in order (%s)", tok, shown);
        if (d < LAYOUT_NDIM) l->tok[l->ntok++] = (enum layout_dim)d;
        if (!dash) break;
        p = dash + 1;
    }
    /* Valid tokens, each once: at most 14 bytes. */
    memcpy(l->order, ord, strlen(ord) + 1);
    return 0;
}

static int validate(struct layout *l, const struct layout_config *c, struct pt_error *e) {
    const struct { const char *name; long v; } positive[] = {
        {"world_size", c->world_size},
        {"num_layers", c->num_layers},
        {"tensor_parallel_size", c->tp},
        {"pipeline_parallel_size", c->pp},
        {"num_layers_per_virtual_pipeline_stage", c->has_vpp ? c->vpp_layers : 1},
    };
    for (size_t i = 0; i < sizeof positive / sizeof positive[0]; i++)
        if (positive[i].v < 1) return pt_errorf(e, "%s must be a positive integer", positive[i].name);
    if (c->world_size > LAYOUT_MAX_WORLD)
        return pt_errorf(e, "world_size (%ld) exceeds the maximum supported value of %d.",
                         c->world_size, LAYOUT_MAX_WORLD);
    if (c->num_layers > LAYOUT_MAX_LAYERS)
        return pt_errorf(e, "num_layers (%ld) exceeds the maximum supported value of %d.",
                         c->num_layers, LAYOUT_MAX_LAYERS);
    /* TP or PP above the world size cannot divide it (and would overflow
     * the product). */
    if (c->tp > c->world_size || c->pp > c->world_size || c->world_size % (c->tp * c->pp) != 0)
        return pt_errorf(e, "world_size (%ld) is not divisible by tensor_parallel_size(%ld) x pipeline_parallel_size (%ld)",
                         c->world_size, c->tp, c->pp);
    if (c->standalone != 0 && c->standalone != 1)
        return pt_errorf(e, "standalone_embedding_stage must be a boolean");

    l->world = (int)c->world_size;
    l->layers = (int)c->num_layers;
    l->tp = (int)c->tp;
    l->pp = (int)c->pp;
    if (l->pp > l->world / l->tp) l->pp = l->world / l->tp;   /* probetop-rules(7), MEGATRON LAYOUT: Validation; a no-op after check 4 */
    l->standalone = c->standalone;
    l->tpp = l->standalone ? l->pp - 1 : l->pp;
    if (l->tpp == 0 || l->layers % l->tpp != 0) {
        if (l->standalone)
            return pt_errorf(e, "number of layers (%d) must be divisible by transformer_pipeline_parallel_size (%d), "
                                "which is pipeline_parallel_size-1 when standalone_embedding_stage is enabled.",
                             l->layers, l->tpp);
        return pt_errorf(e, "number of layers (%d) must be divisible by pipeline_parallel_size (%d).",
                         l->layers, l->pp);
    }
    l->lps = l->layers / l->tpp;
    l->vpp = 1;
    l->vpp_layers = 0;
    if (c->has_vpp) {
        if (c->vpp_layers > l->lps || l->lps % c->vpp_layers != 0)
            return pt_errorf(e, "number of layers per pipeline stage (%d) must be divisible by "
                                "number of layers per virtual pipeline stage (%ld).",
                             l->lps, c->vpp_layers);
        l->vpp_layers = (int)c->vpp_layers;
        l->vpp = l->lps / l->vpp_layers;
        if (l->vpp > 1 && l->pp <= 1)
            return pt_errorf(e, "pipeline-model-parallel size should be greater than 1 with virtual-pipeline");
    }
    l->dp = l->world / (l->tp * l->pp);
    l->cp = 1;
    l->size[LAYOUT_TP] = l->tp;
    l->size[LAYOUT_CP] = 1;
    l->size[LAYOUT_DP] = l->dp;
    l->size[LAYOUT_PP] = l->pp;
    return parse_order(l, c, e);
}

/* Index of a rank's group of dimension d: its other coordinates in mixed
 * radix over the other tokens, first token fastest (probetop-rules(7), MEGATRON LAYOUT: Rank groups). */
static int group_index(const struct layout *l, const int *coord, enum layout_dim d) {
    int g = 0, mul = 1;
    for (int i = 0; i < l->ntok; i++) {
        enum layout_dim t = l->tok[i];
        if (t == d) continue;
        g += coord[t] * mul;
        mul *= l->size[t];
    }
    return g;
}

struct layout *layout_new(const struct layout_config *c, struct pt_error *e) {
    struct layout *l = calloc(1, sizeof *l);
    if (!l) {
        pt_errorf(e, "out of memory");
        return NULL;
    }
    if (validate(l, c, e) != 0) {
        free(l);
        return NULL;
    }
    int stride = 1;
    for (int i = 0; i < l->ntok; i++) {
        l->stride[l->tok[i]] = stride;
        stride *= l->size[l->tok[i]];
    }
    l->nrows = l->world / l->tp;
    l->rank = calloc((size_t)l->world, sizeof *l->rank);
    l->row_rank = calloc((size_t)l->nrows, sizeof *l->row_rank);
    if (!l->rank || !l->row_rank) {
        layout_free(l);
        pt_errorf(e, "out of memory");
        return NULL;
    }
    for (int r = 0; r < l->world; r++) {
        struct layout_rank *lr = &l->rank[r];
        for (int i = 0; i < l->ntok; i++) {
            enum layout_dim t = l->tok[i];
            lr->coord[t] = (r / l->stride[t]) % l->size[t];
        }
        for (int d = 0; d < LAYOUT_NDIM; d++) lr->group[d] = group_index(l, lr->coord, (enum layout_dim)d);
    }
    /* probetop-rules(7), MEGATRON LAYOUT: The picture: a row's representative is the member of its TP group listed
     * first in its model copy, i.e. the one whose DP group comes first. */
    for (int row = 0; row < l->nrows; row++) l->row_rank[row] = -1;
    for (int r = 0; r < l->world; r++) {
        int row = l->rank[r].group[LAYOUT_TP], cur = l->row_rank[row];
        if (cur < 0 || l->rank[r].group[LAYOUT_DP] < l->rank[cur].group[LAYOUT_DP]) l->row_rank[row] = r;
    }
    return l;
}

void layout_free(struct layout *l) {
    if (!l) return;
    free(l->rank);
    free(l->row_rank);
    free(l);
}

int layout_ngroups(const struct layout *l, enum layout_dim d) {
    return (unsigned)d < LAYOUT_NDIM ? l->world / l->size[d] : 0;
}

int layout_group(const struct layout *l, enum layout_dim d, int g, int *out) {
    if ((unsigned)d >= LAYOUT_NDIM || g < 0 || g >= layout_ngroups(l, d)) return -1;
    int base = 0, rest = g;
    for (int i = 0; i < l->ntok; i++) {
        enum layout_dim t = l->tok[i];
        if (t == d) continue;
        base += (rest % l->size[t]) * l->stride[t];
        rest /= l->size[t];
    }
    for (int c = 0; c < l->size[d]; c++) out[c] = base + c * l->stride[d];
    return 0;
}

/* --- layers (probetop-rules(7), MEGATRON LAYOUT: Layers held by a rank) ------------------------------------------------------- */

/* Transformer layers per chunk of a rank on stage s, and the offset of
 * chunk v (0-based: the chunk holds offset+1 .. offset+n). */
static int chunk_layers(const struct layout *l, int s, int v, int *offset) {
    int ps = l->standalone ? s - 1 : s;
    int n;
    if (l->pp == 1) n = l->layers;
    else if (l->standalone && s == 0) n = 0;
    else n = l->vpp > 1 ? l->lps / l->vpp : l->lps;
    if (l->vpp > 1) *offset = v * (l->layers / l->vpp) + ps * (l->lps / l->vpp);
    else *offset = ps * l->lps;
    return n;
}

int layout_chunk(const struct layout *l, int rank, int chunk, struct layout_chunk *out) {
    memset(out, 0, sizeof *out);
    if (rank < 0 || rank >= l->world || chunk < 0 || chunk >= l->vpp) return -1;
    int s = l->rank[rank].coord[LAYOUT_PP], offset;
    int n = chunk_layers(l, s, chunk, &offset);
    out->embedding = s == 0 && chunk == 0;
    out->output = s == l->pp - 1 && chunk == l->vpp - 1;
    if (n > 0) {
        out->first = offset + 1;
        out->last = offset + n;
    }
    return 0;
}

char *layout_chunk_text(const struct layout_chunk *c, char *buf, size_t n) {
    char layers[32] = "";
    if (c->first > 0) snprintf(layers, sizeof layers, "L%d-%d", c->first, c->last);
    const char *parts[3] = {c->embedding ? "Embed" : "", layers, c->output ? "Out" : ""};
    size_t k = 0;
    if (n) buf[0] = '\0';
    for (int i = 0; i < 3; i++) {
        if (!*parts[i]) continue;
        int w = snprintf(buf + k, n > k ? n - k : 0, "%s%s", k ? "+" : "", parts[i]);
        if (w < 0) break;
        k += (size_t)w;
        if (k >= n) break;
    }
    return buf;
}

int layout_global_layer(const struct layout *l, int rank, int chunk, int local_index) {
    if (rank < 0 || rank >= l->world || chunk < 0 || chunk >= l->vpp || local_index < 0) return -1;
    int offset;
    int n = chunk_layers(l, l->rank[rank].coord[LAYOUT_PP], chunk, &offset);
    return local_index < n ? offset + local_index + 1 : -1;
}

/* --- rows and labels (probetop-rules(7), MEGATRON LAYOUT: The picture) ---------------------------------------------- */

int layout_row_copy(const struct layout *l, int row) {
    return row >= 0 && row < l->nrows ? l->rank[l->row_rank[row]].coord[LAYOUT_DP] : -1;
}

int layout_row_stage(const struct layout *l, int row) {
    return row >= 0 && row < l->nrows ? l->rank[l->row_rank[row]].coord[LAYOUT_PP] : -1;
}

char *layout_row_label(const struct layout *l, int row, char *buf, size_t n) {
    if (row < 0 || row >= l->nrows) {
        snprintf(buf, n, "?");
        return buf;
    }
    int lo = INT_MAX, hi = -1;
    int members[LAYOUT_MAX_WORLD];
    layout_group(l, LAYOUT_TP, row, members);
    for (int i = 0; i < l->tp; i++) {
        if (members[i] < lo) lo = members[i];
        if (members[i] > hi) hi = members[i];
    }
    if (lo == hi) snprintf(buf, n, "Rank%d", lo);
    else snprintf(buf, n, "Group%d: Rank%d-%d", row, lo, hi);
    return buf;
}

char *layout_rank_label(const struct layout *l, int rank, char *buf, size_t n) {
    if (rank < 0 || rank >= l->world) snprintf(buf, n, "?");
    else snprintf(buf, n, "p%dt%dd%d", l->rank[rank].coord[LAYOUT_PP], l->rank[rank].coord[LAYOUT_TP],
                  l->rank[rank].coord[LAYOUT_DP]);
    return buf;
}

void layout_rank_order(const struct layout *l, int by, int *perm) {
    if (by < 0 || by >= LAYOUT_NDIM) {
        for (int r = 0; r < l->world; r++) perm[r] = r;
        return;
    }
    /* The transpose of the group list: block c lists element c of every
     * group, groups in order (how msProbe builds stages and copies). */
    int k = 0, members[LAYOUT_MAX_WORLD];
    int ng = layout_ngroups(l, (enum layout_dim)by);
    for (int c = 0; c < l->size[by]; c++)
        for (int g = 0; g < ng; g++) {
            layout_group(l, (enum layout_dim)by, g, members);
            perm[k++] = members[c];
        }
}

/* --- colours (probetop-rules(7), MEGATRON LAYOUT: The picture) ------------------------------------------------------ */

static const uint32_t tab20[20] = {
    0x1f77b4, 0xaec7e8, 0xff7f0e, 0xffbb78, 0x2ca02c, 0x98df8a, 0xd62728, 0xff9896, 0x9467bd, 0xc5b0d5,
    0x8c564b, 0xc49c94, 0xe377c2, 0xf7b6d2, 0x7f7f7f, 0xc7c7c7, 0xbcbd22, 0xdbdb8d, 0x17becf, 0x9edae5,
};
static const uint32_t tab20bc[40] = {
    0x393b79, 0x5254a3, 0x6b6ecf, 0x9c9ede, 0x637939, 0x8ca252, 0xb5cf6b, 0xcedb9c, 0x8c6d31, 0xbd9e39,
    0xe7ba52, 0xe7cb94, 0x843c39, 0xad494a, 0xd6616b, 0xe7969c, 0x7b4173, 0xa55194, 0xce6dbd, 0xde9ed6,
    0x3182bd, 0x6baed6, 0x9ecae1, 0xc6dbef, 0xe6550d, 0xfd8d3c, 0xfdae6b, 0xfdd0a2, 0x31a354, 0x74c476,
    0xa1d99b, 0xc7e9c0, 0x756bb1, 0x9e9ac8, 0xbcbddc, 0xdadaeb, 0x636363, 0x969696, 0xbdbdbd, 0xd9d9d9,
};
/* viridis at 0, 0.1, ..., 1; interpolated linearly between. */
static const uint32_t viridis[11] = {
    0x440154, 0x482475, 0x414487, 0x355f8d, 0x2a788e, 0x21918c, 0x22a884, 0x44bf70, 0x7ad151, 0xbddf26, 0xfde725,
};

uint32_t layout_copy_rgb(int ncopies, int j) {
    if (j < 0) j = 0;
    if (ncopies <= 20) return tab20[j % 20];
    if (ncopies <= 40) return tab20bc[j % 40];
    double t = (double)j / (ncopies - 1) * 10.0;
    int i = (int)t;
    if (i >= 10) return viridis[10];
    double f = t - i;
    uint32_t a = viridis[i], b = viridis[i + 1], out = 0;
    for (int sh = 0; sh <= 16; sh += 8) {
        double ca = (a >> sh) & 0xff, cb = (b >> sh) & 0xff;
        out |= (uint32_t)(ca + (cb - ca) * f + 0.5) << sh;
    }
    return out;
}

int layout_rgb_xterm256(uint32_t rgb) {
    static const int level[6] = {0, 95, 135, 175, 215, 255};
    int c[3] = {(int)(rgb >> 16) & 0xff, (int)(rgb >> 8) & 0xff, (int)rgb & 0xff};
    int q[3];
    long cube_d = 0;
    for (int i = 0; i < 3; i++) {
        int best = 0;
        for (int k = 1; k < 6; k++)
            if (abs(level[k] - c[i]) < abs(level[best] - c[i])) best = k;
        q[i] = best;
        cube_d += (long)(level[best] - c[i]) * (level[best] - c[i]);
    }
    int avg = (c[0] + c[1] + c[2]) / 3;
    int g = avg < 8 ? 0 : avg > 238 ? 23 : (avg - 8 + 5) / 10;
    if (g > 23) g = 23;
    int gv = 8 + 10 * g;
    long gray_d = 0;
    for (int i = 0; i < 3; i++) gray_d += (long)(gv - c[i]) * (gv - c[i]);
    return gray_d < cube_d ? 232 + g : 16 + 36 * q[0] + 6 * q[1] + q[2];
}

int layout_rgb_dark(uint32_t rgb) {
    int r = (int)(rgb >> 16) & 0xff, g = (int)(rgb >> 8) & 0xff, b = (int)rgb & 0xff;
    return 299 * r + 587 * g + 114 * b < 110 * 1000;
}

/* --- target names (probetop-rules(7), MEGATRON LAYOUT: Layer names) ------------------------------------------------- */

long layout_find_layer(const char *name, size_t len, size_t *at, size_t *digits) {
    size_t i = 0;
    while (i < len) {
        size_t end = i;
        while (end < len && name[end] != '.') end++;
        if (end - i == 6 && memcmp(name + i, "layers", 6) == 0 && end < len) {
            size_t j = end + 1, k = j;
            while (k < len && isdigit((unsigned char)name[k])) k++;
            /* A whole numeric segment of sane length. */
            if (k > j && k - j <= 9 && (k == len || name[k] == '.')) {
                long v = 0;
                for (size_t m = j; m < k; m++) v = v * 10 + (name[m] - '0');
                if (at) *at = j;
                if (digits) *digits = k - j;
                return v;
            }
        }
        i = end + 1;
    }
    return -1;
}

int layout_dump_chunk(const char *name, size_t len) {
    size_t k;
    if (len > 7 && memcmp(name, "Module.", 7) == 0) k = 7;
    else if (len > 5 && memcmp(name, "Cell.", 5) == 0) k = 5;
    else return 0;
    size_t j = k;
    int v = 0;
    while (j < len && isdigit((unsigned char)name[j]) && j - k < 6) v = v * 10 + (name[j++] - '0');
    return j > k && j < len && name[j] == '.' ? v : 0;
}

int layout_name_global_layer(const struct layout *l, int rank, int chunk, const char *name, size_t len) {
    long i = layout_find_layer(name, len, NULL, NULL);
    if (i < 0 || i > INT_MAX) return -1;
    return layout_global_layer(l, rank, chunk, (int)i);
}

int layout_rename(const struct layout *l, int rank, int chunk, const char *name, size_t len,
                  char *out, size_t n, struct pt_error *e) {
    size_t at, digits;
    long i = layout_find_layer(name, len, &at, &digits);
    char esc[512];
    if (i < 0) {
        if (n <= len) return pt_errorf(e, "target name of %zu bytes does not fit the buffer", len);
        memcpy(out, name, len);
        out[len] = '\0';
        return 0;
    }
    int g = i <= INT_MAX ? layout_global_layer(l, rank, chunk, (int)i) : -1;
    if (g < 0) {
        struct layout_chunk c;
        char what[64];
        if (layout_chunk(l, rank, chunk, &c) != 0)
            return pt_errorf(e, "%s: rank %d chunk %d is not in the layout (%d ranks, %d chunks per rank)",
                             pt_escape(name, len, esc, sizeof esc), rank, chunk, l->world, l->vpp);
        int held = c.first ? c.last - c.first + 1 : 0;
        layout_chunk_text(&c, what, sizeof what);
        return pt_errorf(e, "%s: rank %d chunk %d holds %d transformer layer%s (%s), no local layers.%ld",
                         pt_escape(name, len, esc, sizeof esc), rank, chunk, held, held == 1 ? "" : "s",
                         *what ? what : "nothing", i);
    }
    char num[16];
    int w = snprintf(num, sizeof num, "%d", g - 1);
    size_t need = len - digits + (size_t)w + 1;
    if (need > n) return pt_errorf(e, "renamed target name of %zu bytes does not fit the buffer", need - 1);
    memcpy(out, name, at);
    memcpy(out + at, num, (size_t)w);
    memcpy(out + at + w, name + at + digits, len - at - digits);
    out[need - 1] = '\0';
    return 1;
}

int layout_target_chunk(const char *name, size_t len, int32_t vpp) {
    return vpp != 0 ? vpp : layout_dump_chunk(name, len);
}

/* --- whole cubes (probetop-rules(7), MEGATRON LAYOUT: Layer names) -------------------------------------------------- */

struct glob_key {
    int g;            /* 0 before the layers, 1..L a layer, L+1 after */
    uint32_t old;     /* smallest input target id mapped here */
    uint32_t id;      /* the id in the scratch names table */
};

static int cmp_glob_key(const void *a, const void *b) {
    const struct glob_key *x = a, *y = b;
    if (x->g != y->g) return x->g < y->g ? -1 : 1;
    if (x->old != y->old) return x->old < y->old ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

/* The input targets renamed to global layer numbers, per stage slot, into
 * tmp: map[slot * nt + t] their new id, keys[id] their order.  0, or -1
 * with e set. */
static int glob_rename(const struct layout *l, const struct names *on, int nslots, const int32_t *rank_of,
                       struct names *tmp, struct glob_key *keys, uint32_t *map, struct pt_error *e) {
    uint32_t nt = names_count(on);
    uint32_t first_layer = UINT32_MAX;
    for (uint32_t t = 0; t < nt && first_layer == UINT32_MAX; t++) {
        const struct target *tg = names_target(on, t);
        if (layout_find_layer(names_str(on, t), tg->len, NULL, NULL) >= 0) first_layer = t;
    }
    char *buf = NULL;
    size_t bufsize = 0;
    int rc = -1;
    for (uint32_t t = 0; t < nt; t++) {
        const struct target *tg = names_target(on, t);
        const char *name = names_str(on, t);
        if (tg->len + 16 > bufsize) {
            char *nb = realloc(buf, tg->len + 16);
            if (!nb) goto oom;
            buf = nb;
            bufsize = tg->len + 16;
        }
        int chunk = layout_target_chunk(name, tg->len, tg->vpp);
        for (int sl = 0; sl < nslots; sl++) {
            size_t k = (size_t)sl * nt + t;
            if (rank_of[k] < 0) continue;
            int r = layout_rename(l, rank_of[k], chunk, name, tg->len, buf, bufsize, e);
            if (r < 0) {
                char msg[sizeof e->msg];
                snprintf(msg, sizeof msg, "%s", e->msg);
                pt_errorf(e, "cannot number the layers globally: %s; does the parallel configuration match the run?", msg);
                goto done;
            }
            int g = r == 1 ? layout_name_global_layer(l, rank_of[k], chunk, name, tg->len)
                           : t < first_layer ? 0 : l->layers + 1;
            uint32_t before = names_count(tmp);
            uint32_t id = names_intern(tmp, buf, strlen(buf), tg->vpp, tg->call);
            if (id == NAMES_NONE) goto oom;
            if (id == before) keys[id] = (struct glob_key){g, t, id};
            else if (t < keys[id].old) keys[id].old = t;
            map[k] = id;
        }
    }
    rc = 0;
    goto done;
oom:
    pt_errorf(e, "out of memory while numbering the layers globally");
done:
    free(buf);
    return rc;
}

/* Metric m of the input copied into c under the global names (map: input
 * target per stage slot -> scratch id, fmap: scratch id -> final id).
 * newlt and slotlt are scratch of names_count(c->names) and nslots.  0, or
 * -1 out of memory (what was made is c's, freed with it). */
static int glob_metric(const struct cube *in, int m, struct cube *c, const uint32_t *map, const uint32_t *fmap,
                       const int *slot, int nslots, uint32_t *newlt, uint32_t *slotlt) {
    uint32_t nt = names_count(in->names), nfin = names_count(c->names);
    const struct cube_metric *cm = &in->metrics[m];
    struct cube_metric *nm = &c->metrics[m];
    c->nmetrics = m + 1;
    nm->name = strdup(cm->name);
    nm->nstats = cm->nstats;
    for (int st = 0; st < cm->nstats; st++)
        if (!(nm->stats[st] = strdup(cm->stats[st]))) return -1;
    if (!nm->name) return -1;
    /* The new targets with data in this metric, ascending. */
    for (uint32_t f = 0; f < nfin; f++) newlt[f] = UINT32_MAX;
    /* Memory order: stat, target, step, rank (rank fastest). */
    const float *src = cm->vals;
    for (int st = 0; st < cm->nstats; st++)
        for (uint32_t lt = 0; lt < cm->ntargets; lt++)
            for (int step = 0; step < in->nsteps; step++, src += in->nranks)
                for (int ri = 0; ri < in->nranks; ri++) {
                    if (cube_is_missing(src[ri])) continue;
                    uint32_t id = map[(size_t)slot[ri] * nt + cm->targets[lt]];
                    if (id != NAMES_NONE) newlt[fmap[id]] = 0;
                }
    uint32_t k = 0;
    for (uint32_t f = 0; f < nfin; f++) k += newlt[f] != UINT32_MAX;
    nm->targets = malloc((k ? k : 1) * sizeof *nm->targets);
    size_t ncells = (size_t)cm->nstats * k * (size_t)in->nsteps * (size_t)in->nranks;
    nm->vals = malloc((ncells ? ncells : 1) * sizeof *nm->vals);
    if (!nm->targets || !nm->vals) return -1;
    k = 0;
    for (uint32_t f = 0; f < nfin; f++)
        if (newlt[f] != UINT32_MAX) {
            newlt[f] = k;
            nm->targets[k++] = f;
        }
    nm->ntargets = k;
    float missing = cube_missing();
    for (size_t i = 0; i < ncells; i++) nm->vals[i] = missing;
    src = cm->vals;
    for (int st = 0; st < cm->nstats; st++)
        for (uint32_t lt = 0; lt < cm->ntargets; lt++) {
            /* The new local target of each stage slot. */
            for (int sl = 0; sl < nslots; sl++) {
                uint32_t id = map[(size_t)sl * nt + cm->targets[lt]];
                slotlt[sl] = id == NAMES_NONE ? UINT32_MAX : newlt[fmap[id]];
            }
            for (int step = 0; step < in->nsteps; step++, src += in->nranks)
                for (int ri = 0; ri < in->nranks; ri++) {
                    uint32_t nl = slotlt[slot[ri]];
                    if (nl == UINT32_MAX || cube_is_missing(src[ri])) continue;
                    /* Two inputs cannot meet in one cell (the chunk
                     * and layer tell them apart); if they did, the
                     * first would win as in the loaders. */
                    float *dst = &nm->vals[cube_index(c, nm, st, nl, step, ri)];
                    if (cube_is_missing(*dst)) *dst = src[ri];
                }
        }
    return 0;
}

int layout_cube_global(const struct layout *l, const struct cube *in, struct cube **out, struct pt_error *e) {
    *out = NULL;
    const struct names *on = in->names;
    uint32_t nt = names_count(on);
    int rc = -1;
    struct names *tmp = NULL, *fin = NULL;
    struct cube *c = NULL;
    uint32_t *newlt = NULL, *slotlt = NULL;

    /* Cells move between targets only within a pipeline stage, so the
     * mapping is per (stage present in the data, input target). */
    int *slot = calloc((size_t)in->nranks + 1, sizeof *slot);
    int *stage_slot = malloc((size_t)l->pp * sizeof *stage_slot);
    int nslots = 0;
    if (!slot || !stage_slot) goto oom;
    for (int s = 0; s < l->pp; s++) stage_slot[s] = -1;
    for (int ri = 0; ri < in->nranks; ri++) {
        int32_t r = in->ranks[ri];
        if (r < 0 || r >= l->world) {
            pt_errorf(e, "the data has rank %d but the parallel layout has %d ranks (0-%d)", (int)r, l->world,
                      l->world - 1);
            goto done;
        }
        int s = l->rank[r].coord[LAYOUT_PP];
        if (stage_slot[s] < 0) stage_slot[s] = nslots++;
        slot[ri] = stage_slot[s];
    }
    size_t ncell = (size_t)nslots * nt;
    int32_t *rank_of = malloc((ncell ? ncell : 1) * sizeof *rank_of);   /* a rank with data, -1 none */
    uint32_t *map = malloc((ncell ? ncell : 1) * sizeof *map);
    struct glob_key *keys = NULL;
    uint32_t *fmap = NULL;
    if (!rank_of || !map) {
        free(rank_of);
        free(map);
        goto oom;
    }
    for (size_t i = 0; i < ncell; i++) {
        rank_of[i] = -1;
        map[i] = NAMES_NONE;
    }
    for (int m = 0; m < in->nmetrics; m++) {
        const struct cube_metric *cm = &in->metrics[m];
        for (int st = 0; st < cm->nstats; st++)
            for (uint32_t lt = 0; lt < cm->ntargets; lt++)
                for (int step = 0; step < in->nsteps; step++)
                    for (int ri = 0; ri < in->nranks; ri++) {
                        size_t k = (size_t)slot[ri] * nt + cm->targets[lt];
                        if (rank_of[k] < 0 && !cube_is_missing(cube_get(in, m, st, lt, step, ri)))
                            rank_of[k] = in->ranks[ri];
                    }
    }
    tmp = names_new();
    keys = malloc((ncell ? ncell : 1) * sizeof *keys);
    if (!tmp || !keys) goto oom2;
    if (glob_rename(l, on, nslots, rank_of, tmp, keys, map, e) != 0) goto done2;
    uint32_t nnew = names_count(tmp);
    qsort(keys, nnew, sizeof *keys, cmp_glob_key);
    fin = names_new();
    fmap = malloc((nnew ? nnew : 1) * sizeof *fmap);
    if (!fin || !fmap) goto oom2;
    for (uint32_t i = 0; i < nnew; i++) {
        uint32_t id = keys[i].id;
        const struct target *tg = names_target(tmp, id);
        fmap[id] = names_intern(fin, names_str(tmp, id), tg->len, tg->vpp, tg->call);
        if (fmap[id] == NAMES_NONE) goto oom2;
    }

    /* The new cube has the input's steps and ranks in the same order, so
     * cells are copied straight into place (no row builder). */
    c = calloc(1, sizeof *c);
    if (!c) goto oom2;
    c->names = fin;
    fin = NULL;
    c->nsteps = in->nsteps;
    c->nranks = in->nranks;
    c->steps = malloc((in->nsteps ? (size_t)in->nsteps : 1) * sizeof *c->steps);
    c->ranks = malloc((in->nranks ? (size_t)in->nranks : 1) * sizeof *c->ranks);
    c->metrics = calloc(in->nmetrics ? (size_t)in->nmetrics : 1, sizeof *c->metrics);
    uint32_t nfin = names_count(c->names);
    newlt = malloc((nfin ? nfin : 1) * sizeof *newlt);
    slotlt = malloc((nslots ? (size_t)nslots : 1) * sizeof *slotlt);
    if (!c->steps || !c->ranks || !c->metrics || !newlt || !slotlt) goto oom2;
    if (in->nsteps) memcpy(c->steps, in->steps, (size_t)in->nsteps * sizeof *c->steps);
    if (in->nranks) memcpy(c->ranks, in->ranks, (size_t)in->nranks * sizeof *c->ranks);
    for (int m = 0; m < in->nmetrics; m++) {
        if (glob_metric(in, m, c, map, fmap, slot, nslots, newlt, slotlt) != 0) goto oom2;
    }
    *out = c;
    c = NULL;
    rc = 0;
    goto done2;

oom2:
    pt_errorf(e, "out of memory while numbering the layers globally");
done2:
    cube_free(c);
    free(newlt);
    free(slotlt);
    free(rank_of);
    free(map);
    free(keys);
    free(fmap);
    goto done;
oom:
    pt_errorf(e, "out of memory while numbering the layers globally");
done:
    names_free(fin);
    names_free(tmp);
    free(slot);
    free(stage_slot);
    return rc;
}
