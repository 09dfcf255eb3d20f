/* origin_light: a communication op of a dump.json held "light" for the
 * origin search (model/overflow/origin_cap.h): at the load, what the
 * pairing reads of the op is taken from its bytes once, as items, so
 * the search neither keeps the bytes nor lexes them again; at the search,
 * those items become the params graph_read would have made of them
 * (origin_light_params), so the rules (model/overflow/origin_pair.c) read
 * the same tree either way.
 *
 * What the pairing reads of an op (read_graph.c's flattening): among its
 * top-level inputs -- the items of input_args, input_kwargs and input, in
 * that order -- the params named <record>.input.<key> for src, src_group,
 * dst, dst_group and group (the first of each: present, null, the rank
 * their value reads as, and group's group_ranks when it is a
 * torch.ProcessGroup), and those named <record>.input.<digits> whose type
 * is "int" (their value).
 *
 * Anything the light form cannot say for sure makes the op odd, and it is
 * then kept whole as before: an escaped key, a key the pairing reads given
 * twice, a data_name or class_type anywhere in the record (they rename or
 * retype an item), an input_args or input that is not a list, an
 * input_kwargs that is not an object, a dtype given as a number, a
 * group_ranks that is a string or holds anything but plain ints, an md5 on
 * the group, a keyword of digits with a leading zero, a string value of
 * 64 bytes or more, a record that is not an object. */
#ifndef PT_ORIGIN_LIGHT_H
#define PT_ORIGIN_LIGHT_H

#include <stddef.h>
#include <stdint.h>

#include "model/graph/tree.h"
#include "model/overflow/origin_cap.h"

/* The bytes b[0, n) of one record's value: 1 the op is light (its items
 * appended to c's, with rec), 0 odd (c as it was), -1 out of memory.
 * vet: nvet values of the record (from, to: offsets in b, in order) the
 * load read and vouches for, stepped over here: an input item read from
 * its bytes with only a tensor's usual keys and a string type other than
 * "int" (nothing to take, nothing odd), and an output list whose every
 * item was read from its bytes (no escape; a data_name or class_type
 * there makes the load read the op again anyway).  NULL, 0: none. */
int origin_light_scan(struct origin_cap *c, uint32_t rec, const char *b, size_t n, const uint32_t *vet, size_t nvet);

/* As origin_cap_add (parse_dump.c's one call), but a record given with
 * its bytes whose flags are sure (a communication op) is held light when
 * it can be: then only its items are kept.  vet, nvet: as
 * origin_light_scan's, offsets from the record's value. */
int origin_light_add(struct origin_cap *c, const char *name, size_t nlen, uint64_t v0, uint64_t vlen, uint8_t flags,
                     int reread, const char *bytes, const uint32_t *vet, size_t nvet);

/* Where origin_light_params is in a capture: zeroed for a new tree. */
struct origin_light_cur {
    size_t item;              /* the next item not yet taken */
    const int32_t *g;         /* the last group made, NULL none */
    size_t ng;
    uint32_t md5;             /* its text in the tree */
};

/* Appends to t's last record (index rec, record r of c, light) the params
 * its items stand for: <record>.input.<key> (type "int" for a position),
 * is_null, value as the rank's decimal text (none when it reads as none),
 * md5 the group's ranks as "[a, b]".  0, -1 out of memory. */
int origin_light_params(const struct origin_cap *c, size_t r, struct origin_light_cur *cur, struct tree *t, int rec);

#endif
