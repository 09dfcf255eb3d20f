/* bigmem: realloc for the few arrays that reach tens of megabytes (tree
 * params and names, compare rows, csv text, a trace's kernels and
 * launches and their sorts).
 *
 * On this kind of machine a first touch of a 4 KiB page costs microseconds
 * (paravirtualised page faults were a fifth of a `probetop compare`), so
 * blocks of 4 MiB and more ask the kernel for transparent huge pages where
 * it offers them (THP "madvise" mode), and a new one starts on a 2 MiB
 * boundary (malloc's start 16 bytes into a mapping, so their first 2 MiB
 * were 4 KiB pages).  Memory is still plain malloc memory: realloc grows
 * and cuts it, free() releases it. */
#ifndef PT_BIGMEM_H
#define PT_BIGMEM_H

#include <stddef.h>

void *bigmem_realloc(void *p, size_t n);

#endif
