/* agg: value text and zoom aggregation (see agg.h). */
#include "views/agg.h"

#include <math.h>
#include <stdio.h>

#include "ui/text.h"

void agg_add(struct agg *g, float v) {
    if (cube_is_missing(v)) { g->notensor |= cube_is_notensor(v); return; }
    g->present = 1;
    if (isnan(v)) { g->nan = 1; return; }
    if (isinf(v)) { if (v > 0) g->pinf = 1; else g->ninf = 1; return; }
    if (fabsf(v) > fabsf(g->best) || (g->best == 0 && v != 0)) g->best = v;
}

float agg_result(const struct agg *g) {
    if (!g->present) return g->notensor ? cube_notensor() : cube_missing();
    if (g->nan) return NAN;
    if (g->pinf) return INFINITY;
    if (g->ninf) return -INFINITY;
    return g->best;
}

float agg_block(const struct cube_slice *s, int x0, int x1, int y0, int y1, const uint32_t *xs, const uint32_t *ys) {
    struct agg g;
    agg_init(&g);
    if (x1 > s->nx) x1 = s->nx;
    for (int y = y0; y < y1; y++) {
        int sy = ys ? (int)ys[y] : y;
        if (sy < 0 || sy >= s->ny) continue;
        for (int x = x0 < 0 ? 0 : x0; x < x1; x++) agg_add(&g, cube_slice_at(s, xs ? (int)xs[x] : x, sy));
    }
    return agg_result(&g);
}

char *agg_fmt_value(float v, char *buf, size_t size) {
    if (cube_is_missing(v)) snprintf(buf, size, "%s", "");
    else if (isnan(v)) snprintf(buf, size, "NaN");
    else if (isinf(v)) snprintf(buf, size, v > 0 ? "+Inf" : "-Inf");
    else snprintf(buf, size, "%.6g", (double)v);
    return buf;
}

char *agg_fmt_cell(float v, int width, int cursor, char *buf, size_t size) {
    char num[32];
    int room = cursor ? width - 2 : width - 1;
    if (room < 1 || cube_is_missing(v)) num[0] = '\0';
    else text_fmt_fit(v, room, NULL, num, sizeof num);
    if (cursor) snprintf(buf, size, "[%*s]", room > 0 ? room : 0, num);
    else snprintf(buf, size, "%*s ", room > 0 ? room : 0, num);
    return buf;
}

int agg_zoom_fit(int n, int room) {
    int z = 1;
    while (room > 0 && (n + z - 1) / z > room && z < (1 << 20)) z *= 2;
    return z;
}
