/* origin_cap: what the first read of a rank's dump.json keeps for the
 * origin search (src/io/dump/ovf_origin.h), so that the search does not
 * read and lex the whole file again: every record's name, in order, the
 * bytes of its value in the file, and its flags as origin_flags_nonfinite
 * gives them from the tree graph_read makes (NaN/Inf in a top-level input
 * or output).  The search parses again only the communication ops (it
 * reads their params) and the records whose flags the first read could
 * not be sure of; the others it sees by name and flags alone.
 *
 * "Not sure" errs on the safe side: a key written with escapes, a key
 * given twice (Python keeps the last), an object inside an item (a P2POp's
 * tensor), a data_name (it names the item), inputs or outputs not in the
 * usual list/object form, a type or dtype cut or not a string, a
 * parameters_grad record.  The bytes of those records and of the
 * communication ops are kept (a sixth of a dump at most, in the bench's
 * layout), so the search reads nothing of the file again.  The file's
 * size and change time as read: a file changed since is read whole
 * again. */
#ifndef PT_ORIGIN_CAP_H
#define PT_ORIGIN_CAP_H

#include <stddef.h>
#include <stdint.h>

struct origin_cap_rec {
    uint64_t v0;          /* byte offset of the value in the file, or in vals[] when kept */
    uint32_t vlen;        /* its length */
    uint32_t name;        /* offset of the name in names[] */
    uint32_t nlen;
    uint8_t flags;        /* ORIGIN_IN | ORIGIN_OUT, as origin_flags_nonfinite gives them */
    uint8_t reread;       /* flags unknown: parse the record again */
    uint8_t kept;         /* its bytes are in vals[] at v0 */
    uint8_t light;        /* a communication op held as items (origin_cap_item), bytes not kept */
};

/* What a top-level input of a light communication op is to the rules:
 * the param "<record>.input.<key>" the whole read would make of it. */
enum origin_cap_key {
    ORIGIN_KEY_SRC = 0, ORIGIN_KEY_SRC_GROUP, ORIGIN_KEY_DST, ORIGIN_KEY_DST_GROUP, ORIGIN_KEY_GROUP,
    ORIGIN_KEY_POS,       /* "<record>.input.<index>", an int argument (type "int") */
    ORIGIN_KEY_N
};

struct origin_cap_item {
    uint32_t rec;         /* the record, ascending in items[] */
    uint32_t index;       /* ORIGIN_KEY_POS: its position (or a keyword of digits) */
    int32_t value;        /* its value member read as a rank (INT32_MIN: none, or not an int) */
    uint32_t g0, ng;      /* has_group: its group_ranks in ints[g0, g0 + ng) */
    uint8_t key;          /* enum origin_cap_key */
    uint8_t is_null;      /* a JSON null */
    uint8_t has_group;    /* a torch.ProcessGroup with a group_ranks list */
};

struct origin_cap {
    char *path;                    /* the dump.json read */
    uint64_t size;                 /* as read */
    int64_t mtime_s, mtime_ns;
    struct origin_cap_rec *v; size_t n, cap;
    char *names; size_t nnames, capnames;
    char *vals; size_t nvals, capvals;   /* the kept records' bytes */
    struct origin_cap_item *items; size_t nitems, capitems;   /* the light ops' inputs */
    int32_t *ints; size_t nints, capints;                     /* their groups' ranks */
    int bad;                       /* of no use (a record left out, "data" twice): read whole */
};

/* A new capture of path (size and change time as stat gave them before the
 * read), or NULL out of memory. */
struct origin_cap *origin_cap_new(const char *path, uint64_t size, int64_t mtime_s, int64_t mtime_ns);
/* Appends record n of the file (name of nlen bytes, value at [v0, v0 +
 * vlen)); bytes, when not NULL, are its vlen bytes, kept.  0, or -1 out of
 * memory. */
int origin_cap_add(struct origin_cap *c, const char *name, size_t nlen, uint64_t v0, uint64_t vlen, uint8_t flags,
                   int reread, const char *bytes);
/* Record n of the file (as origin_cap_add) held light: its items are
 * items[i0, nitems), appended by the caller before, their rec n.  0, or -1
 * out of memory. */
int origin_cap_add_light(struct origin_cap *c, const char *name, size_t nlen, uint64_t v0, uint64_t vlen,
                         uint8_t flags);
/* The bytes of record r when kept, else NULL. */
static inline const char *origin_cap_bytes(const struct origin_cap *c, size_t r) {
    return c->v[r].kept ? c->vals + c->v[r].v0 : NULL;
}
/* The name of record r (its nlen bytes, NUL-terminated). */
static inline const char *origin_cap_name(const struct origin_cap *c, size_t r) { return c->names + c->v[r].name; }
/* Whether the search's re-read parses record r again: a record whose
 * flags the load could not be sure of, or one want names (the
 * communication ops), unless held light.  Else the capture stands for it:
 * its flags, and a light op's items. */
static inline int origin_cap_reparsed(const struct origin_cap *c, size_t r, int (*want)(const char *name)) {
    return !c->v[r].light && (c->v[r].reread || want(origin_cap_name(c, r)));
}
void origin_cap_free(struct origin_cap *c);   /* NULL is fine */

#endif
