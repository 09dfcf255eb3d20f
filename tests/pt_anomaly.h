/* pt_anomaly.h: small monitor trees with msProbe anomaly reports, written
 * by the tests from the documented formats (probetop-formats(5), MONITOR
 * CSV TREES, MONITOR V2 CSV TREES, MONITOR ANOMALY REPORTS).
 *
 * Two ranks (pipeline stages 0 and 1, group mates [0, 1]), steps 0 and 1,
 * micro steps 0 and 1; modules layers.0.mlp (on rank 0) and layers.1.mlp
 * (on rank 1).  The anomaly.json files are written the way msProbe's
 * AnomalyDataWriter writes them (json.dump, indent 1, one object keyed
 * "<tag>_step_<s>_call_<c>"); the rank folders list the entries in the
 * order the monitor caught them, not msProbe's order.  PT_ANOM_ORDER is the
 * order msProbe's analyser gives them (probetop-rules(7), FIRST ANOMALY
 * ORDER): step 0's optimizer-side grad first, then step 1's forward stage
 * with pp ascending (rank 0's layers.0 before rank 1's layers.1, though
 * rank 1's call id is smaller), then its backward stage with pp descending
 * (rank 1 first).  That order is what msProbe's own analyser
 * (`python -m msprobe.core.monitor.anomaly_processor -d anomaly_detected
 * -k 5`) wrote for these files: call ids 5, 3, 2, 12, 10. */
#ifndef PT_ANOMALY_FIXTURE_H
#define PT_ANOMALY_FIXTURE_H

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

struct pt_anom {
    int rank, step, micro_step, pp_stage, vpp_stage, call_id;
    const char *tag, *rule, *op;
    const char *value;   /* the "current value" of the message */
};

/* Indexed by PT_ANOM_ORDER; PT_ANOM_FILE lists them in file order per rank. */
static const struct pt_anom pt_anoms[] = {
    /* 0 */ {0, 1, 0, 0, 0, 3, "0:layers.0.mlp.output:0/rank0/actv", "AnomalyNan", "norm", "nan"},
    /* 1 */ {0, 1, 0, 0, 0, 10, "0:layers.0.mlp.output:0/rank0/actv_grad", "AnomalyTurbulence", "norm", "9.5"},
    /* 2 */ {1, 1, 0, 1, 0, 2, "0:layers.1.mlp.output:1/rank1/actv", "AnomalyTurbulence", "max", "4.25"},
    /* 3 */ {1, 1, 0, 1, 0, 12, "0:layers.1.mlp.output:1/rank1/actv_grad", "AnomalyTurbulence", "norm", "7.0"},
    /* 4 */ {1, 0, 0, 1, 0, 5, "0:layers.1.mlp.weight/rank1/post_grad", "AnomalyTurbulence", "norm", "3.5"},
};
#define PT_ANOM_N 5
/* msProbe's first-anomaly order (indexes into pt_anoms). */
static const int PT_ANOM_ORDER[PT_ANOM_N] = {4, 0, 2, 3, 1};

static inline int pt_anom_mkdirs(const char *path) {
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s", path);
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(tmp, 0755);
            *p = '/';
        }
    return mkdir(tmp, 0755) == 0 || errno == EEXIST ? 0 : -1;
}

static inline int pt_anom_file(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    int ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok ? 0 : -1;
}

/* One entry as msProbe's save_json(indent=1) writes it, at one space of
 * indent per level, without the separator. */
static inline void pt_anom_entry(FILE *f, const struct pt_anom *a) {
    fprintf(f, " \"%s_step_%d_call_%d\": {\n", a->tag, a->step, a->call_id);
    fprintf(f, "  \"rank\": %d,\n  \"step\": %d,\n  \"micro_step\": %d,\n  \"pp_stage\": %d,\n", a->rank, a->step,
            a->micro_step, a->pp_stage);
    fprintf(f, "  \"vpp_stage\": %d,\n  \"call_id\": %d,\n  \"tag_name\": \"%s\",\n", a->vpp_stage, a->call_id, a->tag);
    fprintf(f, "  \"message\": \"Rule %s reports anomaly signal in ('%s', '%s') at step %d, current value %s, "
               "history mean 0.5.\",\n", a->rule, a->tag, a->op, a->step, a->value);
    fprintf(f, "  \"group_mates\": [\n   0,\n   1\n  ]\n }");
}

/* root/anomaly_detected/rank<R>/anomaly.json for both ranks, and with
 * analyse_k > 0 the analyser's anomaly_analyse.json of the first k. */
static inline int pt_anom_reports(const char *root, int analyse_k) {
    char p[4096];
    for (int r = 0; r < 2; r++) {
        snprintf(p, sizeof p, "%s/anomaly_detected/rank%d", root, r);
        if (pt_anom_mkdirs(p) != 0) return -1;
        snprintf(p, sizeof p, "%s/anomaly_detected/rank%d/anomaly.json", root, r);
        FILE *f = fopen(p, "wb");
        if (!f) return -1;
        fputs("{\n", f);
        int k = 0;
        for (int i = 0; i < PT_ANOM_N; i++) {
            if (pt_anoms[i].rank != r) continue;
            if (k++) fputs(",\n", f);
            pt_anom_entry(f, &pt_anoms[i]);
        }
        fputs("\n}", f);
        if (fclose(f) != 0) return -1;
    }
    if (analyse_k > 0) {
        snprintf(p, sizeof p, "%s/anomaly_detected/anomaly_analyse.json", root);
        FILE *f = fopen(p, "wb");
        if (!f) return -1;
        fputs("{\n", f);
        for (int i = 0; i < analyse_k && i < PT_ANOM_N; i++) {
            if (i) fputs(",\n", f);
            pt_anom_entry(f, &pt_anoms[PT_ANOM_ORDER[i]]);
        }
        fputs("\n}", f);
        if (fclose(f) != 0) return -1;
    }
    return 0;
}

/* The value of a cell: distinct per (layer, step, micro, rank); the NaN of
 * entry 0 (rank 0, step 1, micro 0, layers.0 forward norm). */
static inline void pt_anom_value(char *buf, size_t n, int layer, int step, int micro, int rank, int stat, int nan) {
    if (nan) snprintf(buf, n, "nan");
    else snprintf(buf, n, "%d.%d%d%d%d", 1 + stat, layer, step, micro, rank);
}

/* A v1 monitor tree: <root>/Nov23_10-00-0<R>-rank<R>-abcd000<R>/ with
 * actv_0-1.csv, actv_grad_0-1.csv (micro steps) and grad_reduced_0-1.csv;
 * with nan 0 every value is finite (the reports alone flag trouble). */
static inline int pt_anom_v1_nan(const char *root, int nan) {
    char dir[4096], p[4200], v[3][32];
    for (int r = 0; r < 2; r++) {
        snprintf(dir, sizeof dir, "%s/Nov23_10-00-0%d-rank%d-abcd000%d", root, r, r, r);
        if (pt_anom_mkdirs(dir) != 0) return -1;
        static const char *const metrics[] = {"actv", "actv_grad"};
        for (int m = 0; m < 2; m++) {
            snprintf(p, sizeof p, "%s/%s_0-1.csv", dir, metrics[m]);
            FILE *f = fopen(p, "wb");
            if (!f) return -1;
            fputs("vpp_stage,name,step,micro_step,norm,min,max\n", f);
            for (int s = 0; s < 2; s++)
                for (int mi = 0; mi < 2; mi++)
                    for (int l = 0; l < 2; l++) {
                        for (int k = 0; k < 3; k++)
                            pt_anom_value(v[k], sizeof v[k], l, s, mi, r, k, nan && m == 0 && r == 0 && s == 1 && mi == 0 && l == 0 && k == 0);
                        fprintf(f, "0,layers.%d.mlp.output,%d,%d,%s,%s,%s\n", l, s, mi, v[0], v[1], v[2]);
                    }
            if (fclose(f) != 0) return -1;
        }
        snprintf(p, sizeof p, "%s/grad_reduced_0-1.csv", dir);
        FILE *f = fopen(p, "wb");
        if (!f) return -1;
        fputs("vpp_stage,name,step,norm,min,max\n", f);
        for (int s = 0; s < 2; s++)
            for (int l = 0; l < 2; l++) fprintf(f, "0,layers.%d.mlp.weight,%d,0.%d%d%d,0,1\n", l, s, l, s, r);
        if (fclose(f) != 0) return -1;
    }
    return pt_anom_reports(root, 0);
}

static inline int pt_anom_v1(const char *root) { return pt_anom_v1_nan(root, 1); }

/* A monitor_v2 tree: <root>/rank_<R>/module_step0-1.csv (forward and
 * backward, CRLF, micro-batches in call order) and weight_grad_step0-1.csv
 * (micro_step counted from 1, as monitor_v2 writes it). */
static inline int pt_anom_v2(const char *root) {
    char dir[4096], p[4200], v[3][32];
    for (int r = 0; r < 2; r++) {
        snprintf(dir, sizeof dir, "%s/rank_%d", root, r);
        if (pt_anom_mkdirs(dir) != 0) return -1;
        snprintf(p, sizeof p, "%s/module_step0-1.csv", dir);
        FILE *f = fopen(p, "wb");
        if (!f) return -1;
        /* module files have no micro_step column: the k-th row of a
         * (name, scope, step) is micro-batch k, in call order */
        fputs("vpp_stage,step,module_name,scope,norm,min,max\r\n", f);
        for (int s = 0; s < 2; s++)
            for (int mi = 0; mi < 2; mi++)
                for (int b = 0; b < 2; b++)
                    for (int l = 0; l < 2; l++) {
                        for (int k = 0; k < 3; k++)
                            pt_anom_value(v[k], sizeof v[k], l, s, mi, r, k, !b && r == 0 && s == 1 && mi == 0 && l == 0 && k == 0);
                        fprintf(f, "0,%d,layers.%d.mlp.%soutput.0,%s,%s,%s,%s\r\n", s, l, b ? "grad_" : "",
                                b ? "backward" : "forward", v[0], v[1], v[2]);
                    }
        if (fclose(f) != 0) return -1;
        snprintf(p, sizeof p, "%s/weight_grad_step0-1.csv", dir);
        if (!(f = fopen(p, "wb"))) return -1;
        fputs("vpp_stage,step,module_name,scope,micro_step,norm,min,max\r\n", f);
        for (int s = 0; s < 2; s++)
            for (int l = 0; l < 2; l++)
                fprintf(f, "0,%d,layers.%d.mlp.weight,reduced,1,0.%d%d%d,0,1\r\n", s, l, l, s, r);
        if (fclose(f) != 0) return -1;
    }
    return pt_anom_reports(root, 0);
}

#endif
