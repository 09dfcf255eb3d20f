/* cmd_trace_tables: HTA's kernel-type, top-kernel and idle tables in
 * `probetop trace` (src/cmd/cmd_trace_tables.h). */
#include "src/cmd/cmd_trace_tables.h"

#include <stdio.h>
#include <string.h>

#include "model/trace/idle.h"
#include "model/trace/kernels.h"
#include "src/io/common/json.h"

static double us(int64_t ns) { return (double)ns / 1000.0; }

int cmd_trace_tables_parse(const char *name) {
    static const char *const n[] = {"breakdown", "kernel_types", "top_kernels", "idle"};
    for (int i = 0; i < 4; i++)
        if (!strcmp(name, n[i])) return i;
    return -1;
}

/* The run's kernel types by descending time: masks into order[], their count. */
static int type_order(const int64_t *ns, int *order) {
    int n = 0;
    for (int m = 1; m < KERNELS_NMASKS; m++)
        if (ns[m]) order[n++] = m;
    for (int i = 1; i < n; i++)   /* insertion sort of at most 7 */
        for (int j = i; j > 0 && (ns[order[j]] > ns[order[j - 1]] || (ns[order[j]] == ns[order[j - 1]] && order[j] < order[j - 1])); j--) {
            int t = order[j]; order[j] = order[j - 1]; order[j - 1] = t;
        }
    return n;
}

static int64_t total_of(const int64_t *ns) {
    int64_t t = 0;
    for (int m = 1; m < KERNELS_NMASKS; m++) t += ns[m];
    return t;
}

static const char *name_of(const struct trace_run *run, const struct kernels_stat *s) {
    return s->name < run->nnames ? run->names[s->name] : "others";
}

/* A row of the top-kernels table: the named ones, then others (count > 0). */
typedef void (*top_row_fn)(const struct trace_run *run, int32_t rank, const struct kernels_stat *s, int others, int *first);

static void each_top(const struct trace_run *run, size_t top, top_row_fn fn) {
    int first = 1;
    for (int r = 0; r < run->nranks; r++) {
        const struct kernels_table *t = run->ranks[r].kernels;
        if (!t) continue;
        struct kernels_stat o;
        size_t n = kernels_top(t, top, &o);
        for (size_t i = 0; i < n; i++) fn(run, run->ranks[r].rank, &t->k[i], 0, &first);
        if (o.count) fn(run, run->ranks[r].rank, &o, 1, &first);
    }
}

static void text_top(const struct trace_run *run, int32_t rank, const struct kernels_stat *s, int others, int *first) {
    (void)first;
    char nm[61];
    const char *name = others ? "others" : name_of(run, s);
    size_t l = strlen(name);
    if (l > 60) snprintf(nm, sizeof nm, "%.57s...", name);
    else snprintf(nm, sizeof nm, "%s", name);
    printf("%4d %-13s %8llu %12.0f %10.0f %10.0f %10.1f  %s\n", rank, others ? "-" : kernels_type_name(s->type),
           (unsigned long long)s->count, us(s->sum_ns), us(s->max_ns), us(s->min_ns),
           s->count ? us(s->sum_ns) / (double)s->count : 0.0, nm);
}

void cmd_trace_tables_text(const struct trace_run *run, size_t top) {
    int64_t ns[KERNELS_NMASKS];
    int order[KERNELS_NMASKS];
    char buf[96];
    kernels_run_masks(run, ns);
    int n = type_order(ns, order);
    int64_t tot = total_of(ns);
    printf("\nkernel types (all ranks; time each set of types runs, overlaps apart)\n");
    printf("%-56s %14s %7s\n", "type", "us", "pct");
    for (int i = 0; i < n; i++)
        printf("%-56s %14.0f %7.2f\n", kernels_mask_name(order[i], buf, sizeof buf), us(ns[order[i]]),
               tot ? 100.0 * (double)ns[order[i]] / (double)tot : 0.0);
    if (top) printf("\ntop kernels per rank by total time (the rest as one 'others' row; --top K)\n");
    else printf("\nkernels per rank by total time\n");
    printf("rank type             count       sum_us     max_us     min_us    mean_us  name\n");
    each_top(run, top, text_top);
    printf("\nidle time per rank and stream (gaps between kernels on the stream)\n");
    printf("rank stream  host_wait_us kernel_wait_us     other_us\n");
    for (int r = 0; r < run->nranks; r++) {
        const struct idle_table *t = run->ranks[r].idle;
        for (size_t i = 0; t && i < t->n; i++)
            printf("%4d %6u %13.0f %14.0f %12.0f\n", run->ranks[r].rank, (unsigned)t->v[i].stream, us(t->v[i].host_ns),
                   us(t->v[i].kernel_ns), us(t->v[i].other_ns));
    }
}

static void csv_str(const char *s) {
    if (!strpbrk(s, ",\"\n\r")) { fputs(s, stdout); return; }
    putchar('"');
    for (; *s; s++) {
        if (*s == '"') putchar('"');
        putchar(*s);
    }
    putchar('"');
}

static void csv_top(const struct trace_run *run, int32_t rank, const struct kernels_stat *s, int others, int *first) {
    (void)first;
    printf("%d,", rank);
    csv_str(others ? "others" : name_of(run, s));
    printf(",%s,%llu,%.3f,%.3f,%.3f,%.3f\n", others ? "" : kernels_type_name(s->type), (unsigned long long)s->count,
           us(s->sum_ns), us(s->max_ns), us(s->min_ns), s->count ? us(s->sum_ns) / (double)s->count : 0.0);
}

void cmd_trace_tables_csv(const struct trace_run *run, int table, size_t top) {
    if (table == CMD_TRACE_KERNEL_TYPES) {
        int64_t ns[KERNELS_NMASKS];
        int order[KERNELS_NMASKS];
        char buf[96];
        kernels_run_masks(run, ns);
        int n = type_order(ns, order);
        int64_t tot = total_of(ns);
        printf("type,us,pct\n");
        for (int i = 0; i < n; i++)
            printf("%s,%.3f,%.4f\n", kernels_mask_name(order[i], buf, sizeof buf), us(ns[order[i]]),
                   tot ? 100.0 * (double)ns[order[i]] / (double)tot : 0.0);
    } else if (table == CMD_TRACE_TOP_KERNELS) {
        printf("rank,name,type,count,sum_us,max_us,min_us,mean_us\n");
        each_top(run, top, csv_top);
    } else if (table == CMD_TRACE_IDLE) {
        printf("rank,stream,host_wait_us,kernel_wait_us,other_us\n");
        for (int r = 0; r < run->nranks; r++) {
            const struct idle_table *t = run->ranks[r].idle;
            for (size_t i = 0; t && i < t->n; i++)
                printf("%d,%u,%.3f,%.3f,%.3f\n", run->ranks[r].rank, (unsigned)t->v[i].stream, us(t->v[i].host_ns),
                       us(t->v[i].kernel_ns), us(t->v[i].other_ns));
        }
    }
}

static void json_top(const struct trace_run *run, int32_t rank, const struct kernels_stat *s, int others, int *first) {
    printf("%s\n  {\"rank\": %d, \"name\": ", *first ? "" : ",", rank);
    json_fput_str(stdout, others ? "others" : name_of(run, s));
    printf(", \"type\": ");
    if (others) printf("null");
    else json_fput_str(stdout, kernels_type_name(s->type));
    printf(", \"count\": %llu, \"sum_us\": %.3f, \"max_us\": %.3f, \"min_us\": %.3f, \"mean_us\": %.3f}",
           (unsigned long long)s->count, us(s->sum_ns), us(s->max_ns), us(s->min_ns),
           s->count ? us(s->sum_ns) / (double)s->count : 0.0);
    *first = 0;
}

void cmd_trace_tables_json(const struct trace_run *run, size_t top) {
    int64_t ns[KERNELS_NMASKS];
    int order[KERNELS_NMASKS];
    char buf[96];
    kernels_run_masks(run, ns);
    int n = type_order(ns, order);
    int64_t tot = total_of(ns);
    printf(",\n \"kernel_types\": [");
    for (int i = 0; i < n; i++) {
        printf("%s\n  {\"type\": ", i ? "," : "");
        json_fput_str(stdout, kernels_mask_name(order[i], buf, sizeof buf));
        printf(", \"us\": %.3f, \"pct\": %.4f}", us(ns[order[i]]), tot ? 100.0 * (double)ns[order[i]] / (double)tot : 0.0);
    }
    printf("],\n \"top_kernels\": [");
    each_top(run, top, json_top);
    printf("],\n \"idle\": [");
    int first = 1;
    for (int r = 0; r < run->nranks; r++) {
        const struct idle_table *t = run->ranks[r].idle;
        for (size_t i = 0; t && i < t->n; i++) {
            printf("%s\n  {\"rank\": %d, \"stream\": %u, \"host_wait_us\": %.3f, \"kernel_wait_us\": %.3f, \"other_us\": %.3f}",
                   first ? "" : ",", run->ranks[r].rank, (unsigned)t->v[i].stream, us(t->v[i].host_ns),
                   us(t->v[i].kernel_ns), us(t->v[i].other_ns));
            first = 0;
        }
    }
    printf("]");
}
