/* read_anomaly: msProbe's monitor anomaly reports (probetop-formats(5),
 * MONITOR ANOMALY REPORTS): `anomaly_detected/<rank folder>/anomaly.json`
 * and the analyser's `anomaly_analyse.json`, one JSON object each whose
 * values are the reported entries.  Read as msProbe's analyser reads them:
 * every sub-folder holding an anomaly.json, an entry with a key msProbe
 * does not know skipped with a note, missing keys taking msProbe's
 * defaults.  The list is sorted in msProbe's first-anomaly order and placed
 * on the cube by model/anomaly.c. */
#include "src/io/read_anomaly.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model/util/fs.h"
#include "src/io/dataset.h"
#include "src/io/formats.h"
#include "src/io/json.h"

#define ANOMALY_DIR "anomaly_detected"
#define ANOMALY_JSON "anomaly.json"
#define ANALYSE_JSON "anomaly_analyse.json"
#define ANOMALY_MAX_BYTES ((size_t)1 << 30)

/* An integer field: 1 set, 0 absent (default kept), -1 not an integer. */
static int int_field(const cJSON *o, const char *key, int32_t *out) {
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!it) return 0;
    if (!cJSON_IsNumber(it)) return -1;
    double d = it->valuedouble;
    if (!isfinite(d) || d != floor(d) || d < INT32_MIN || d > INT32_MAX) return -1;
    *out = (int32_t)d;
    return 1;
}

/* group_mates as "[0, 1]" (a list of ranks, as msProbe writes it), other
 * values as compact JSON.  NULL without memory. */
static char *mates_text(const cJSON *it) {
    if (!it || cJSON_IsNull(it)) return strdup("");
    if (cJSON_IsArray(it)) {
        size_t cap = 3, len = 0;   /* "[", "]" and the NUL */
        const cJSON *e;
        cJSON_ArrayForEach(e, it) cap += 24;
        char *s = malloc(cap);
        if (!s) return NULL;
        s[len++] = '[';
        int ok = 1;
        cJSON_ArrayForEach(e, it) {
            if (!cJSON_IsNumber(e) || e->valuedouble != floor(e->valuedouble) || fabs(e->valuedouble) > 1e15) ok = 0;
            if (!ok) break;
            len += (size_t)snprintf(s + len, cap - len, "%s%.0f", len > 1 ? ", " : "", e->valuedouble);
        }
        if (ok) {
            s[len++] = ']';
            s[len] = '\0';
            return s;
        }
        free(s);
    }
    return cJSON_PrintUnformatted(it);
}

static const char *const known_keys[] = {"rank",    "step",     "micro_step", "pp_stage", "vpp_stage",
                                         "call_id", "tag_name", "message",    "group_mates"};

/* One entry (the value under key) into l.  1 added, 0 skipped with a
 * note, -1 without memory. */
static int read_entry(const cJSON *v, const char *what, struct anomaly_list *l, uint32_t file, struct dataset *ds,
                      struct pt_error *err) {
    char kesc[256];
    const char *key = v->string ? v->string : "";
#define KESC pt_escape(key, strlen(key), kesc, sizeof kesc)   /* for a note only: most entries need none */
    if (!cJSON_IsObject(v)) {
        dataset_warn(ds, "%s: entry \"%s\": not a JSON object; skipped", what, KESC);
        return 0;
    }
    for (const cJSON *f = v->child; f; f = f->next) {
        size_t k = 0;
        while (k < sizeof known_keys / sizeof *known_keys && strcmp(f->string, known_keys[k])) k++;
        if (k == sizeof known_keys / sizeof *known_keys) {
            char fesc[128];
            dataset_warn(ds, "%s: entry \"%s\": unknown key \"%s\" (msProbe skips such an entry too); skipped", what,
                         KESC, pt_escape(f->string, strlen(f->string), fesc, sizeof fesc));
            return 0;
        }
    }
    /* msProbe's defaults for a missing key (its GradAnomalyData) */
    struct anomaly a = {.file = file};
    static const char *const ints[] = {"rank", "step", "micro_step", "pp_stage", "vpp_stage", "call_id"};
    int32_t *dst[] = {&a.rank, &a.step, &a.micro_step, &a.pp_stage, &a.vpp_stage, &a.call_id};
    for (size_t i = 0; i < sizeof ints / sizeof *ints; i++)
        if (int_field(v, ints[i], dst[i]) < 0) {
            dataset_warn(ds, "%s: entry \"%s\": %s is not an integer; skipped", what, KESC, ints[i]);
            return 0;
        }
    const cJSON *tag = cJSON_GetObjectItemCaseSensitive(v, "tag_name");
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(v, "message");
    if ((tag && !cJSON_IsString(tag)) || (msg && !cJSON_IsString(msg))) {
        dataset_warn(ds, "%s: entry \"%s\": %s is not a string; skipped", what, KESC,
                     tag && !cJSON_IsString(tag) ? "tag_name" : "message");
        return 0;
    }
    a.tag_name = tag ? tag->valuestring : "";
    a.message = msg ? msg->valuestring : "";
    a.group_mates = mates_text(cJSON_GetObjectItemCaseSensitive(v, "group_mates"));
    if (!a.group_mates) return pt_errorf(err, "anomaly reports: out of memory");
    int rc = anomaly_push(l, &a, err);
    free(a.group_mates);
    return rc == 0 ? 1 : -1;
#undef KESC
}

int anomaly_parse(const char *text, size_t len, const char *what, struct anomaly_list *l, struct dataset *ds,
                  struct pt_error *err) {
    cJSON *root;
    struct pt_error pe;
    if (json_tree_parse(text, len, what, &root, &pe) != 0) {
        dataset_warn(ds, "%s; its anomaly reports are not shown", pe.msg);
        return 0;
    }
    int rc = 0;
    if (!cJSON_IsObject(root)) {
        dataset_warn(ds, "%s: expected a JSON object of anomaly entries; not read", what);
    } else {
        long file = anomaly_add_file(l, what);
        if (file < 0) rc = pt_errorf(err, "anomaly reports: out of memory");
        for (const cJSON *v = root->child; v && rc == 0; v = v->next)
            if (read_entry(v, what, l, (uint32_t)file, ds, err) < 0) rc = -1;
    }
    cJSON_Delete(root);
    return rc;
}

static int read_file(const char *path, struct anomaly_list *l, struct dataset *ds, struct pt_error *err) {
    char *buf;
    size_t len;
    struct pt_error e;
    if (json_read_file(path, ANOMALY_MAX_BYTES, &buf, &len, &e) != 0) {
        dataset_warn(ds, "%s", e.msg);
        dataset_skip(ds, path);
        return 0;
    }
    size_t had = l->nfiles;
    int rc = anomaly_parse(buf, len, path, l, ds, err);
    free(buf);
    if (rc == 0 && l->nfiles > had) ds->files_read++;   /* read as reports (not a note) */
    return rc;
}

/* An anomaly_detected folder: every sub-folder's anomaly.json (as msProbe's
 * analyser reads them), else the analyser's anomaly_analyse.json. */
static int read_folder(const char *dir, struct anomaly_list *l, struct dataset *ds, struct pt_error *err) {
    size_t n;
    char **names = fs_list_dir(dir, 0, &n);
    if (!names) {
        dataset_warn(ds, "%s: cannot list: %s", dir, strerror(errno));
        return 0;
    }
    int rc = 0, found = 0;
    char p[PATH_MAX];
    for (size_t i = 0; i < n && rc == 0; i++) {
        snprintf(p, sizeof p, "%s/%s/%s", dir, names[i], ANOMALY_JSON);
        if (!fs_is_file(p)) continue;
        found = 1;
        rc = read_file(p, l, ds, err);
    }
    fs_free_list(names, n);
    snprintf(p, sizeof p, "%s/%s", dir, ANALYSE_JSON);
    if (rc == 0 && !found && fs_is_file(p)) {
        rc = read_file(p, l, ds, err);
        l->analyse = 1;
    }
    return rc;
}

static int base_is(const char *path, const char *name) {
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    return !strcmp(b, name);
}

int anomaly_read_path(const char *path, struct anomaly_list *l, struct dataset *ds, struct pt_error *err) {
    if (fs_is_dir(path)) return read_folder(path, l, ds, err);
    if (base_is(path, ANALYSE_JSON)) l->analyse = 1;
    return read_file(path, l, ds, err);
}

int anomaly_attach(const char *tree, struct dataset *ds, struct pt_error *err) {
    char dir[PATH_MAX];
    if (snprintf(dir, sizeof dir, "%s/%s", tree, ANOMALY_DIR) >= (int)sizeof dir || !fs_is_dir(dir)) return 0;
    if (read_folder(dir, &ds->anomalies, ds, err) != 0) return -1;
    anomaly_sort(&ds->anomalies);
    return anomaly_place(&ds->anomalies, ds->cube, err);
}

/* ---- opened alone: the reader table's row (formats.h) ---- */

/* A folder holding <sub>/anomaly.json or anomaly_analyse.json. */
static int is_report_folder(const char *path) {
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/%s", path, ANALYSE_JSON);
    if (fs_is_file(p)) return 1;
    size_t n;
    char **names = fs_list_dir(path, 0, &n);
    int found = 0;
    for (size_t i = 0; names && i < n && !found; i++) {
        snprintf(p, sizeof p, "%s/%s/%s", path, names[i], ANOMALY_JSON);
        found = fs_is_file(p);
    }
    if (names) fs_free_list(names, n);
    return found;
}

static int detect_anomaly(const char *path, const struct stat *st) {
    if (S_ISREG(st->st_mode)) return base_is(path, ANOMALY_JSON) || base_is(path, ANALYSE_JSON) ? 100 : 0;
    /* a folder: only when no other row claims it (a monitor tree with its
     * anomaly_detected beside the rank folders is the monitor row's) */
    return S_ISDIR(st->st_mode) && is_report_folder(path) ? 50 : 0;
}

/* The monitor tree the reports at path belong to: the folder above
 * anomaly_detected (rank folder's anomaly.json: two more up; an
 * anomaly_analyse.json: its folder's parent, or its folder).  The row that
 * reads it, or NULL. */
static const struct ds_format_ops *find_tree(const char *path, char *tree, size_t n) {
    char real[PATH_MAX];
    if (!realpath(path, real)) return NULL;
    int ups = fs_is_dir(real) ? 1 : base_is(real, ANOMALY_JSON) ? 3 : 2;
    for (int tries = 0; tries < 2; tries++, ups--) {
        char tmp[PATH_MAX];
        snprintf(tmp, sizeof tmp, "%s", real);
        for (int i = 0; i < ups; i++) {
            char *s = strrchr(tmp, '/');
            if (!s || s == tmp) return NULL;
            *s = '\0';
        }
        const struct ds_format_ops *f = ds_format_detect(tmp);
        if (f && f->load != NULL && f->detect != detect_anomaly) {
            snprintf(tree, n, "%s", tmp);
            return f;
        }
        if (fs_is_dir(real) || base_is(real, ANOMALY_JSON)) break;   /* only the analyser's -o is free */
    }
    return NULL;
}

/* No monitor tree: an empty cube, the list alone. */
static int empty_cube(struct dataset *ds, struct pt_error *err) {
    struct names *nm = names_new();
    struct cube_builder *b = nm ? cube_builder_new(nm) : NULL;
    if (!b) return pt_errorf(err, "out of memory");
    int rc = cube_builder_finish(b, &ds->cube, err);
    cube_builder_free(b);
    return rc;
}

static int load_anomaly(const char *path, const struct load_opts *o, struct dataset *ds, struct pt_error *err) {
    struct anomaly_list l = {0};
    if (anomaly_read_path(path, &l, ds, err) != 0) {
        anomaly_list_free(&l);
        return -1;
    }
    char tree[PATH_MAX];
    const struct ds_format_ops *f = find_tree(path, tree, sizeof tree);
    int rc;
    if (f) {
        ds->labels = f->labels;
        rc = f->load(tree, o, ds, err);   /* the tree, with its own reports: replaced by those opened */
    } else {
        dataset_warn(ds, "%s: no monitor tree around these anomaly reports: the list alone, no heat map", path);
        rc = empty_cube(ds, err);
    }
    if (rc != 0) {
        anomaly_list_free(&l);
        return -1;
    }
    if (!l.n && !ds->anomalies.n && !ds->nwarnings)
        dataset_warn(ds, "%s: no anomaly entry in the reports", path);
    ds->files_read -= ds->files_read >= ds->anomalies.nfiles ? ds->anomalies.nfiles : 0;   /* the tree's own, replaced */
    anomaly_list_free(&ds->anomalies);
    ds->anomalies = l;
    anomaly_sort(&ds->anomalies);
    return anomaly_place(&ds->anomalies, ds->cube, err);
}

const struct ds_format_ops ds_format_anomaly = {
    .name = "anomaly",
    .what = "monitor anomaly report (anomaly_detected/, anomaly.json, anomaly_analyse.json)",
    .detect = detect_anomaly,
    .load = load_anomaly,
    .write_trenddb = NULL,
    .labels = LABELS_MONITOR,
};
