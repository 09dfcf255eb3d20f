/* microstep: msProbe data2db's micro steps and call-index renumbering
 * (probetop-rules(7), MICRO STEPS), computed from one rank's construct.json.
 *
 * Every key whose root resolves to a micro step gets (micro id, new key):
 * call counters restart in every micro step so the same layer lines up
 * across micro steps and ranks.  Keys that resolve to nothing are absent,
 * which, in micro-step mode, drops them from the trend import. */
#ifndef PT_MICROSTEP_H
#define PT_MICROSTEP_H

#include <stddef.h>
#include <stdint.h>

#include "model/err.h"
#include "model/util/arena.h"
#include "src/io/dump/read_construct.h"

struct microstep_entry {
    const char *key;      /* original key (points into the construct) */
    size_t keylen;        /* its length (lookups compare it first) */
    char *newkey;         /* renumbered key (in the table's keys) */
    int32_t micro;
    uint8_t later_dup;    /* an earlier entry has the same key (microstep_find gives that one) */
};

struct microstep {
    struct microstep_entry *v;   /* R, in construct order */
    size_t n;
    uint32_t *hash;       /* index + 1 */
    size_t hcap;
    int count;            /* micro_count: 1 + max micro id, 1 when R is empty */
    struct util_arena keys;   /* the new keys, freed at once */
};

/* c must outlive ms (keys point into it). */
int microstep_build(const struct construct *c, struct microstep *ms, struct pt_error *err);
void microstep_free(struct microstep *ms);
const struct microstep_entry *microstep_find(const struct microstep *ms, const char *key, size_t len);
/* microstep_find for keys that mostly come in the table's order (a
 * dump.json's records follow construct.json's): the entry at *cur is tried
 * first, then the hash; *cur is left after the entry found.  The same
 * answer as microstep_find; the table's entries are read in order, not at
 * random (a cache miss per hash slot, entry and key was a tenth of a
 * dump's parse). */
const struct microstep_entry *microstep_find_near(const struct microstep *ms, const char *key, size_t len, size_t *cur);
/* The hash of the micro step table's keys, eight bytes per multiply (long
 * construct keys); also what a parse uses to recognise construct.json
 * contents it has seen.  Not FNV like util_hash: speed on long keys. */
uint64_t microstep_hash(const char *s, size_t n);

#endif
