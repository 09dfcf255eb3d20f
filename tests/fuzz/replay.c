/* replay: the main() of a harness built without libFuzzer (any compiler).
 * Feeds LLVMFuzzerTestOneInput every file named on the command line, and
 * every file inside a folder named there, one at a time: the ctest entries
 * that replay tests/fuzz/seeds and tests/fuzz/regress.  A crash or a
 * sanitizer report fails the test; so does an argument that cannot be read. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); return -1; }
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    for (;;) {
        if (!buf) { fclose(f); fprintf(stderr, "replay: out of memory\n"); return -1; }
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap) break;
        uint8_t *nb = realloc(buf, cap * 2);
        if (!nb) free(buf);
        buf = nb;
        cap *= 2;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) { free(buf); perror(path); return -1; }
    /* the exact size: an overread past the input is what ASan must see */
    uint8_t *exact = malloc(n ? n : 1);
    if (!exact) { free(buf); return -1; }
    memcpy(exact, buf, n);
    free(buf);
    fprintf(stderr, "replay: %s (%zu bytes)\n", path, n);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    return 0;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(int argc, char **argv) {
    int rc = 0, files = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) { perror(argv[i]); rc = 1; continue; }
        if (!S_ISDIR(st.st_mode)) {
            rc |= run_file(argv[i]) != 0;
            files++;
            continue;
        }
        DIR *d = opendir(argv[i]);
        if (!d) { perror(argv[i]); rc = 1; continue; }
        char **names = NULL;
        size_t n = 0;
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.') continue;
            char **nn = realloc(names, (n + 1) * sizeof *names);
            if (!nn || !(nn[n] = strdup(e->d_name))) { fprintf(stderr, "replay: out of memory\n"); abort(); }
            names = nn;
            n++;
        }
        closedir(d);
        qsort(names, n, sizeof *names, cmp_str);
        for (size_t k = 0; k < n; k++) {
            char p[4096];
            snprintf(p, sizeof p, "%s/%s", argv[i], names[k]);
            if (stat(p, &st) == 0 && S_ISREG(st.st_mode)) {
                rc |= run_file(p) != 0;
                files++;
            }
            free(names[k]);
        }
        free(names);
    }
    fprintf(stderr, "replay: %d input%s\n", files, files == 1 ? "" : "s");
    return rc;
}
