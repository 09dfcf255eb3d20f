/* demo_dump: the two msProbe dumps of the demo (src/io/demo/demo_files.h
 * says what is planted in them). */
#ifndef PT_DEMO_DUMP_H
#define PT_DEMO_DUMP_H

#include "src/io/demo/demo_set.h"

/* Adds both runs' stepS/rankR/{dump,construct,stack}.json to set.  0, or
 * -1 without memory. */
int demo_dump_runs(struct demo_files *set);

#endif
