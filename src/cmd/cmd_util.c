/* cmd_util: the option parsing and loading the headless commands share. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/cmd/cmd.h"
#include "src/io/load.h"

const char *opt_value(int argc, char **argv, int *i, const char *name, int *matched, int *bad) {
    size_t n = strlen(name);
    const char *a = argv[*i];
    *matched = 0;
    if (strncmp(a, name, n) != 0) return NULL;
    if (a[n] == '=') { *matched = 1; return a + n + 1; }
    if (a[n] != '\0') return NULL;
    *matched = 1;
    if (*i + 1 >= argc) {
        fprintf(stderr, "probetop: %s needs a value\n", CMD_ESC(name));
        *bad = 1;
        return NULL;
    }
    return argv[++*i];
}

int opt_bool(const char *s, int *out) {
    if (!strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "1")) { *out = 1; return 0; }
    if (!strcmp(s, "false") || !strcmp(s, "False") || !strcmp(s, "0")) { *out = 0; return 0; }
    return -1;
}

int opt_int(const char *s, long lo, long hi, long *out) {
    char *e;
    errno = 0;
    long v = strtol(s, &e, 10);
    if (e == s || *e || errno || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

struct dataset *cmd_load(const char *path, const struct load_opts *lo) {
    struct dataset *ds;
    struct pt_error err;
    if (load_dataset(path, lo, &ds, &err) != 0) {
        fprintf(stderr, "probetop: %s\n", CMD_ESC(err.msg));
        return NULL;
    }
    for (size_t i = 0; i < ds->nwarnings; i++) fprintf(stderr, "probetop: warning: %s\n", CMD_ESC(ds->warnings[i]));
    return ds;
}

const char *cmd_esc(const char *s, char *buf, size_t n) {
    if (!s) s = "";
    return pt_escape(s, strlen(s), buf, n);
}
