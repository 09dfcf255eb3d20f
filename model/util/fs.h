/* fs: the few filesystem helpers the readers and the rank-folder scanner share. */
#ifndef PT_UTIL_FS_H
#define PT_UTIL_FS_H

#include <stddef.h>
#include <sys/types.h>

int fs_is_dir(const char *path);
int fs_is_file(const char *path);              /* a regular file */
/* Names in a folder (no "." or ".."; hidden ones only when with_hidden),
 * sorted; NULL with errno set when the folder cannot be listed.  Free with
 * fs_free_list. */
char **fs_list_dir(const char *path, int with_hidden, size_t *n);
void fs_free_list(char **v, size_t n);
/* 1 when the last component of path is name ("a/b/anomaly.json", "anomaly.json"). */
int fs_base_is(const char *path, const char *name);
char *fs_join(const char *a, const char *b);   /* "a/b", malloc'd, NULL without memory */
/* n bytes at offset at of fd into buf, however many reads it takes (an
 * interrupted read is read again): 0, or -1 on a read error or an end of
 * file before n bytes. */
int fs_pread_all(int fd, void *buf, size_t n, off_t at);
/* n bytes of buf at offset at of fd, however many writes it takes: 0, or
 * -1 with errno set (EIO for a write that wrote nothing). */
int fs_pwrite_all(int fd, const void *buf, size_t n, off_t at);
/* A temporary file's bytes [at, at + n), read for the last time, given
 * back: the whole pages inside them only (the bytes of a page they share
 * with others stay), by a hole punched where the system has them (Linux's
 * fallocate).  A hint: the pages freed are the ones the next writes of
 * this process take, which on a host that reclaims freed memory are far
 * cheaper than fresh ones (probetop(1), data2db: the temporary files
 * given back as read); where it cannot, nothing changes, so nothing
 * fails. */
void fs_discard(int fd, unsigned long long at, unsigned long long n);

#endif
