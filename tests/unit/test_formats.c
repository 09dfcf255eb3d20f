/* The reader table (src/io/formats.h): its rows, --format names, detection
 * by the highest score, the messages built from the rows, and the label
 * rules a dataset gets from the row (or its reader) rather than a view. */
#include "pt_test.h"

#include "src/io/load.h"
#include "src/io/formats.h"

static void rows(void) {
    CHECK(formats_nrows >= 3);
    for (size_t i = 0; i < formats_nrows; i++) {
        const struct formats_row *f = formats_rows[i];
        CHECK(f->name && f->name[0] && f->what && f->what[0] && f->detect && f->load);
        CHECK(formats_find(f->name) == f);   /* names are unique */
        CHECK(strcmp(f->name, "auto") != 0);    /* "auto" means detect */
        const struct formats_row *p = NULL;
        CHECK_INT(formats_parse(f->name, &p), 0);
        CHECK(p == f);
        CHECK_STR(formats_name(f), f->name);
    }
    /* the --format names scripts use keep working */
    const char *names[] = {"dump", "monitor", "trenddb"};
    for (size_t i = 0; i < 3; i++) CHECK(formats_find(names[i]) != NULL);
    const struct formats_row *p = formats_find("dump");
    CHECK_INT(formats_parse("auto", &p), 0);
    CHECK(p == NULL);
    CHECK_STR(formats_name(NULL), "auto");
    CHECK_INT(formats_parse("Dump", &p), -1);
    CHECK_INT(formats_parse("", &p), -1);
    CHECK(formats_find("nope") == NULL);
    /* what each row does for the commands and the views */
    CHECK(formats_find("dump")->write_trenddb && formats_find("monitor")->write_trenddb);
    CHECK(!formats_find("trenddb")->write_trenddb);
    CHECK_INT(formats_find("dump")->labels, LABELS_DUMP);
    CHECK_INT(formats_find("monitor")->labels, LABELS_MONITOR);
    CHECK(formats_find("dump")->tree && !formats_find("monitor")->tree && !formats_find("trenddb")->tree);
}

/* "a, b or c" of the rows' names (writers only: data2db's list), built
 * here from the table, so that a new row needs no edit of this test. */
static void join_names(char *out, size_t size, int writers_only) {
    size_t n = 0, k = 0;
    for (size_t i = 0; i < formats_nrows; i++) n += !writers_only || formats_rows[i]->write_trenddb;
    out[0] = '\0';
    for (size_t i = 0; i < formats_nrows; i++) {
        if (writers_only && !formats_rows[i]->write_trenddb) continue;
        size_t l = strlen(out);
        snprintf(out + l, size - l, "%s%s", k == 0 ? "" : k + 1 == n ? " or " : ", ", formats_rows[i]->name);
        k++;
    }
}

static void messages(void) {
    char buf[1024], want[1024];
    join_names(want, sizeof want, 0);
    CHECK_STR(formats_names(buf, sizeof buf, 0), want);
    join_names(want, sizeof want, 1);
    CHECK_STR(formats_names(buf, sizeof buf, 1), want);
    /* every row's description, in table order */
    formats_whats(buf, sizeof buf, 0, 1);
    const char *at = buf;
    for (size_t i = 0; i < formats_nrows; i++) {
        const char *w = strstr(at, formats_rows[i]->what);
        CHECK(w != NULL);
        if (w) at = w + strlen(formats_rows[i]->what);
    }
    CHECK(strstr(buf, " or ") != NULL);
    /* the formats scripts know by name say what they are as before */
    CHECK_CONTAINS(buf, "a dump (step*/rank*/dump.json)");
    CHECK_CONTAINS(buf, "a monitor folder (*-rank*-*/ with CSV files)");
    CHECK_CONTAINS(buf, "a .trend.db");
    /* data2db's list: the rows with a writer, no article */
    formats_whats(buf, sizeof buf, 1, 0);
    for (size_t i = 0; i < formats_nrows; i++)
        CHECK((strstr(buf, formats_rows[i]->what) != NULL) == (formats_rows[i]->write_trenddb != NULL));
    CHECK(!strncmp(buf, "dump (step*/rank*/dump.json)", 28));
    char small[10];   /* cut short, still a string */
    formats_names(small, sizeof small, 0);
    CHECK_STR(small, "dump, mon");
}

static void put(const char *path, const char *bytes, size_t n) {
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f) return;
    fwrite(bytes, 1, n, f);
    fclose(f);
}

static void detect(void) {
    const char *d = pt_tmpdir("detect");
    CHECK(d != NULL);
    if (!d) return;
    char p[1200];
    snprintf(p, sizeof p, "%s/absent", d);
    CHECK(formats_detect(p) == NULL);
    CHECK(formats_detect(d) == NULL);   /* an empty folder: nobody's */
    snprintf(p, sizeof p, "%s/x.bin", d);
    put(p, "SQLite format 3\0\0\0\0", 20);
    CHECK(formats_detect(p) == formats_find("trenddb"));   /* by its magic */
    snprintf(p, sizeof p, "%s/data.db", d);
    put(p, "", 0);
    CHECK(formats_detect(p) == formats_find("trenddb"));   /* by its name */
    snprintf(p, sizeof p, "%s/dump.json", d);
    put(p, "{}", 2);
    CHECK(formats_detect(p) == formats_find("dump"));      /* any other file: the guess */
    /* a folder of .trend.db files; one that is also a rank folder opens as a dump (earlier row) */
    snprintf(p, sizeof p, "%s/dbs", d);
    CHECK_INT(mkdir(p, 0777), 0);
    snprintf(p, sizeof p, "%s/dbs/a.trend.db", d);
    put(p, "", 0);
    snprintf(p, sizeof p, "%s/dbs", d);
    CHECK(formats_detect(p) == formats_find("trenddb"));
    snprintf(p, sizeof p, "%s/dbs/dump.json", d);
    put(p, "{}", 2);
    snprintf(p, sizeof p, "%s/dbs", d);
    CHECK(formats_detect(p) == formats_find("dump"));
}

static void labels_from_the_row(void) {
    const char *mon = pt_fixture("derived/synthetic_monitor_output");
    const char *tdb = pt_fixture("derived/gpu_dump.micro_step_true/dump_data.trend.db");
    const char *mdb = pt_fixture("derived/synthetic_monitor.micro_step_false");
    if (!mon || !tdb || !mdb) SKIP("fixtures absent");
    struct load_opts lo;
    struct pt_error err;
    struct dataset *ds;
    load_opts_init(&lo);
    CHECK_INT(load_dataset(mon, &lo, &ds, &err), 0);
    CHECK_INT(ds->labels, LABELS_MONITOR);
    CHECK(names_label_count(ds->cube->names) > 0);   /* load_dataset derived them */
    dataset_free(ds);
    /* a .trend.db of either kind: its metrics decide */
    CHECK_INT(load_dataset(tdb, &lo, &ds, &err), 0);
    CHECK_INT(ds->labels, LABELS_DUMP);
    CHECK(names_label_count(ds->cube->names) > 0);
    dataset_free(ds);
    CHECK_INT(load_dataset(mdb, &lo, &ds, &err), 0);
    CHECK_STR(formats_name(ds->format), "trenddb");
    CHECK_INT(ds->labels, LABELS_MONITOR);
    dataset_free(ds);
    /* forcing a format the data does not fit: that reader's own message */
    lo.format = formats_find("monitor");
    CHECK(load_dataset(tdb, &lo, &ds, &err) != 0);
}

int main(void) {
    RUN(rows);
    RUN(messages);
    RUN(detect);
    RUN(labels_from_the_row);
    PT_DONE();
}
