/* pstore: parses kept between loads (follow mode's reloads), the one store
 * behind src/io/monitor/mon_cache.h (a monitor tree's CSV files) and
 * src/io/dump/dump_cache.h (a dump's rank folders).
 *
 * A parse is kept under a key (the path it was read from) with the
 * identity of what it was read from (sig: a hash of the files' inode,
 * size and times, as the caller computes it), and found again only while
 * that identity holds.  Parses are kept while their memory stays within a
 * budget.  What shapes a parse besides the bytes is the stamp of
 * pstore_begin: a new stamp drops every parse.  A parse not used by a
 * whole load (its file gone) is dropped at its end.
 *
 * The store owns what it keeps and frees it with the free function it was
 * made with.  One load at a time uses a store. */
#ifndef PT_PSTORE_H
#define PT_PSTORE_H

#include <stddef.h>
#include <stdint.h>

struct pstore;
typedef void (*pstore_free_fn)(void *payload);

struct pstore *pstore_new(uint64_t budget, pstore_free_fn free_fn);
void pstore_free(struct pstore *s);

/* Starts a load: 1 when stamp differs from the last load's (every parse
 * was dropped), 0 when not, -1 without memory. */
int pstore_begin(struct pstore *s, const char *stamp);
/* The parse kept under key when it was read from what sig names, else
 * NULL.  Valid until pstore_keep of the same key, the next pstore_begin or
 * the free. */
void *pstore_find(struct pstore *s, const char *key, uint64_t sig);
/* Keeps payload (bytes of memory) under key, in place of what key had: 1
 * kept (the store's now), 0 not (over the budget, or no memory: the
 * caller's still). */
int pstore_keep(struct pstore *s, const char *key, uint64_t sig, void *payload, uint64_t bytes);
/* Ends a load: with whole (the load read every file of its input), the
 * parses it did not use are dropped. */
void pstore_end(struct pstore *s, int whole);

size_t pstore_count(const struct pstore *s);
uint64_t pstore_bytes(const struct pstore *s);

#endif
