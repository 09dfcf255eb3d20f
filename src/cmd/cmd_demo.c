/* cmd_demo: `probetop demo --write DIR`: the demo's files (a problem run
 * and its benchmark as msProbe dumps, their training logs, a profiler
 * trace, a monitor tree with anomaly reports; src/io/demo/demo_files.h)
 * written as msProbe writes them, for trying every headless command.  DIR
 * must not exist or be empty; the files go into a temporary folder beside
 * it, renamed to DIR when whole, so DIR never holds half a demo. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/util/fs.h"
#include "src/cmd/cmd.h"
#include "src/io/demo/demo_files.h"

/* 1 when dir holds anything, 0 when empty or absent, -1 when it is not a folder. */
static int holds_something(const char *dir) {
    struct stat st;
    if (stat(dir, &st) != 0) return errno == ENOENT ? 0 : -1;
    if (!S_ISDIR(st.st_mode)) return -1;
    size_t n = 0;
    char **v = fs_list_dir(dir, 1, &n);
    if (!v) return n ? -1 : 0;
    fs_free_list(v, n);
    return n > 0;
}

static int demo_run(int argc, char **argv) {
    const char *dir = NULL;
    for (int i = 1; i < argc; i++) {
        int matched = 0, bad = 0;
        const char *v = opt_value(argc, argv, &i, "--write", &matched, &bad);
        if (bad) return EXIT_USAGE;
        if (matched) { dir = v; continue; }
        fprintf(stderr, "probetop demo: unknown argument '%s' (usage: %s)\n", CMD_ESC(argv[i]), cmd_demo_entry.usage);
        return EXIT_USAGE;
    }
    if (!dir || !*dir) {
        fprintf(stderr, "probetop demo: --write DIR is missing (usage: %s)\n", cmd_demo_entry.usage);
        return EXIT_USAGE;
    }
    int full = holds_something(dir);
    if (full != 0) {
        fprintf(stderr, "probetop demo: %s: %s\n", CMD_ESC(dir),
                full < 0 ? "not a folder probetop can write into" : "not empty (give a new or empty folder)");
        return EXIT_USAGE;
    }
    struct demo_files f;
    struct pt_error err;
    if (demo_files_make(&f, &err) != 0) {
        fprintf(stderr, "probetop demo: %s\n", err.msg);
        return EXIT_USAGE;
    }
    /* a temporary folder beside DIR (same file system: the rename is atomic) */
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/') n--;
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%.*s.part-XXXXXX", (int)n, dir) >= (int)sizeof tmp) {
        demo_files_free(&f);
        fprintf(stderr, "probetop demo: %s: path too long\n", CMD_ESC(dir));
        return EXIT_USAGE;
    }
    if (!mkdtemp(tmp)) {
        int e = errno;
        demo_files_free(&f);
        fprintf(stderr, "probetop demo: %s: %s\n", CMD_ESC(tmp), strerror(e));
        return EXIT_USAGE;
    }
    /* mkdtemp makes it 0700: a folder the user asked for gets the umask's mode, as mkdir(1) gives */
    mode_t um = umask(0);
    umask(um);
    chmod(tmp, 0777 & ~um);
    int rc = demo_files_write(&f, tmp, &err);
    if (rc == 0 && rename(tmp, dir) != 0) rc = pt_errorf(&err, "%s: %s", dir, strerror(errno));
    if (rc != 0) {
        demo_files_remove(&f, tmp);
        rmdir(tmp);
        demo_files_free(&f);
        fprintf(stderr, "probetop demo: %s\n", CMD_ESC(err.msg));
        return EXIT_USAGE;
    }
    demo_files_free(&f);
    printf("wrote %s: a problem run and its benchmark (%d steps x %d ranks, TP %d x PP %d x DP %d)\n", dir, DEMO_FILES_STEPS,
           DEMO_FILES_RANKS, DEMO_FILES_TP, DEMO_FILES_PP, DEMO_FILES_RANKS / (DEMO_FILES_TP * DEMO_FILES_PP));
    printf("  %s/%s, %s/%s        msProbe dumps (dump.json, construct.json, stack.json)\n", dir, DEMO_FILES_PROBLEM, dir,
           DEMO_FILES_BENCH);
    printf("  %s/%s, %s/%s      Megatron-LM training logs\n", dir, DEMO_FILES_PROBLEM_LOG, dir, DEMO_FILES_BENCH_LOG);
    printf("  %s/%s                      a Kineto profiler trace, one file a rank\n", dir, DEMO_FILES_TRACE);
    printf("  %s/%s                    a monitor tree with msProbe's anomaly reports\n", dir, DEMO_FILES_MONITOR);
    printf("try: probetop %s/%s %s/%s\n", dir, DEMO_FILES_PROBLEM, dir, DEMO_FILES_BENCH);
    return EXIT_OK;
}

const struct cmd_entry cmd_demo_entry = {
    "demo",
    "probetop demo --write DIR",
    "write the demo's data (the one probetop --demo shows) as msProbe files, to try every command on",
    "  --write DIR   a new or empty folder: problem/ and bench/ runs (dumps, training logs), the problem\n"
    "                run's profiler trace and monitor tree with anomaly reports; written under a\n"
    "                temporary name beside DIR and renamed when whole\n",
    demo_run,
};
