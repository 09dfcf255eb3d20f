/* layout: the Megatron model-parallel layout (probetop-rules(7), MEGATRON LAYOUT).
 *
 * Owns the validation of a parallel configuration (world size, layers, TP,
 * PP, layers per virtual pipeline stage, rank-order string, standalone
 * embedding stage) with msProbe's messages in msProbe's order, the rank
 * groups for any order string, the layers every rank holds in every virtual
 * pipeline chunk, and what follows from them for trend data: the global
 * layer number of a rank's local `layers.<i>` and the renaming of target
 * names to global layer indices (probetop-rules(7), MEGATRON LAYOUT: Layer names).
 *
 * Pure: no terminal, no file format.  The `parallel` command and the layout
 * pane draw the picture from the accessors below. */
#ifndef PT_LAYOUT_H
#define PT_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "model/err.h"

#define LAYOUT_MAX_WORLD 1024
#define LAYOUT_MAX_LAYERS 256
#define LAYOUT_ORDER_MAX 64
#define LAYOUT_DEFAULT_ORDER "tp-cp-ep-dp-pp"

/* The dimensions ranks are laid out over.  Expert parallelism is fixed to 1
 * and takes no part in the rank groups (probetop-rules(7), MEGATRON LAYOUT: Rank groups), so it has no entry. */
enum layout_dim { LAYOUT_TP, LAYOUT_CP, LAYOUT_DP, LAYOUT_PP, LAYOUT_NDIM };

/* A configuration as the user gave it.  Values that are missing or do not
 * parse are kept as invalid (< 1, standalone -1) so layout_new() reports
 * them in the validation order of probetop-rules(7), MEGATRON LAYOUT: Validation rather than in argument order. */
struct layout_config {
    long world_size;          /* required */
    long num_layers;          /* required */
    long tp, pp;              /* default 1 */
    long vpp_layers;          /* layers per virtual pipeline stage, if has_vpp */
    int has_vpp;
    int standalone;           /* 0, 1; -1 = given but not a boolean */
    char order[LAYOUT_ORDER_MAX];   /* as given; LAYOUT_DEFAULT_ORDER by default */
    int order_overlong;       /* the given order did not fit: invalid */
};

void layout_config_init(struct layout_config *c);

/* Sets one field from text.  key is a long name (world_size, num_layers,
 * tensor_parallel_size, pipeline_parallel_size,
 * num_layers_per_virtual_pipeline_stage, order, standalone_embedding_stage),
 * the command's option name without dashes (world-size, num-layers, tp, pp,
 * vpp-layers, order, standalone-embedding) or the short form of the
 * `:parallel` command (W, L, TP, PP, V, ORDER, SE); case-insensitive.
 * Returns -1 only for an unknown key: a bad value is stored as invalid. */
int layout_config_set(struct layout_config *c, const char *key, const char *value, struct pt_error *e);

/* Parses the words of a `:parallel` command, "W=32 L=48 TP=4 PP=4 V=3
 * tp-dp-pp SE": KEY=VALUE pairs, a bare word naming the order, a bare SE
 * (or standalone) turning the standalone embedding stage on.  Starts from
 * the defaults.  -1 on an unknown key or a word that is neither. */
int layout_config_parse(struct layout_config *c, const char *text, struct pt_error *e);

/* The inverse, for remembering and showing the configuration: "W=32 L=48
 * TP=4 PP=4 V=3 ORDER=tp-cp-ep-dp-pp [SE]".  Returns buf. */
char *layout_config_format(const struct layout_config *c, char *buf, size_t n);

struct layout_rank {
    int coord[LAYOUT_NDIM];   /* position along each dimension */
    int group[LAYOUT_NDIM];   /* index of its group of each dimension */
};

/* A validated layout.  Read-only for callers; made by layout_new(). */
struct layout {
    int world, layers, tp, pp, dp, cp;
    int vpp;                  /* virtual pipeline chunks per rank (1 = none) */
    int vpp_layers;           /* V as given, 0 when not given */
    int lps;                  /* transformer layers per pipeline stage */
    int tpp;                  /* pipeline stages holding transformer layers */
    int standalone;
    char order[LAYOUT_ORDER_MAX];   /* effective order, lower case, e.g. "tp-cp-ep-dp-pp" */
    int ntok;                 /* the order without ep: tok[0] varies fastest */
    enum layout_dim tok[LAYOUT_NDIM];
    int size[LAYOUT_NDIM];    /* by dimension */
    int stride[LAYOUT_NDIM];  /* by dimension */
    struct layout_rank *rank; /* world entries */
    int nrows;                /* rows of the picture = TP groups */
    int *row_rank;            /* representative rank of each row */
};

/* Validates c exactly as probetop-rules(7), MEGATRON LAYOUT: Validation (first failure wins, with
 * msProbe's message) and computes the layout.  NULL on failure. */
struct layout *layout_new(const struct layout_config *c, struct pt_error *e);
void layout_free(struct layout *l);

const char *layout_dim_name(enum layout_dim d);   /* "tp", "cp", "dp", "pp" */
/* Parses "tp", "cp", "dp", "pp" (any case); -1 otherwise. */
int layout_dim_parse(const char *s);

/* Rank groups of a dimension (probetop-rules(7), MEGATRON LAYOUT: Rank groups): world / size[d] groups of size[d]
 * ranks each.  layout_group() writes group g's members, ascending in their
 * coordinate, into out (size[d] entries); -1 when g is out of range. */
int layout_ngroups(const struct layout *l, enum layout_dim d);
int layout_group(const struct layout *l, enum layout_dim d, int g, int *out);

/* The components of one virtual pipeline chunk of a rank (probetop-rules(7), MEGATRON LAYOUT: Layers held by a rank). */
struct layout_chunk {
    int embedding;            /* holds the embedding */
    int output;               /* holds the output layer */
    int first, last;          /* 1-based global layer numbers; 0 when none */
};
/* -1 when rank or chunk is out of range. */
int layout_chunk(const struct layout *l, int rank, int chunk, struct layout_chunk *out);
/* "Embed+L1-3", "L13-15", "L46-48+Out", "Embed", "" (probetop-rules(7), MEGATRON LAYOUT: Layers held by a rank).  Returns buf. */
char *layout_chunk_text(const struct layout_chunk *c, char *buf, size_t n);

/* Global layer number (1-based, `offset(v) + i + 1`, probetop-rules(7), MEGATRON LAYOUT: Layer names) of local
 * layer index i of the given rank's chunk; -1 when the rank, chunk or index
 * is not part of the layout (the chunk holds fewer layers). */
int layout_global_layer(const struct layout *l, int rank, int chunk, int local_index);

/* Rows of the picture (probetop-rules(7), MEGATRON LAYOUT: The picture): row i is TP group i. */
int layout_row_copy(const struct layout *l, int row);    /* model copy (DP index), 0-based */
int layout_row_stage(const struct layout *l, int row);   /* pipeline stage */
/* "Group3: Rank12-15", or "Rank5" when the group has one rank. */
char *layout_row_label(const struct layout *l, int row, char *buf, size_t n);

/* Short parallel coordinates of a rank for an axis label: "p1t0d1"
 * (pipeline stage, tensor rank, data-parallel copy).  Returns buf. */
char *layout_rank_label(const struct layout *l, int rank, char *buf, size_t n);

/* Orders all ranks for a heat-map axis grouped by dimension `by` (ranks
 * with the same coordinate together, coordinates ascending, within one
 * block in the order of their groups: by pp = pipeline stage lists, by dp =
 * model copy lists); by < 0 keeps rank order.  perm gets world entries. */
void layout_rank_order(const struct layout *l, int by, int *perm);

/* Colour of model copy j of n as 0xRRGGBB (probetop-rules(7), MEGATRON LAYOUT: The picture: tab20, tab20b+tab20c,
 * viridis). */
uint32_t layout_copy_rgb(int ncopies, int j);
/* Nearest xterm 256-colour index, and whether black text is unreadable on it. */
int layout_rgb_xterm256(uint32_t rgb);
int layout_rgb_dark(uint32_t rgb);

/* --- target names (probetop-rules(7), MEGATRON LAYOUT: Layer names) --- */

/* Finds the first `layers.<i>` (segment "layers" followed by a numeric
 * segment) in name[0..len).  Returns i and sets *at and *digits to the byte
 * offset and length of the number; -1 when there is none. */
long layout_find_layer(const char *name, size_t len, size_t *at, size_t *digits);

/* Virtual pipeline chunk of a dump target name: the model index of
 * `Module.<k>.` or `Cell.<k>.` (msProbe numbers the chunks of a model list
 * that way), 0 when the name has none.  Monitor targets carry the chunk in
 * their vpp_stage instead. */
int layout_dump_chunk(const char *name, size_t len);

/* Global layer number (1-based) of the layer a target of this rank and
 * chunk names; -1 when the name has no `layers.<i>` or it is not held. */
int layout_name_global_layer(const struct layout *l, int rank, int chunk, const char *name, size_t len);

/* Renames the first `layers.<i>` of name to `layers.<g>`, g the 0-based
 * global layer index (global layer number - 1, so a PP=1 run keeps its
 * names).  Writes the new name, NUL-terminated, to out (n bytes; len + 4
 * always suffices).  Returns 1 renamed, 0 nothing to rename (name copied),
 * -1 with a message when the rank's chunk holds no such layer or out is too
 * small. */
int layout_rename(const struct layout *l, int rank, int chunk, const char *name, size_t len,
                  char *out, size_t n, struct pt_error *e);

/* Chunk of a target: its vpp when non-zero (monitor vpp_stage), else the
 * dump model index of its name (layout_dump_chunk). */
int layout_target_chunk(const char *name, size_t len, int32_t vpp);

struct cube;
/* The layer renaming (probetop-rules(7), MEGATRON LAYOUT: Layer names) applied to a whole cube: a new cube (*out, owned by the
 * caller) in which each (rank, target) cell moved to the target named with
 * global layer indices, so one row is one model layer across all pipeline
 * stages.  Targets are ordered as the input's, except that layer targets
 * sort by global layer; targets without a layer come first when the input
 * had them before its first layer target, last otherwise.  Labels are not
 * derived (call names_build_labels() on (*out)->names with the dataset's
 * rules).  -1 with a message when a rank of the data is not in the layout
 * or holds a layer its chunk cannot hold (the configuration does not match
 * the run). */
int layout_cube_global(const struct layout *l, const struct cube *in, struct cube **out, struct pt_error *e);

#endif
