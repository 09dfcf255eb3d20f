/* dump_cache: the parsed rank folders of a dump, kept between loads so
 * that a reload of follow mode parses only the folders that are new or
 * changed (probetop(1), FOLLOW MODE), within a memory budget.
 *
 * A folder's parse (struct dump_file: its rows, names, overflow records
 * and notes) is reused while its dump.json, construct.json and stack.json
 * keep their identity (device, inode, size, modification and change
 * times; absent stays absent).  Only a parse that read the whole file is
 * kept, and not when dump.json was modified within the last second (it
 * could change again within its timestamp's tick, unseen).  Parses are
 * kept while their memory stays within the budget; the rest are parsed
 * again on each load.  What shapes a parse besides the bytes (micro-step
 * mode, --mapping's pairs, the layout) is the stamp of dump_cache_begin: a new
 * stamp drops every parse.
 *
 * One load at a time uses a cache (the loading thread; the parsing threads
 * only read what dump_cache_find returned before they started). */
#ifndef PT_DUMP_CACHE_H
#define PT_DUMP_CACHE_H

#include <stddef.h>
#include <stdint.h>

struct dump_file;

struct dump_cache *dump_cache_new(uint64_t budget);
void dump_cache_free(struct dump_cache *c);

/* Starts a load; -1 without memory. */
int dump_cache_begin(struct dump_cache *c, const char *stamp);
/* The kept parse of rank folder dir (at step and rank in this load) when
 * its files are unchanged, else NULL; *sig gets their identity either way
 * (for dump_cache_keep).  Valid until dump_cache_keep of the same dir, the next
 * dump_cache_begin or the free. */
const struct dump_file *dump_cache_find(struct dump_cache *c, const char *dir, int32_t step, int32_t rank, uint64_t *sig);
/* Keeps the parse f of dir (files of identity sig): its buffers move into
 * the cache and f is zeroed.  1 kept, 0 not (a file that did not parse
 * whole, modified within the last second, over the budget, no memory). */
int dump_cache_keep(struct dump_cache *c, const char *dir, uint64_t sig, struct dump_file *f);
/* Ends a load: with whole (every folder of the dump was read), the parses
 * of folders it did not read are dropped. */
void dump_cache_end(struct dump_cache *c, int whole);

struct dump_cache_stats {
    size_t kept;                  /* folders reused */
    size_t parsed;                /* folders parsed (dump_cache_find missed) */
    size_t parts;                 /* parses held now */
    uint64_t bytes;               /* their memory */
};
struct dump_cache_stats dump_cache_stats(const struct dump_cache *c);

#endif
