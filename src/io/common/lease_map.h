/* lease_map: a plain file's bytes mapped read-only under a read lease
 * instead of copied (probetop-formats(5), DUMP.JSON and PROFILER TRACES:
 * Memory).  While the lease is held, a program that opens the file to
 * write or cut it waits, so the mapping cannot lose pages under the reader. */
#ifndef PT_LEASE_MAP_H
#define PT_LEASE_MAP_H

#include <stddef.h>
#include <stdint.h>

/* fd (opened read-only, size bytes long) mapped under a read lease: the
 * file's bytes, then zeros to a page past its end (one zero byte after the
 * text at least), *maplen the mapping's length; its break is signalled by
 * SIGURG, which is ignored unless handled (lease_map_held asks instead).
 * NULL, and no lease left held, when the lease is refused (the file is open
 * to be written, another user's file, a file system without leases), the
 * file is empty or was cut after its size was taken: read it then.  The
 * lease goes with the descriptor's close (or F_SETLEASE F_UNLCK). */
const char *lease_map(int fd, uint64_t size, size_t *maplen);
/* Whether fd's lease still holds (else someone opens the file to write it
 * and waits for it to be let go). */
int lease_map_held(int fd);

#endif
