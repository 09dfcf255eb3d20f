/* The readers' error messages, table-driven, so that every message a reader
 * can give is produced by a test.  Each row builds a
 * small broken input under PT_TMP (files given by relative path and bytes; a
 * NULL text makes a folder), hands it to one reader and checks the call fails
 * with a message that contains the row's text.  The texts are the
 * readers' messages: a row fails when a message changes or another check
 * fires first.  tests/coverage.sh counts what these reach. */
#include "pt_test.h"

/* table rows leave struct file's len (and unused files) zero */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "model/compare/compare.h"
#include "model/graph/layermap.h"
#include "model/compare/tensorcmp.h"
#include "model/graph/tree.h"
#include "src/io/load.h"
#include "src/io/common/json.h"
#include "src/io/dump/read_construct.h"
#include "src/io/dump/read_dump.h"
#include "src/io/dump/read_graph.h"
#include "src/io/monitor/read_monitor.h"
#include "src/io/dump/read_npy.h"
#include "src/io/trenddb/read_trenddb.h"
#include "src/io/visdb/read_visdb.h"
#include "src/io/trenddb/write_trenddb.h"

enum reader {
    R_NPY,          /* npy_read(arg) */
    R_JSON_READ,    /* json_read_file(arg, 16 bytes max) */
    R_JSON_MAP,     /* json_map_file(arg, 16 bytes max) */
    R_JSON_TEXT,    /* json_tree_parse(the file's bytes) */
    R_GRAPH,        /* graph_read(arg, GRAPH_BUILD) */
    R_GRAPH_SCAN,   /* graph_scan(arg) */
    R_CONSTRUCT,    /* construct_read(arg) */
    R_STACK,        /* stack_read(arg) */
    R_MAPPING,      /* mapping_read(arg) */
    R_MONITOR,      /* monitor_load(arg) */
    R_TRENDDB,      /* trenddb_load(arg) */
    R_DATA2DB_MON,  /* trenddb_write_monitor(arg, arg/out) */
    R_DATA2DB_DUMP, /* trenddb_write_dump(arg, arg/out) */
    R_LOAD,         /* load_dataset(arg) */
    R_VISDB,        /* visdb_open(arg), then visdb_load(step 0, rank 0, "NPU") */
};

struct file {
    const char *path;      /* relative to the row's folder */
    const char *text;      /* NULL: a folder */
    size_t len;            /* 0: strlen(text) */
};

struct row {
    const char *what;
    enum reader reader;
    struct file files[4];
    const char *arg;       /* relative to the row's folder; "/..." absolute */
    const char *want;
};

#define DUMP_OK "{\"task\": \"statistics\", \"level\": \"mix\", \"data\": {}}"
#define MON_DIR "Dec03_21-34-40-rank0-1a2b3c4d"
#define MON_HEAD "vpp_stage,name,step,micro_step,norm\n"
#define VIS_TABLES "CREATE TABLE tb_nodes (node_name, node_order, node_type, up_node, sub_nodes, precision_index, " \
    "overflow_level, micro_step_id, matched_node_link, stack_id, input_data, output_data, data_source, step, rank);" \
    "CREATE TABLE tb_config (graph_type, task, micro_steps, overflow_check, rank_list, step_list);"
#define VIS_CONFIG "INSERT INTO tb_config VALUES ('build', 'statistics', 1, 0, '[0]', '[0]');"

/* An R_NPY file whose text starts with '{' is a .npy header: make_files
 * puts the version 1.0 preamble before it and 8 zero bytes of data after. */

static const struct row rows[] = {
    /* .npy */
    { "npy: missing", R_NPY, {{0}}, "none.npy", "none.npy: No such file or directory" },
    { "npy: void dtype", R_NPY, {{ "a.npy", "{'descr': '|V8', 'fortran_order': False, 'shape': (1,), }   \n" }},
      "a.npy", "unsupported dtype '|V8' (expected bool, int8-64, uint8-64, float16/32/64)" },
    { "npy: bad key", R_NPY, {{ "a.npy", "{1: 2}          \n" }}, "a.npy", "bad key in the header dict" },
    { "npy: no colon", R_NPY, {{ "a.npy", "{'descr' '<f4'}\n" }}, "a.npy",
      "header dict: ':' expected after 'descr'" },
    { "npy: shape not a tuple", R_NPY, {{ "a.npy", "{'shape': 5}   \n" }}, "a.npy",
      "header: 'shape' is not a tuple" },
    { "npy: huge dimension", R_NPY, {{ "a.npy", "{'shape': (9999999999999999999,\n" }}, "a.npy",
      "header: a dimension is too large" },
    { "npy: bad shape tuple", R_NPY, {{ "a.npy", "{'shape': (2 3)\n" }}, "a.npy",
      "header: bad 'shape' tuple" },
    { "npy: no comma", R_NPY, {{ "a.npy", "{'descr': '<f4' 'shape': (2,)} \n" }}, "a.npy",
      "header dict: ',' or '}' expected" },
    { "npy: v2 preamble cut", R_NPY, {{ "a.npy", "\x93NUMPY\x02\x00\x00\x00\x00", 11 }}, "a.npy", "truncated in the .npy preamble" },
    { "npy: folder", R_NPY, {{ "d.npy", NULL }}, "d.npy", "is a folder, not a .npy file" },
    { "npy: device", R_NPY, {{0}}, "/dev/null", "/dev/null: not a regular file" },

    /* json.c: files and text */
    { "json: missing (read)", R_JSON_READ, {{0}}, "none.json", "none.json: cannot open: No such file or directory" },
    { "json: folder (read)", R_JSON_READ, {{ "d", NULL }}, "d", "is a folder, not a regular file" },
    { "json: too big (read)", R_JSON_READ, {{ "a.json", "{\"a\": \"0123456789abcdef\"}" }}, "a.json",
      "25 bytes, more than the 16 this reader accepts" },
    { "json: missing (map)", R_JSON_MAP, {{0}}, "none.json", "none.json: cannot open: No such file or directory" },
    { "json: folder (map)", R_JSON_MAP, {{ "d", NULL }}, "d", "is a folder, not a regular file" },
    { "json: device (map)", R_JSON_MAP, {{0}}, "/dev/null", "/dev/null: is a special file, not a regular file" },
    { "json: too big (map)", R_JSON_MAP, {{ "a.json", "{\"a\": \"0123456789abcdef\"}" }}, "a.json",
      "25 bytes, more than the 16 this reader accepts" },
    { "json: empty text", R_JSON_TEXT, {{ "a.json", "" }}, "a.json", "a.json: empty file, expected a JSON object" },
    /* a cut file says so; a bad last character is not "cut" */
    { "json: cut text", R_JSON_TEXT, {{ "a.json", "{\n\"a\": [1," }}, "a.json", "a.json: line 2: JSON ends early (truncated file?)" },
    { "json: cut string", R_JSON_TEXT, {{ "a.json", "{\"a\": \"b" }}, "a.json", "a.json: line 1: JSON ends early (truncated file?)" },
    { "json: bad last char", R_JSON_TEXT, {{ "a.json", "{\"a\": 1]" }}, "a.json", "a.json: line 1: not valid JSON here" },
    { "json: bad text", R_JSON_TEXT, {{ "a.json", "{\"a\": 1,\n\n x}" }}, "a.json", "a.json: line 3: not valid JSON here" },

    /* read_graph.c: one rank folder of a dump */
    { "graph: no dump.json", R_GRAPH, {{ "r", NULL }}, "r",
      "r: no dump.json here (expected a rank folder of an msProbe dump)" },
    { "graph: empty dump.json", R_GRAPH, {{ "r/dump.json", "" }}, "r",
      "dump.json: empty file: not an msProbe dump.json" },
    { "graph: data not an object", R_GRAPH, {{ "r/dump.json", "{\"task\": \"statistics\", \"data\": 5}" }}, "r",
      "dump.json: \"data\" is not an object" },
    { "graph: no data", R_GRAPH, {{ "r/dump.json", "{\"task\": \"statistics\"}" }}, "r",
      "dump.json: no \"data\" object: not an msProbe dump.json" },
    { "graph: empty construct.json", R_GRAPH, {{ "r/dump.json", DUMP_OK }, { "r/construct.json", "" }}, "r",
      "construct.json: empty file: expected an object mapping node -> parent" },
    { "graph: construct.json a list", R_GRAPH, {{ "r/dump.json", DUMP_OK }, { "r/construct.json", "[1]" }}, "r",
      "construct.json: expected an object mapping node -> parent" },
    { "graph: stack.json a list", R_GRAPH, {{ "r/dump.json", DUMP_OK }, { "r/stack.json", "[1]" }}, "r",
      "stack.json: expected an object" },
    { "graph: Megatron construct entry", R_GRAPH, {{ "r/dump.json", DUMP_OK }, { "r/construct.json", "{\"megatron_micro_step_number\": 2, \"a\": [\"p\"]}" }},
      "r", "construct.json: \"a\": a Megatron entry must be [parent, micro_step]" },
    { "graph scan: device", R_GRAPH_SCAN, {{0}}, "/dev/null", "/dev/null: not a folder or a dump.json file" },
    { "graph scan: empty folder", R_GRAPH_SCAN, {{ "e", NULL }}, "e",
      "e: no dump found (expected dump.json, rankN/procN folders, or stepN folders)" },

    /* read_construct.c */
    { "construct: a list", R_CONSTRUCT, {{ "c.json", "[1]" }}, "c.json",
      "c.json: expected a JSON object mapping node names to parents" },
    { "construct: Megatron entry", R_CONSTRUCT, {{ "c.json", "{\"a\": [\"p\"]}" }}, "c.json",
      "c.json: key \"a\": a Megatron entry must be [parent, micro_step]" },
    { "construct: trailing", R_CONSTRUCT, {{ "c.json", "{\"a\": \"p\"} 5" }}, "c.json", "c.json: line 1, byte 11: unexpected text after the JSON value" },
    { "stack: a list", R_STACK, {{ "s.json", "[1]" }}, "s.json", "s.json: expected a JSON object" },
    { "stack: bad group", R_STACK, {{ "s.json", "{\"0\": [1]}" }}, "s.json",
      "s.json: key \"0\": a stack group must be [[names], [frames]]" },

    /* parse_dump.c: --mapping */
    { "mapping: a list", R_MAPPING, {{ "m.json", "[1]" }}, "m.json",
      "m.json: a mapping file must be a JSON object {\"old\": \"new\", ...}" },

    /* read_monitor.c */
    { "monitor: missing", R_MONITOR, {{0}}, "none", "none: cannot list: No such file or directory" },
    { "monitor: no timestamp", R_MONITOR, {{ "m/abc-rank0-1a2b", NULL }}, "m",
      "abc-rank0-1a2b: folder name does not start with a MonDD_HH-MM-SS timestamp" },
    { "monitor: no rank folder", R_MONITOR, {{ "m/other", NULL }}, "m",
      "m: no monitor rank folder (<MonDD_HH-MM-SS>-rank<R>-<id>) here" },
    { "monitor: no row", R_MONITOR, {{ "m/" MON_DIR "/actv_0-1.csv", MON_HEAD }}, "m",
      "m: no usable row in any <metric>_<a>-<b>.csv file" },
    { "data2db monitor: no csv", R_DATA2DB_MON, {{ "m/" MON_DIR "/notes.txt", "x" }}, "m",
      "m: no <metric>_<a>-<b>.csv file in the rank folders: no database written" },
    { "data2db monitor: no statistic", R_DATA2DB_MON,
      {{ "m/" MON_DIR "/actv_0-1.csv", "vpp_stage,name,step,micro_step,color\n0,a.x,0,0,red\n" }}, "m",
      "m: no CSV file has a supported statistic column (norm, min, max, ...)" },

    { "data2db dump: no output folder", R_DATA2DB_DUMP, {{ "d/step0/rank0/dump.json", DUMP_OK }}, "d",
      ": cannot create dump_data.trend.db there: No such file or directory" },

    /* read_trenddb.c (the databases are made by make_db) */
    { "trenddb: missing", R_TRENDDB, {{0}}, "none.trend.db", "none.trend.db: No such file or directory" },
    { "trenddb: empty folder", R_TRENDDB, {{ "e", NULL }}, "e", "e: no *.trend.db file in this folder" },
    { "trenddb: device", R_TRENDDB, {{0}}, "/dev/null", "/dev/null: not a regular file" },
    { "trenddb: empty file", R_TRENDDB, {{ "a.trend.db", "" }}, "a.trend.db",
      "a.trend.db: empty file, not an SQLite database" },
    { "trenddb: trend_data columns", R_TRENDDB, {{ "a.trend.db", "trend_data(a, b)" }}, "a.trend.db",
      "a.trend.db: table trend_data: expected columns rank, step, target_id, metric_id, <statistics>" },
    { "trenddb: global_stats", R_TRENDDB, {{ "a.trend.db", "global_stats(max_rank INTEGER PRIMARY KEY) WITHOUT ROWID" }},
      "a.trend.db", "a.trend.db: table global_stats: no such column: ROWID" },
    { "trenddb: monitoring_metrics", R_TRENDDB, {{ "a.trend.db", "monitoring_metrics(metric_id INTEGER)" }},
      "a.trend.db", "a.trend.db: table monitoring_metrics: no such column: metric_name" },
    { "trenddb: monitoring_targets", R_TRENDDB, {{ "a.trend.db", "monitoring_targets(target_id INTEGER, target_name TEXT)" }},
      "a.trend.db", "a.trend.db: table monitoring_targets: no such column: vpp_stage" },

    /* read_visdb.c (the text is the SQL that makes the database) */
    { "visdb: lists", R_VISDB, {{ "a.vis.db", VIS_TABLES "INSERT INTO tb_config VALUES ('build', 'statistics', 1, 0, 'x', '[0]');" }},
      "a.vis.db", "a.vis.db: tb_config rank_list/step_list are not JSON lists of numbers" },
    { "visdb: no tb_stack", R_VISDB, {{ "a.vis.db", VIS_TABLES VIS_CONFIG }}, "a.vis.db", "a.vis.db: no such table: tb_stack" },
    { "visdb: no root", R_VISDB,
      {{ "a.vis.db", VIS_TABLES VIS_CONFIG "CREATE TABLE tb_stack (id, stack_info);"
                     "INSERT INTO tb_nodes (node_name, node_order, up_node, data_source, step, rank) VALUES ('a', 0, 'b', 'NPU', 0, 0);" }},
      "a.vis.db", "a.vis.db: the NPU graph of step 0 rank 0 has no root row" },

    /* read_steptrace.c: Ascend step time tables */
    { "ascend: no Free", R_LOAD,
      {{ "p/a_ascend_pt/ASCEND_PROFILER_OUTPUT/step_trace_time.csv", "Step,Computing,Communication(Not Overlapped)\n1,2,3\n" }},
      "p", "no usable row in any step_trace_time.csv (first note: " },
    { "ascend: bad rows only", R_LOAD,
      {{ "step_trace_time.csv", "Step,Computing,Communication(Not Overlapped),Free\nx,1,2,3\n" }},
      "step_trace_time.csv", "line 2: 1 row skipped (the first has a Step that is no integer)" },
    { "ascend cluster: stage rows only", R_LOAD,
      {{ "cluster_step_trace_time.csv", "Step,Type,Index,Computing,Communication(Not Overlapped),Free\n"
                                        "1,stage,\"(0, 1)\",1,2,3\n" }},
      "cluster_step_trace_time.csv", "no usable row in it (rank rows: Type rank, Index the rank)" },

    /* load.c: what the path is */
    { "load: device", R_LOAD, {{0}}, "/dev/null", "/dev/null: not a file or folder (a FIFO or device?)" },
};
#define NROWS (sizeof rows / sizeof rows[0])

/* An msProbe .trend.db with its four tables, one of them replaced by the
 * row's "name(columns)" definition. */
static int make_db(const char *path, const char *replace) {
    static const char *const tables[] = {
        "monitoring_metrics(metric_id INTEGER PRIMARY KEY, metric_name TEXT)",
        "monitoring_targets(target_id INTEGER PRIMARY KEY, target_name TEXT, vpp_stage INTEGER, micro_step INTEGER)",
        "trend_data(rank INTEGER, step INTEGER, target_id INTEGER, metric_id INTEGER, norm REAL)",
        "global_stats(max_rank INTEGER, min_step INTEGER, max_step INTEGER, forward TEXT)",
    };
    sqlite3 *db;
    if (sqlite3_open(path, &db) != SQLITE_OK) { sqlite3_close(db); return -1; }
    int rc = 0;
    for (size_t i = 0; i < 4 && rc == 0; i++) {
        size_t n = strcspn(tables[i], "(");
        const char *def = strncmp(tables[i], replace, n) == 0 && replace[n] == '(' ? replace : tables[i];
        char sql[512];
        snprintf(sql, sizeof sql, "CREATE TABLE %s", def);
        rc = sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
    }
    sqlite3_close(db);
    return rc;
}

static int make_files(const char *dir, const struct row *r) {
    for (size_t i = 0; i < 4 && r->files[i].path; i++) {
        const struct file *f = &r->files[i];
        char p[4096], cmd[8400];
        snprintf(p, sizeof p, "%s/%s", dir, f->path);
        /* a folder, or the folder a file goes in */
        char *slash = f->text ? strrchr(p, '/') : NULL;
        if (slash) *slash = '\0';
        snprintf(cmd, sizeof cmd, "mkdir -p '%s'", p);
        if (system(cmd) != 0) return -1;
        if (slash) *slash = '/';
        if (!f->text) continue;
        if (r->reader == R_TRENDDB && f->text[0]) {
            if (make_db(p, f->text) != 0) return -1;
            continue;
        }
        if (r->reader == R_VISDB) {
            sqlite3 *db;
            int bad = sqlite3_open(p, &db) != SQLITE_OK || sqlite3_exec(db, f->text, NULL, NULL, NULL) != SQLITE_OK;
            sqlite3_close(db);
            if (bad) return -1;
            continue;
        }
        FILE *o = fopen(p, "wb");
        if (!o) return -1;
        size_t n = f->len ? f->len : strlen(f->text);
        int npy = r->reader == R_NPY && f->text[0] == '{', bad = 0;
        if (npy) {
            unsigned char pre[10] = { 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(n & 0xff), (unsigned char)(n >> 8) };
            bad |= fwrite(pre, 1, sizeof pre, o) != sizeof pre;
        }
        bad |= fwrite(f->text, 1, n, o) != n;
        if (npy) bad |= fwrite("\0\0\0\0\0\0\0\0", 1, 8, o) != 8;
        if (fclose(o) != 0 || bad) return -1;
    }
    return 0;
}

/* Runs the row's reader on path; returns its result, the message in err. */
static int read_with(const struct row *r, const char *dir, const char *path, struct pt_error *err) {
    struct load_opts lo;
    load_opts_init(&lo);
    int rc = 0;
    switch (r->reader) {
    case R_NPY: {
        struct tensorcmp_tensor t;
        rc = npy_read(path, &t, err);
        if (rc == 0) free(t.v);
        break;
    }
    case R_JSON_READ: {
        char *buf = NULL;
        size_t len;
        rc = json_read_file(path, 16, &buf, &len, err);
        free(buf);
        break;
    }
    case R_JSON_MAP: {
        const char *buf;
        size_t len;
        rc = json_map_file(path, 16, &buf, &len, err);
        if (rc == 0) json_unmap_file(buf, len);
        break;
    }
    case R_JSON_TEXT: {
        char *text = pt_slurp(path);
        cJSON *root = NULL;
        rc = text ? json_tree_parse(text, strlen(text), path, &root, err) : pt_errorf(err, "cannot read %s", path);
        if (rc == 0) cJSON_Delete(root);
        free(text);
        break;
    }
    case R_GRAPH: {
        struct tree *t;
        rc = graph_read(path, GRAPH_BUILD, &t, err);
        if (rc == 0) tree_free(t);
        break;
    }
    case R_GRAPH_SCAN: {
        struct graph_dirs d;
        rc = graph_scan(path, &d, err);
        if (rc == 0) graph_dirs_free(&d);
        break;
    }
    case R_CONSTRUCT: {
        struct construct c;
        rc = construct_read(path, &c, err);
        if (rc == 0) construct_free(&c);
        break;
    }
    case R_STACK: {
        struct stack s;
        rc = stack_read(path, &s, err);
        if (rc == 0) stack_free(&s);
        break;
    }
    case R_MAPPING: {
        struct mapping m = {0};
        rc = mapping_read(path, &m, err);
        mapping_free(&m);
        break;
    }
    case R_MONITOR:
    case R_TRENDDB:
    case R_DATA2DB_MON:
    case R_DATA2DB_DUMP: {
        struct dataset *ds = calloc(1, sizeof *ds);
        if (!ds) return pt_errorf(err, "out of memory");
        if (r->reader == R_MONITOR) rc = monitor_load(path, &lo, ds, err);
        else if (r->reader == R_TRENDDB) rc = trenddb_load(path, &lo, ds, err);
        else {
            char out[4200];
            struct tdb_result res;
            snprintf(out, sizeof out, "%s/out", dir);
            rc = r->reader == R_DATA2DB_MON ? trenddb_write_monitor(path, out, &lo, ds, &res, err)
                                            : trenddb_write_dump(path, out, &lo, ds, &res, err);
        }
        dataset_free(ds);
        break;
    }
    case R_VISDB: {
        struct visdb *v;
        struct visdb_graph *g = NULL;
        rc = visdb_open(path, &v, err);
        if (rc == 0) {
            rc = visdb_load(v, 0, 0, "NPU", &g, err);
            visdb_graph_free(g);
            visdb_close(v);
        }
        break;
    }
    case R_LOAD: {
        struct dataset *ds = NULL;
        rc = load_dataset(path, &lo, &ds, err);
        dataset_free(ds);
        break;
    }
    }
    return rc;
}

static void messages(void) {
    char base[1024];
    const char *t = pt_tmpdir("messages");
    if (!t) SKIP("no scratch folder");
    snprintf(base, sizeof base, "%s", t);
    for (size_t i = 0; i < NROWS; i++) {
        const struct row *r = &rows[i];
        char dir[1100], path[4300];
        snprintf(dir, sizeof dir, "%s/%zu", base, i);
        if (mkdir(dir, 0755) != 0 || make_files(dir, r) != 0) {
            fprintf(stderr, "row %zu (%s): cannot make its files\n", i, r->what);
            CHECK(0);
            continue;
        }
        if (r->arg[0] == '/') snprintf(path, sizeof path, "%s", r->arg);
        else snprintf(path, sizeof path, "%s/%s", dir, r->arg);
        struct pt_error err = {{0}};
        int rc = read_with(r, dir, path, &err);
        if (rc == 0 || !strstr(err.msg, r->want))
            fprintf(stderr, "row %zu (%s): rc %d, message \"%s\"\n", i, r->what, rc, err.msg);
        CHECK_INT(rc, -1);
        CHECK_CONTAINS(err.msg, r->want);
    }
}

/* A rank folder holding records (NULL-terminated names, each an API or a
 * module call with one tensor in and out) and a construct.json with every
 * one a root. */
static int make_rank(const char *dir, const char *const *names) {
    char p[4200], data[8192] = "", cons[4096] = "";
    size_t d = 0, c = 0;
    for (size_t i = 0; names[i]; i++) {
        const char *t = "{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [2], "
                        "\"Max\": 1.0, \"Min\": -1.0, \"Mean\": 0.5, \"Norm\": 2.0}";
        d += (size_t)snprintf(data + d, sizeof data - d, "%s\"%s\": {\"input_args\": [%s], \"output\": [%s]}",
                              i ? ", " : "", names[i], t, t);
        c += (size_t)snprintf(cons + c, sizeof cons - c, "%s\"%s\": null", i ? ", " : "", names[i]);
    }
    snprintf(p, sizeof p, "mkdir -p '%s'", dir);
    if (system(p) != 0) return -1;
    char text[8400];
    snprintf(text, sizeof text, "{\"task\": \"statistics\", \"level\": \"mix\", \"data\": {%s}}", data);
    snprintf(p, sizeof p, "%s/dump.json", dir);
    if (pt_write(p, text) != 0) return -1;
    snprintf(text, sizeof text, "{%s}", cons);
    snprintf(p, sizeof p, "%s/construct.json", dir);
    return pt_write(p, text);
}

/* model/compare/compare.c: manual matching refuses what msProbe would not match. */
static void manual_match(void) {
    const char *t = pt_tmpdir("messages_match");
    if (!t) SKIP("no scratch folder");
    char pd[1100], bd[1100];
    snprintf(pd, sizeof pd, "%s/problem", t);
    snprintf(bd, sizeof bd, "%s/bench", t);
    const char *pn[] = { "Functional.linear.0.forward", "Functional.relu.0.forward", NULL };
    const char *bn[] = { "Functional.linear.0.forward", "Module.fc.Linear.forward.0", NULL };
    CHECK_INT(make_rank(pd, pn), 0);
    CHECK_INT(make_rank(bd, bn), 0);
    struct tree *p = NULL, *b = NULL;
    struct cmp_graph *g = NULL;
    struct pt_error err = {{0}};
    CHECK_INT(graph_read(pd, GRAPH_BUILD, &p, &err), 0);
    CHECK_INT(graph_read(bd, GRAPH_BUILD, &b, &err), 0);
    if (!p || !b || cmp_graph_new(p, b, NULL, &g, &err) != 0) {
        fprintf(stderr, "cannot build the compared graph: %s\n", err.msg);
        CHECK(0);
        tree_free(p);
        tree_free(b);
        return;
    }
    int relu = tree_find(p, "Functional.relu.0.forward"), blin = tree_find(b, "Functional.linear.0.forward");
    int fc = tree_find(b, "Module.fc.Linear.forward.0"), plin = tree_find(p, "Functional.linear.0.forward");
    CHECK(relu >= 0 && blin >= 0 && fc >= 0);
    /* the two linear calls are not matched automatically (the
     * roots are): every call below starts from that */
    CHECK_INT(cmp_manual_match(g, -1, blin, 0, &err), -1);
    CHECK_STR(err.msg, "no such node");
    CHECK_INT(cmp_manual_match(g, relu, fc, 0, &err), -1);
    CHECK_CONTAINS(err.msg, "Functional.relu.0.forward and Module.fc.Linear.forward.0 are of different kinds");
    CHECK_INT(cmp_manual_match(g, relu, blin, 0, &err), 0);
    CHECK_INT(cmp_manual_match(g, plin, blin, 0, &err), -1);
    CHECK_STR(err.msg, "Functional.linear.0.forward is already matched");
    CHECK_INT(cmp_manual_match(g, relu, fc, 0, &err), -1);
    CHECK_STR(err.msg, "Functional.relu.0.forward is already matched");
    CHECK_INT(cmp_unmatch(g, plin, &err), -1);
    CHECK_STR(err.msg, "the node is not matched");
    CHECK_INT(cmp_unmatch(g, relu, &err), 0);
    cmp_graph_free(g);
    tree_free(p);
    tree_free(b);
}

/* model/graph/layermap.c: msProbe's layer mapping needs four dot-separated
 * fields in every dump entry and construct.json parent. */
static void layer_mapping(void) {
    const char *t = pt_tmpdir("messages_lmap");
    if (!t) SKIP("no scratch folder");
    static const struct { const char *rec, *cons, *want; } rows[] = {
        { "Functional.linear.0", "{\"Functional.linear.0\": null}",
          "layer mapping: dump entry Functional.linear.0 has fewer than four dot-separated fields" },
        { "Functional.linear.0.forward", "{\"Functional.linear.0.forward\": \"Module.fc\"}",
          "layer mapping: the construct.json parent Module.fc of Functional.linear.0.forward has fewer than four" },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char d[1100], p[1300];
        snprintf(d, sizeof d, "%s/%zu", t, i);
        const char *names[] = { rows[i].rec, NULL };
        CHECK_INT(make_rank(d, names), 0);
        snprintf(p, sizeof p, "%s/construct.json", d);
        CHECK_INT(pt_write(p, rows[i].cons), 0);
        char stack[512];
        snprintf(stack, sizeof stack, "{\"%s\": [\"File \\\"train.py\\\", line 1, in main\"]}", rows[i].rec);
        snprintf(p, sizeof p, "%s/stack.json", d);
        CHECK_INT(pt_write(p, stack), 0);
        struct tree *tr = NULL;
        struct layermap *m = NULL;
        struct pt_error err = {{0}};
        CHECK_INT(graph_read(d, 0, &tr, &err), 0);
        if (!tr) { fprintf(stderr, "row %zu: %s\n", i, err.msg); continue; }
        CHECK_INT(layermap_build(tr, tr, NULL, 0, &m, &err), -1);
        CHECK_CONTAINS(err.msg, rows[i].want);
        layermap_free(m);
        tree_free(tr);
    }
}

int main(void) {
    RUN(messages);
    RUN(manual_match);
    RUN(layer_mapping);
    PT_DONE();
}
