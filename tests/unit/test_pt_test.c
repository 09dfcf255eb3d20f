/* The test framework's exit codes (pt_test.h), by running this binary again
 * with PT_SELFTEST set, where main() lists two functions of its own: one that
 * passes, one that skips.  ctest must see a skip whenever a function
 * skipped, even beside passes (a binary that passes some functions and
 * skips others is not all passed), and a PT_RUN that names no function is an error. */
#include "pt_test.h"

#include <sys/wait.h>

static void passes(void) { CHECK(1); }
static void skips(void) { CHECK(1); SKIP("on purpose"); }

/* Exit status of this binary run with PT_SELFTEST=1 and PT_RUN=run. */
static int self(const char *run) {
    char exe[4096], cmd[4400];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return -1;
    exe[n] = '\0';
    snprintf(cmd, sizeof cmd, "PT_SELFTEST=1 PT_RUN='%s' '%s' >/dev/null 2>&1", run, exe);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void exit_codes(void) {
    CHECK_INT(self("passes"), 0);
    CHECK_INT(self("skips"), 77);
    CHECK_INT(self(""), 77);          /* all functions: one passed, one skipped */
    CHECK_INT(self("no_such_function"), 1);
}

int main(void) {
    if (getenv("PT_SELFTEST")) { RUN(passes); RUN(skips); PT_DONE(); }   /* pt:no-ctest */
    RUN(exit_codes);
    PT_DONE();
}
