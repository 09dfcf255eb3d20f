/* pt_cmd_overflow.h: `probetop overflow` run in process with its output
 * captured, and the fields of its JSON, for the overflow command's tests
 * (test_cmd_overflow.c, test_cmd_overflow_notensor.c).  Include after
 * pt_test.h. */
#ifndef PT_TEST_CMD_OVERFLOW_H
#define PT_TEST_CMD_OVERFLOW_H

#include <fcntl.h>
#include <stdarg.h>

#include <cjson/cJSON.h>

#include "src/cmd/cmd.h"

static char pt_tmpdir_path[4096];   /* this binary's scratch directory */

/* This binary's scratch directory into pt_tmpdir_path; -1 (said) when it
 * cannot be made. */
static inline int scratch_init(void) {
    const char *t = pt_tmpdir("cmd_overflow");
    if (!t) {
        fprintf(stderr, "no scratch directory\n");
        return -1;
    }
    snprintf(pt_tmpdir_path, sizeof pt_tmpdir_path, "%s", t);
    return 0;
}

/* Runs `probetop overflow ARGS...` in this process with stdout captured;
 * returns the exit code and the output (caller frees). */
static inline int run_overflow(char **out, ...) {
    char *argv[16];
    int argc = 0;
    va_list ap;
    va_start(ap, out);
    argv[argc++] = (char *)"overflow";
    for (char *a; argc < 15 && (a = va_arg(ap, char *)) != NULL;) argv[argc++] = a;
    va_end(ap);
    argv[argc] = NULL;

    char path[4200];
    snprintf(path, sizeof path, "%s/stdout.txt", pt_tmpdir_path);
    fflush(stdout);
    int saved = dup(1);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (saved < 0 || fd < 0) {
        fprintf(stderr, "cannot capture stdout\n");
        exit(1);
    }
    dup2(fd, 1);
    close(fd);
    int rc = cmd_overflow_entry.run(argc, argv);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);

    FILE *f = fopen(path, "rb");
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    for (size_t k; f && (k = fread(buf + n, 1, cap - n - 1, f)) > 0;) {
        n += k;
        if (cap - n < 2) buf = realloc(buf, cap *= 2);
    }
    if (f) fclose(f);
    buf[n] = '\0';
    *out = buf;
    return rc;
}

static inline int have_python(void) {
    const char *py = getenv("PT_PYTHON");
    return py && py[0] && access(py, X_OK) == 0;
}

static inline const cJSON *get(const cJSON *o, const char *k) {
    return cJSON_GetObjectItemCaseSensitive(o, k);
}
static inline const char *get_str(const cJSON *o, const char *k) {
    const cJSON *v = get(o, k);
    return cJSON_IsString(v) ? v->valuestring : "(not a string)";
}
static inline long get_int(const cJSON *o, const char *k) {
    const cJSON *v = get(o, k);
    return cJSON_IsNumber(v) ? (long)v->valuedouble : -999;
}

#endif
