/* tree: one msProbe graph (one side, one rank, one step) as msProbe's
 * graph_visualize builds it (probetop-rules(7), GRAPH BUILDING).
 *
 * Owns every string (one pool), the dump records with their flattened
 * params (probetop-rules(7), GRAPH BUILDING: Params), the construct.json pairs, the stack table, and the nodes.
 * Nodes live in one array and point at each other by index (parent,
 * first/last child, next sibling), so the tree can be walked without
 * recursion and copied or freed in one go.
 *
 * The reader (src/io/dump/read_graph.c) knows the file formats; it fills a tree
 * with tree_add_record()/tree_add_param(), tree_add_construct() and the
 * stack calls, then calls tree_build(), which applies the build rules:
 * parents from construct.json with the backward fixes, API nodes under
 * modules, recompute relocation, API collections, parameter-gradient
 * nodes, micro steps and the post-order node order. */
#ifndef PT_TREE_H
#define PT_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "model/err.h"

#define TREE_NONE UINT32_MAX   /* no string / no index */

/* node_type values as msProbe stores them. */
enum tree_kind { TK_MODULE = 0, TK_API = 1, TK_FUSED = 8, TK_APIS = 9 };

/* Param state (probetop-rules(7), GRAPH BUILDING: Params), in msProbe's table order. */
enum tparam_state { PS_INPUT = 0, PS_PARAMETERS = 1, PS_OUTPUT = 2, PS_PGRAD = 3 };

/* A value as Python holds it after json.load: None, int, float, bool, str
 * (containers are kept as their Python text, kind TV_STR with is_repr). */
enum tval_kind { TV_NONE = 0, TV_INT, TV_FLOAT, TV_BOOL, TV_STR };

struct tval {
    uint8_t kind;
    uint8_t is_repr;     /* TV_STR holding the text of a list/dict, not a str */
    uint32_t text;       /* TV_STR (also TV_INT: its text as written): pool offset (beside kind) */
    union {              /* by kind (14 bytes packed, not 24: four per param, a few hundred thousand params) */
        int64_t integer; /* TV_INT, TV_BOOL (0/1) */
        double real;     /* TV_FLOAT (a TV_INT as a double is (double)integer) */
    };
} __attribute__((packed));   /* (take no address of a member: copy it out) */

/* A param's requires_grad, as one byte: nearly every one is a bool or
 * absent; any other value (a number, a str, a list) is kept whole in the
 * tree's side table (tree_rg_get). */
enum tree_rg { TREE_RG_NONE = 0, TREE_RG_FALSE, TREE_RG_TRUE, TREE_RG_OTHER };

/* A param's stat as kept in it: nearly every one is a float (or None); a
 * bool is its 0/1, a str (or a container's Python text) its pool offset,
 * an int its value, with its text as written in the tree's side table
 * (tree_stat). */
enum tree_sk { SK_NONE = 0, SK_FLOAT, SK_BOOL, SK_STR, SK_REPR, SK_INT };
union tstat {
    double real;         /* SK_FLOAT */
    int64_t integer;     /* SK_BOOL (0/1), SK_INT */
    uint32_t text;       /* SK_STR, SK_REPR: pool offset */
};

/* One flattened input / output / parameter / gradient (an "item"). */
struct tparam {
    uint32_t name;       /* full_op_name, e.g. Functional.conv2d.0.forward.input.0, as
                          * stored (read it with tree_pname): most are the record's
                          * name + a shared suffix (TREE_PN_SFX ".input.0") */
    uint8_t state : 2;   /* enum tparam_state */
    uint8_t output_map : 1;  /* 1: in the node's output map (name has .output. and no .input.) */
    uint8_t is_null : 1; /* from a JSON null: every field None */
    uint8_t has_md5 : 1; /* the leaf had its own md5 member (md5 mode) */
    uint8_t comm : 1;    /* has a group id or P2POp op (tree_comm_gid, tree_comm_p2p) */
    uint8_t req_grad;    /* enum tree_rg (the value itself: tree_rg_get) */
    uint16_t skind;      /* how each stat is kept: 4 bits per stat (Max lowest), enum tree_sk */
    uint32_t type;       /* "type" member (TREE_NONE if absent) */
    uint32_t dtype;      /* dtype text, TREE_NONE = None */
    uint32_t shape;      /* shape as Python text "[32, 3]", TREE_NONE = None */
    uint32_t data_name;  /* "-1" when no tensor file */
    uint32_t md5;        /* md5 / CRC-32 text */
    uint32_t value;      /* Python text of the leaf's value member, TREE_NONE if absent */
    union tstat sv[4];   /* Max, Min, Mean, Norm by skind (read them with tree_stat) */
};   /* 64 bytes (88 with four packed struct tval, 120 with a whole struct tval for
      * req_grad, unpacked stats and the communication ops' group id and op
      * beside every param) */

/* A param's full name is stored as one pool text:
 *   TREE_PN_SFX + suffix: the record's name followed by suffix (".input.0",
 *       "" or ".parameters.weight"); the suffixes repeat across records and
 *       are shared, so a name costs no pool bytes of its own;
 *   TREE_PN_OWN + text: text itself (a name not made from its record's,
 *       as from a data_name, or one starting with either marker byte);
 *   anything else: the text itself (trees filled by hand).
 * tree_pname composes it; tree_pname_store makes the stored form. */
#define TREE_PN_SFX '\x01'
#define TREE_PN_OWN '\x02'

/* The buffer tree_pname composes names in (zeroed to start, freed with
 * tree_pn_free): names that fit are made in small, longer ones in b. */
struct tree_pn { char *b; size_t cap; char small[160]; };
void tree_pn_free(struct tree_pn *nb);
/* Room for n bytes in nb (small while b was never needed, else b, grown):
 * where a name of n bytes with its NUL is composed; NULL without memory. */
char *tree_pn_room(struct tree_pn *nb, size_t n);

/* One dump.json entry with its params, in dump order. */
struct trec {
    uint32_t name;       /* the data key */
    uint32_t p0, np;     /* params [p0, p0+np): input map order, then output map */
    int32_t node;        /* node built for it, -1 if none */
    uint32_t ovf;        /* enum ovf_level of the record (0 none) */
};

struct tnode {
    uint32_t id;         /* pool offset of the node id */
    uint8_t kind;        /* enum tree_kind */
    uint8_t attached;    /* has been given a parent (or is the root) */
    int32_t parent, first, last, next;   /* -1 = none */
    uint32_t nchildren;
    int32_t rec;         /* record index, -1 when the dump has no entry */
    int32_t stack;       /* stack index, -1 none */
    int32_t micro;       /* micro step */
    int32_t order;       /* post-order position (probetop-rules(7), GRAPH BUILDING: Micro steps and order), -1 when unreachable */
};

struct tstack { uint32_t l0, n; };   /* lines [l0, l0+n) of tree->lines */

struct tcons { uint32_t child, parent; int32_t micro; };   /* parent TREE_NONE = null */

struct smap;   /* string -> index hash (private) */

struct tree_rgx { uint32_t param; struct tval v; };   /* a TREE_RG_OTHER value, by param index */
/* the texts as written of a param's SK_INT stats (TREE_NONE for the others) */
struct tree_stx { uint32_t param; uint32_t text[4]; };
/* a communication op's param: ProcessGroup / P2POp group id and P2POp op
 * ("isend"...), pool offsets, TREE_NONE when absent */
struct tree_commx { uint32_t param, group_id, p2p_op; };

struct tree {
    char *pool; size_t plen, pcap;
    struct trec *recs; size_t nrecs, caprecs;
    struct tparam *params; size_t nparams, capparams;
    struct tnode *nodes; size_t nnodes, capnodes;
    struct tstack *stacks; size_t nstacks, capstacks;
    uint32_t *lines; size_t nlines, caplines;
    struct tcons *cons; size_t ncons, capcons;
    int32_t *order; size_t norder;       /* node indices in post order */
    struct tree_rgx *rgx; size_t nrgx, caprgx;   /* TREE_RG_OTHER values, in param order */
    struct tree_commx *commx; size_t ncommx, capcommx;   /* params with comm set, in param order */
    struct tree_stx *stx; size_t nstx, capstx;   /* params with an SK_INT stat, in param order */
    struct smap *node_map, *rec_map, *stack_map, *cons_map;
    int root;                            /* index of DefaultModel */
    int megatron;                        /* construct.json had megatron_micro_step_number */
    int megatron_steps;                  /* its value */
    int nmicro;                          /* number of micro steps (>= 1) */
    int napis;                           /* Apis_Between_Modules nodes made */
    int pytorch;                         /* framework is pytorch (recompute rule) */
    char framework[24], task[24], level[16];
    int md5_mode;                        /* some list-valued input/output element had md5 */
    int has_tensor_files;                /* task tensor */
    int stack_file;                      /* its stack.json was read, even one with no entry */
    int32_t step, rank;                  /* where it came from (set by the reader) */
    int recs_unmapped;                   /* tree_unmap_records: records not put in rec_map */
    char *path;                          /* the rank folder (owned) */
};

struct tree *tree_new(void);
void tree_free(struct tree *t);

/* Pool strings.  tree_str copies s and returns its offset (TREE_NONE when
 * memory ran out); tree_s returns the text, NULL for TREE_NONE. */
uint32_t tree_str(struct tree *t, const char *s, size_t len);
static inline const char *tree_s(const struct tree *t, uint32_t off) {
    return off == TREE_NONE ? NULL : t->pool + off;
}

/* Reserves room (a hint from the file size; 0 ok, -1 no memory). */
int tree_reserve(struct tree *t, size_t nrecs, size_t nparams, size_t pool_bytes);

/* Gives back what tree_reserve reserved and the reading left unused (the
 * records and params are cut to their size, the pool to its size and a
 * thirty-second more for tree_build's names): huge pages back the
 * part of a reservation that was touched in 2 MB pieces, so the last
 * piece of each array is resident whole until then.  Filling may go on
 * after it (the arrays grow again). */
void tree_fit(struct tree *t);
/* The same for the records and params alone (once the dump.json is read:
 * the stacks and construct.json add only names). */
void tree_fit_params(struct tree *t);

/* Filling (the reader).  A record's params must be added right after it. */
int tree_add_record(struct tree *t, const char *name, size_t len);   /* index, -1 no memory */
struct tparam *tree_add_param(struct tree *t, int rec);              /* zeroed, NULL no memory */
int tree_add_construct(struct tree *t, const char *child, size_t clen,
                       const char *parent, size_t plen, int32_t micro);  /* parent NULL = none */
int tree_new_stack(struct tree *t);                                  /* index, -1 no memory */
int tree_stack_line(struct tree *t, int stack, const char *s, size_t len);
int tree_stack_assign(struct tree *t, const char *id, size_t len, int stack);

/* Applies probetop-rules(7), GRAPH BUILDING.  Fails (with a message) when construct.json was
 * empty: such dumps (level L1) have no structure. */
int tree_build(struct tree *t, struct pt_error *err);

/* Direct construction, for a graph msProbe already built (a .vis.db):
 * tree_add_node() adds id under parent (-1: it becomes the root) and
 * returns its index (-1 no memory or a repeated id); tree_finish() numbers
 * the nodes in post order. */
int tree_add_node(struct tree *t, const char *id, int kind, int parent);
int tree_finish(struct tree *t, struct pt_error *err);

/* Lookups; -1 when absent. */
int tree_find(const struct tree *t, const char *id);
int tree_find_record(const struct tree *t, const char *name);
/* Frees the record-name map once the tree is built and only compared (a
 * few hundred kB a side at 8 MB pairs): tree_find_record then finds
 * nothing and tree_add_record fails. */
void tree_forget_records(struct tree *t);
/* Records added from now on are not put in the record-name map, for a
 * reader whose tree is never looked up by record name nor built (the
 * origin search's re-read of a rank: hashing 700 names a rank was about
 * 40 % of that read).  tree_find_record then finds none of them. */
void tree_unmap_records(struct tree *t);

static inline const char *tree_id(const struct tree *t, int n) { return t->pool + t->nodes[n].id; }
/* The params of a node (none when it has no record). */
static inline const struct tparam *tree_params(const struct tree *t, int n, uint32_t *np) {
    int r = t->nodes[n].rec;
    if (r < 0) { *np = 0; return NULL; }
    *np = t->recs[r].np;
    return t->params + t->recs[r].p0;
}
/* requires_grad of param p of t (a TREE_RG_OTHER one from the side table;
 * TV_NONE when absent, also for a param copied from another tree). */
struct tval tree_rg_get(const struct tree *t, const struct tparam *p);
/* Sets p's requires_grad to v (p: the last param added, or any param of t
 * whose value is not TREE_RG_OTHER yet); 0, -1 no memory. */
int tree_rg_set(struct tree *t, struct tparam *p, const struct tval *v);
/* Stat k (0 Max, 1 Min, 2 Mean, 3 Norm) of param p of t, whole (an int's
 * text TREE_NONE for a param copied from another tree). */
uint32_t tree_stat_itext(const struct tree *t, const struct tparam *p, int k);
static inline struct tval tree_stat(const struct tree *t, const struct tparam *p, int k) {
    struct tval v = {0};
    switch ((p->skind >> (4 * k)) & 15) {
    case SK_FLOAT: v.kind = TV_FLOAT; v.real = p->sv[k].real; break;
    case SK_BOOL: v.kind = TV_BOOL; v.integer = p->sv[k].integer; break;
    case SK_REPR: v.is_repr = 1; /* fall through */
    case SK_STR: v.kind = TV_STR; v.text = p->sv[k].text; break;
    case SK_INT: v.kind = TV_INT; v.integer = p->sv[k].integer; v.text = tree_stat_itext(t, p, k); break;
    default: v.kind = TV_NONE; break;
    }
    return v;
}
/* Sets stat k of param i of t (added: i < t->capparams) to v; 0, -1 no
 * memory (an int's text goes to the side table). */
int tree_stat_set(struct tree *t, size_t i, int k, const struct tval *v);
/* The group id and the P2POp op of param p of t (pool offsets; TREE_NONE
 * when absent, also for a param copied from another tree). */
uint32_t tree_comm_gid(const struct tree *t, const struct tparam *p);
uint32_t tree_comm_p2p(const struct tree *t, const struct tparam *p);
/* Sets them for param i of t (added: i < t->capparams), replacing what it
 * had; 0, -1 no memory. */
int tree_comm_set(struct tree *t, size_t i, uint32_t group_id, uint32_t p2p_op);
/* The record a param belongs to (its index, -1 when none holds it). */
int tree_param_rec(const struct tree *t, const struct tparam *p);
/* A param's full name: its pool text when stored whole, else composed in
 * nb (valid until nb's next use); NULL for no name or out of memory. */
const char *tree_pname(const struct tree *t, const struct tparam *p, struct tree_pn *nb);
/* The same for a param of record rec (known to the caller: no search). */
const char *tree_pname_r(const struct tree *t, int rec, const struct tparam *p, struct tree_pn *nb);
/* Does param p of record rec have the full name s[0..len)?  No copy. */
int tree_pname_eq(const struct tree *t, int rec, const struct tparam *p, const char *s, size_t len);
/* The part of p's full name after its first il bytes when those are id,
 * else NULL; never a copy (a pool text).  id is the record's name or
 * longer: a shorter id than the name of the record of a shared-suffix name
 * gives NULL. */
const char *tree_pname_after(const struct tree *t, const struct tparam *p, const char *id, size_t il);
/* The full name when it is stored whole (not as a shared suffix), else NULL. */
const char *tree_pname_whole(const struct tree *t, const struct tparam *p);
/* How to store full[0..len) as the name of a param of record rec: the
 * marker byte to put first (TREE_PN_SFX, TREE_PN_OWN, or 0 for none) and,
 * in *skip, how many leading bytes of full to leave out (the record's name,
 * for TREE_PN_SFX). */
char tree_pname_mark(const struct tree *t, int rec, const char *full, size_t len, size_t *skip);

/* The stack.json entry of an id as written (no backward fallback); -1 none. */
int tree_stack_of_id(const struct tree *t, const char *id);
/* Stack lines of a node: count, and *lines = their pool offsets. */
uint32_t tree_stack_lines(const struct tree *t, int n, const uint32_t **lines);

/* Depth (root 0) and the short label of probetop-rules(7), GRAPH BUILDING: Labels of tree rows: full id for the root and its
 * children, otherwise the last 4 (5) segments of a module id, the last 2 (3)
 * of others.  Writes into buf; returns buf. */
int tree_depth(const struct tree *t, int n);
char *tree_label(const struct tree *t, int n, char *buf, size_t size);
/* Is a an ancestor of (or equal to) n? */
int tree_is_ancestor(const struct tree *t, int a, int n);
/* The module a node runs in: its nearest ancestor of kind module other
 * than the root (API collections are passed through); -1 when only the
 * root holds it. */
int tree_enclosing_module(const struct tree *t, int n);

/* The node kind of an id by msProbe's regexes (probetop-rules(7), GRAPH BUILDING: Node ids and kinds). */
enum tree_kind tree_kind_of(const char *id);
const char *tree_kind_name(int kind);   /* "module", "api", "apis", "fused" */

#endif
