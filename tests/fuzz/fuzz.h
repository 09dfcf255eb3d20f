/* fuzz.h: what every libFuzzer harness in tests/fuzz shares.
 *
 * Most readers take a path (they map or read whole files, refuse FIFOs...),
 * so a harness writes the input into a private temporary folder (in
 * $FUZZ_TMPDIR, else /dev/shm when it exists: no disk I/O per execution)
 * and calls the reader on it.  Inputs that stand for several files of one rank folder are cut
 * at FUZZ_SEP bytes: "dump.json \x1e construct.json \x1e stack.json".
 *
 * Each harness defines LLVMFuzzerTestOneInput and is linked either with
 * libFuzzer (PROBETOP_FUZZ=ON, clang) or with replay.c, which feeds it the
 * files named on its command line (the ctest regression entries).
 * Process-wide state here is the harness's own (its folder), never the
 * project's. */
#ifndef PT_FUZZ_H
#define PT_FUZZ_H

#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FUZZ_SEP '\x1e'

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char fuzz_dir_path[512];

static void fuzz_rm_tree(const char *dir, int depth) {
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    char p[1024];
    struct stat st;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (depth < 8 && lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) fuzz_rm_tree(p, depth + 1);
        else unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

static void fuzz_dir_remove(void) { fuzz_rm_tree(fuzz_dir_path, 0); }

/* The harness's folder, made on first use and removed at exit. */
static const char *fuzz_dir(void) {
    if (fuzz_dir_path[0]) return fuzz_dir_path;
    struct stat st;
    const char *base = getenv("FUZZ_TMPDIR");   /* smoke.sh's, removed by it whatever happens */
    if (!base || !*base)
        base = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) && access("/dev/shm", W_OK) == 0
                   ? "/dev/shm"
                   : (getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    snprintf(fuzz_dir_path, sizeof fuzz_dir_path, "%s/probetop-fuzz-XXXXXX", base);
    if (!mkdtemp(fuzz_dir_path)) {
        perror("fuzz: mkdtemp");
        abort();
    }
    atexit(fuzz_dir_remove);
    return fuzz_dir_path;
}

/* The path of name in the folder (a static buffer per call site is not
 * needed: callers copy or use it at once). */
static inline void fuzz_path(char *out, size_t size, const char *name) {
    snprintf(out, size, "%s/%s", fuzz_dir(), name);
}

/* Writes len bytes as file name (replacing it); aborts when the harness
 * itself cannot write (that is no finding of the reader). */
static inline void fuzz_write(const char *name, const void *data, size_t len) {
    char p[1024];
    fuzz_path(p, sizeof p, name);
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) { perror(p); abort(); }
    const char *b = data;
    while (len > 0) {
        ssize_t w = write(fd, b, len);
        if (w <= 0) { perror(p); abort(); }
        b += w;
        len -= (size_t)w;
    }
    close(fd);
}

static inline void fuzz_unlink(const char *name) {
    char p[1024];
    fuzz_path(p, sizeof p, name);
    unlink(p);
}

/* Cuts data at FUZZ_SEP into at most max parts; returns how many (>= 1). */
static inline int fuzz_split(const uint8_t *data, size_t size, const uint8_t **part, size_t *len, int max) {
    int n = 0;
    size_t start = 0;
    for (size_t i = 0; i <= size && n < max; i++) {
        if (i == size || (data[i] == (uint8_t)FUZZ_SEP && n + 1 < max)) {
            part[n] = data + start;
            len[n] = i - start;
            n++;
            start = i + 1;
        }
    }
    return n;
}

/* A NUL-terminated malloc'd copy (readers of C strings). */
static inline char *fuzz_strdup(const uint8_t *data, size_t size) {
    char *s = malloc(size + 1);
    if (!s) abort();
    if (size) memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

#endif
