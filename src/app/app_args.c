/* app_args: the analyzer's command line (`probetop [OPTIONS] PATH...`,
 * `probetop --demo`) into the session's input and load options, and the
 * options' help text (probetop --help, man probetop). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/util/util.h"
#include "src/app/app.h"
#include "src/app/app_state.h"
#include "src/cmd/cmd.h"
#include "ui/ui.h"

const char app_options_help[] =
    "  --demo            open the demo: a problem run and its benchmark (4 steps x 8 ranks,\n"
    "                    TP 2 x PP 2 x DP 2), a NaN born on one rank, a drifting layer, a trace,\n"
    "                    training logs (probetop demo --write DIR writes them as files)\n"
    "  --demo=trend      trend data alone, made up in memory (16 steps x 8 ranks, a NaN burst)\n"
    "  --ascii           draw with ASCII only (automatic when the locale is not UTF-8)\n"
    "  --no-mouse        leave the mouse to the terminal (select and paste)\n"
    "  --format NAME     force the input format: auto (default: detect) or a name of\n"
    "                    man probetop (--format)\n"
    "  --micro_step B    true/false: global micro steps (default true, as msProbe; - or _ alike)\n"
    "  --mapping FILE    name replacements, as data2db --mapping\n"
    "  --pattern N=RE    a training log's series N: lines RE matches, (?<step>)(?<value>)\n"
    "  --patterns FILE   profiler traces: classification patterns, as trace --patterns\n"
    "  --dump DIR        training curves: the run's dump root, where Enter opens the step to dump\n"
    "  --db NAME         which .trend.db of a folder to open\n"
    "  --threads N       loader threads (default: one per core)\n"
    "  --mem SIZE        a .trend.db is held whole in memory only within SIZE (512M, 2G;\n"
    "                    0: slices only; default a quarter of the RAM, at most 1G)\n"
    "  --follow          follow mode: show new steps as training writes them (:follow off)\n"
    "  --parallel SPEC   Megatron layout for the layout pane, e.g. \"W=32 L=48 TP=4 PP=4\"\n"
    "  --fuzzy-match     compare mode: match calls by name without call counters (msprobe -fm)\n"
    "  --layer-mapping FILE|auto  compare mode: msprobe -lm, YAML of attribute renames or auto\n"
    "                    (needed across frameworks)\n"
    "  --match-config FILE   compare mode: apply a saved match config (msprobe .vis.config)\n";

void app_args_usage_error(const char *fmt, const char *arg) {
    fprintf(stderr, "probetop: ");
    fprintf(stderr, fmt, CMD_ESC(arg));
    fprintf(stderr, " (probetop --help)\n");
}

/* --demo (the demo's files, src/session/demo_session.h), --demo=trend
 * (the trend data alone, made up in memory: model/cube/demo.h) or
 * --demo=RANKSxTARGETS (the same at the benchmark scale). */
static int parse_demo(struct app *a, const char *arg) {
    a->session.demo = 1;
    a->session.demo_cube = 0;
    a->session.demo_ranks = a->session.demo_targets = 0;
    if (!arg) return 0;
    a->session.demo_cube = 1;
    if (!strcmp(arg, "trend")) return 0;
    char *e;
    long r = strtol(arg, &e, 10);
    if (e == arg || (*e != 'x' && *e != 'X')) return -1;
    const char *t = e + 1;
    long n = strtol(t, &e, 10);
    if (e == t || *e || r < 1 || n < 1 || r > 100000 || n > 100000) return -1;
    a->session.demo_ranks = (int)r;
    a->session.demo_targets = (int)n;
    return 0;
}

int app_args_parse(struct app *a, struct ui_opts *uo, int argc, char **argv, int *keys_man) {
    load_opts_init(&a->session.lopts);
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        int matched = 0, bad = 0;
        const char *v;
        if (!strcmp(s, "--demo")) { parse_demo(a, NULL); continue; }
        if (!strncmp(s, "--demo=", 7)) {
            if (parse_demo(a, s + 7) < 0) { app_args_usage_error("--demo=trend or --demo=RANKSxTARGETS (e.g. 1024x5000), not '%s'", s + 7); return -1; }
            continue;
        }
        if (!strcmp(s, "--ascii")) { uo->ascii = 1; continue; }
        if (!strcmp(s, "--no-mouse")) { uo->no_mouse = 1; continue; }
        if (!strcmp(s, "--keys-man")) { *keys_man = 1; continue; }
        if (!strcmp(s, "--follow")) { a->session.follow_arg = a->session.lopts.follow = 1; continue; }
        if (!strcmp(s, "--fuzzy-match") || !strcmp(s, "-fm")) { a->session.fuzzy = 1; continue; }
        v = opt_value(argc, argv, &i, "--layer-mapping", &matched, &bad);
        if (bad) return -1;
        if (matched) { a->session.layer_mapping = v; continue; }
        v = opt_value(argc, argv, &i, "--match-config", &matched, &bad);
        if (bad) return -1;
        if (matched) { a->session.match_config = v; continue; }
        v = opt_value(argc, argv, &i, "--format", &matched, &bad);
        if (bad) return -1;
        if (matched) {
            if (formats_parse(v, &a->session.lopts.format) < 0) {
                char names[256], msg[320];
                snprintf(msg, sizeof msg, "--format wants %s, not '%s'", formats_names(names, sizeof names, 0), v);
                app_args_usage_error("%s", msg);
                return -1;
            }
            continue;
        }
        v = opt_value(argc, argv, &i, "--micro_step", &matched, &bad);
        if (bad) return -1;
        if (matched) {
            if (opt_bool(v, &a->session.lopts.micro_step) < 0) { app_args_usage_error("--micro_step wants true or false, not '%s'", v); return -1; }
            continue;
        }
        v = opt_value(argc, argv, &i, "--mapping", &matched, &bad);
        if (bad) return -1;
        if (matched) { a->session.lopts.mapping = v; continue; }
        v = opt_value(argc, argv, &i, "--pattern", &matched, &bad);
        if (bad) return -1;
        if (matched) {
            if (load_opts_add_pattern(&a->session.lopts, v) < 0) {
                app_args_usage_error("--pattern wants NAME=REGEX (at most 32 of them), not '%s'", v);
                return -1;
            }
            continue;
        }
        v = opt_value(argc, argv, &i, "--patterns", &matched, &bad);
        if (bad) return -1;
        if (matched) { a->session.trace_patterns_file = v; continue; }
        v = opt_value(argc, argv, &i, "--dump", &matched, &bad);
        if (bad) return -1;
        if (matched) { a->session.curves_dump = v; continue; }
        v = opt_value(argc, argv, &i, "--db", &matched, &bad);
        if (bad) return -1;
        if (matched) { a->session.lopts.db_name = v; continue; }
        v = opt_value(argc, argv, &i, "--threads", &matched, &bad);
        if (bad) return -1;
        if (matched) {
            long n;
            if (opt_int(v, 0, 1024, &n) < 0) { app_args_usage_error("--threads wants 0..1024, not '%s'", v); return -1; }
            a->session.lopts.threads = (int)n;
            continue;
        }
        v = opt_value(argc, argv, &i, "--mem", &matched, &bad);
        if (bad) return -1;
        if (matched) {
            if (util_parse_size(v, &a->session.lopts.mem_budget) < 0) {
                app_args_usage_error("--mem wants a size such as 512M or 2G, not '%s'", v);
                return -1;
            }
            continue;
        }
        v = opt_value(argc, argv, &i, "--parallel", &matched, &bad);
        if (bad) return -1;
        if (matched) {
            free(a->session.parallel_arg);
            if (!(a->session.parallel_arg = strdup(v))) return -1;
            continue;
        }
        if (s[0] == '-' && s[1]) { app_args_usage_error("unknown option '%s'", s); return -1; }
        if (a->session.npaths == 2) { app_args_usage_error("too many paths ('%s'): give one PATH, or PROBLEM BENCH", s); return -1; }
        if (!(a->session.paths[a->session.npaths++] = strdup(s))) return -1;
    }
    return 0;
}
