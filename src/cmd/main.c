/* main: dispatch.  `probetop COMMAND ...` runs a headless command from the
 * table; anything else (`probetop PATH`, `probetop --demo`, two paths) opens
 * the interactive app. */
#include <stdio.h>
#include <string.h>

#include "src/app/app.h"
#include "src/cmd/cmd.h"

static const struct cmd_entry *const commands[] = {
    &cmd_info_entry,
    &cmd_data2db_entry,
    &cmd_overflow_entry,
    &cmd_compare_entry,
    &cmd_parallel_entry,
    &cmd_trace_entry,
    &cmd_curves_entry,
    &cmd_report_entry,
    &app_snapshot_entry,
    &cmd_demo_entry,
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static const struct cmd_entry *find_command(const char *name) {
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(commands[i]->name, name) == 0) return commands[i];
    return NULL;
}

static void usage(FILE *f) {
    fprintf(f, "usage: probetop [OPTIONS] PATH            open the terminal analyzer\n"
               "       probetop [OPTIONS] PROBLEM BENCH   compare two dumps\n"
               "       probetop --demo                    open the demo (a problem/benchmark pair)\n"
               "       probetop COMMAND [ARGS]            run a headless command\n\n"
               "Commands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(f, "  %-10s %s\n", commands[i]->name, commands[i]->summary);
    fprintf(f, "\nOptions of the analyzer:\n%s", app_options_help);
    fprintf(f, "\n  -h, --help        this text\n"
               "  -V, --version     print the version\n\n"
               "`probetop help COMMAND` shows a command's options; man probetop has it all.\n"
               "Exit codes: 0 ok, 1 problems found (overflow, compare), 2 usage or unreadable input.\n");
}

static int help_command(const char *name) {
    const struct cmd_entry *c = find_command(name);
    if (!c) {
        fprintf(stderr, "probetop: no command '%s' (try probetop --help)\n", CMD_ESC(name));
        return EXIT_USAGE;
    }
    printf("usage: %s\n\n%s\n\n%s", c->usage, c->summary, c->help);
    return EXIT_OK;
}

/* Output that did not reach its file is a failure, whatever the command
 * thought (a full disk, a closed pipe): checked once here for every
 * headless command, as coreutils' close_stdout does. */
static int finish(int rc) {
    if ((fflush(stdout) != 0 || ferror(stdout)) && rc != EXIT_USAGE) {
        fprintf(stderr, "probetop: cannot write the output\n");
        return EXIT_USAGE;
    }
    return rc;
}

static int run_cli(int argc, char **argv) {
    if (argc >= 2) {
        const char *a = argv[1];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); return EXIT_OK; }
        if (!strcmp(a, "-V") || !strcmp(a, "--version")) { printf("probetop %s\n", PROBETOP_VERSION); return EXIT_OK; }
        if (!strcmp(a, "help")) {
            if (argc < 3) { usage(stdout); return EXIT_OK; }
            return help_command(argv[2]);
        }
        const struct cmd_entry *c = find_command(a);
        if (c) {
            for (int i = 2; i < argc; i++)
                if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) return help_command(a);
            return c->run(argc - 1, argv + 1);
        }
    }
    return -1;
}

int main(int argc, char **argv) {
    int rc = run_cli(argc, argv);
    if (rc >= 0) return finish(rc);
    return app_main(argc, argv);
}
