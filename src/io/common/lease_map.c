/* lease_map: a plain file mapped under a read lease (lease_map.h). */

#define _GNU_SOURCE   /* F_SETLEASE, F_SETSIG */
#include "src/io/common/lease_map.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* SIGURG and not SIGIO, the default, which would end the program. */
const char *lease_map(int fd, uint64_t size, size_t *maplen) {
    long page = sysconf(_SC_PAGESIZE);
    if (!size || page <= 0 || size > SIZE_MAX / 2) return NULL;
    if (fcntl(fd, F_SETSIG, SIGURG) != 0 || fcntl(fd, F_SETLEASE, F_RDLCK) != 0) return NULL;
    size_t len = ((size_t)size / (size_t)page + 1) * (size_t)page;   /* one zero byte after the text at least */
    struct stat st;
    void *m = MAP_FAILED;
    if (fstat(fd, &st) == 0 && (uint64_t)st.st_size == size) {   /* not cut between the open and the lease */
        m = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m != MAP_FAILED && mmap(m, (size_t)size, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED) {
            munmap(m, len);
            m = MAP_FAILED;
        }
    }
    if (m == MAP_FAILED) {
        fcntl(fd, F_SETLEASE, F_UNLCK);
        return NULL;
    }
    (void)madvise(m, (size_t)size, MADV_SEQUENTIAL);   /* read ahead as read() does (advice only) */
    *maplen = len;
    return m;
}

int lease_map_held(int fd) { return fcntl(fd, F_GETLEASE) == F_RDLCK; }
