/* cmd_util: what the headless commands share: option parsing, loading,
 * escaping, and stopping on a signal. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/cmd/cmd.h"
#include "src/io/load.h"

/* An option's name as typed matches the one in the table with '-' and '_'
 * taken as the same letter: msProbe spells its options with '_'
 * (--micro_step), most command-line tools with '-'. */
static int opt_name_eq(const char *typed, const char *name, size_t n) {
    for (size_t k = 0; k < n; k++) {
        char t = typed[k], c = name[k];
        if (t == '\0') return 0;
        if (k >= 2 && (t == '_' || t == '-') && (c == '_' || c == '-')) continue;
        if (t != c) return 0;
    }
    return 1;
}

const char *opt_value(int argc, char **argv, int *i, const char *name, int *matched, int *bad) {
    size_t n = strlen(name);
    const char *a = argv[*i];
    *matched = 0;
    if (!opt_name_eq(a, name, n)) return NULL;
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

/* The operands a command takes: the capitalised words after "probetop NAME"
 * in its usage line, up to the first that is not one (an option, "[...]"). */
#define CMD_MAX_OPERANDS 4
struct operands {
    int n;
    const char *name[CMD_MAX_OPERANDS];
    int len[CMD_MAX_OPERANDS];
};

static void operands_of(const struct cmd_entry *c, struct operands *o) {
    const char *p = c->usage + strlen("probetop ") + strlen(c->name);
    o->n = 0;
    while (*p == ' ' && o->n < CMD_MAX_OPERANDS) {
        const char *w = ++p;
        while ((*p >= 'A' && *p <= 'Z') || *p == '_') p++;
        if (p == w || (*p && *p != ' ' && *p != '\n')) break;
        o->name[o->n] = w;
        o->len[o->n++] = (int)(p - w);
    }
}

/* Operands from..n-1 as "A", "A and B", "A, B and C", with "is"/"are". */
static const char *operands_list(const struct operands *o, int from, char *buf, size_t size) {
    size_t l = 0;
    buf[0] = '\0';
    for (int i = from; i < o->n && l < size; i++) {
        const char *sep = i == from ? "" : i == o->n - 1 ? " and " : ", ";
        l += (size_t)snprintf(buf + l, size - l, "%s%.*s", sep, o->len[i], o->name[i]);
    }
    if (l < size) snprintf(buf + l, size - l, " %s", o->n - from > 1 ? "are" : "is");
    return buf;
}

int cmd_operand(const struct cmd_entry *c, const char *arg, const char **operands, int *n) {
    struct operands o;
    char list[256];
    operands_of(c, &o);
    if (arg[0] == '-' && arg[1]) {
        fprintf(stderr, "probetop %s: unknown option '%s' (see probetop help %s)\n", c->name, CMD_ESC(arg), c->name);
        return EXIT_USAGE;
    }
    if (!o.n) {
        fprintf(stderr, "probetop %s: unknown argument '%s' (see probetop help %s)\n", c->name, CMD_ESC(arg), c->name);
        return EXIT_USAGE;
    }
    if (*n >= o.n) {
        fprintf(stderr, "probetop %s: %s given already: '%s' is one too many\nusage: %s\n", c->name,
                operands_list(&o, 0, list, sizeof list), CMD_ESC(arg), c->usage);
        return EXIT_USAGE;
    }
    operands[(*n)++] = arg;
    return 0;
}

int cmd_operands_done(const struct cmd_entry *c, int n) {
    struct operands o;
    char list[256];
    operands_of(c, &o);
    if (n >= o.n) return 0;
    fprintf(stderr, "probetop %s: %s missing\nusage: %s\n", c->name, operands_list(&o, n, list, sizeof list), c->usage);
    return EXIT_USAGE;
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

/* ---- stopping on a signal ---- */

atomic_int cmd_stop;

static void on_stop(int sig) { atomic_store(&cmd_stop, sig); }

static void on_stop_twice(int sig) {
    if (atomic_exchange(&cmd_stop, sig) != 0) {
        signal(sig, SIG_DFL);
        raise(sig);
    }
}

static void stop_action(int flags, void (*handler)(int)) {
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    size_t n = flags & CMD_STOP_HUP ? 3 : 2;
    for (size_t i = 0; i < n; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = handler;
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[i], &sa, NULL);
    }
}

void cmd_stop_catch(int flags) {
    atomic_store(&cmd_stop, 0);
    stop_action(flags, flags & CMD_STOP_TWICE ? on_stop_twice : on_stop);
}

void cmd_stop_release(int flags) { stop_action(flags, SIG_DFL); }

const char *cmd_signal_name(int sig) {
    return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : "a signal";
}

int cmd_shard_parse(const char *cmd, const char *v, int *k, int *n) {
    if (!strcmp(v, "auto")) {
        static const char *const env[][2] = {{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
                                             {"SLURM_PROCID", "SLURM_NTASKS"},
                                             {"PMI_RANK", "PMI_SIZE"}};
        for (size_t i = 0; i < sizeof env / sizeof env[0]; i++) {
            const char *r = getenv(env[i][0]), *z = getenv(env[i][1]);
            long rank, size;
            if (!r || !z) continue;
            if (opt_int(z, 1, 1000000, &size) != 0 || opt_int(r, 0, size - 1, &rank) != 0) {
                fprintf(stderr, "probetop %s: --shard auto: %s=%s and %s=%s are not a task number and count\n", cmd,
                        env[i][0], CMD_ESC(r), env[i][1], CMD_ESC(z));
                return -1;
            }
            *k = (int)rank + 1;
            *n = (int)size;
            return 0;
        }
        fprintf(stderr, "probetop %s: --shard auto: no OMPI_COMM_WORLD_RANK, SLURM_PROCID or PMI_RANK set "
                        "(not started by mpirun or srun): one task, shard 1 of 1\n", cmd);
        *k = *n = 1;
        return 0;
    }
    char tail;
    if (sscanf(v, "%d/%d%c", k, n, &tail) != 2 || *n < 1 || *n > 1000000 || *k < 1 || *k > *n) {
        fprintf(stderr, "probetop %s: --shard takes auto or K/N with 1 <= K <= N, not '%s'\n", cmd, CMD_ESC(v));
        return -1;
    }
    return 0;
}
