/* names: the target table and its labels.
 *
 * Owns one string arena and every target of a dataset.  A target is what a
 * heat-map row stands for: (name, vpp_stage, call) exactly as msProbe's
 * monitoring_targets row (name, vpp_stage, micro_step), where "call" is the
 * call index of a dump entry (or the CSV micro_step).  Targets are interned
 * once and numbered 0.. in first-seen order; readers that know msProbe's
 * target_id order intern in that order, so ascending id = msProbe's order.
 *
 * Labels (msProbe "tags") are derived from the name alone by the rules of
 * probetop-rules(7), LABELS: dump names get default/index/layer/module/function
 * labels, monitor names module/layer labels.  names_build_labels() derives
 * them for every target and indexes label -> targets for the search pane. */
#ifndef PT_NAMES_H
#define PT_NAMES_H

#include <stddef.h>
#include <stdint.h>

#define NAMES_NONE UINT32_MAX

/* Sorted the way msProbe's plugin lists categories. */
enum label_cat { LABEL_DEFAULT, LABEL_FUNCTION, LABEL_INDEX, LABEL_LAYER, LABEL_MODULE, LABEL_NCAT };
enum label_rules { LABELS_DUMP, LABELS_MONITOR };

struct target {
    uint32_t name;   /* arena offset, NUL-terminated */
    uint32_t len;    /* name length in bytes */
    int32_t vpp;
    int32_t call;
};

struct label {
    uint32_t text;   /* arena offset */
    uint8_t cat;     /* enum label_cat */
    uint32_t ntargets;
    uint32_t *targets;  /* ascending target ids */
};

struct names;

struct names *names_new(void);
void names_free(struct names *n);

/* Interns (name, vpp, call); returns its id, or NAMES_NONE when memory ran
 * out.  The same triple always gets the same id. */
uint32_t names_intern(struct names *n, const char *name, size_t len, int32_t vpp, int32_t call);
/* Finds without inserting; NAMES_NONE if absent. */
uint32_t names_find(const struct names *n, const char *name, size_t len, int32_t vpp, int32_t call);

uint32_t names_count(const struct names *n);
const struct target *names_target(const struct names *n, uint32_t id);
const char *names_str(const struct names *n, uint32_t id);   /* target name */
const char *names_arena(const struct names *n, uint32_t off);

/* Display form: the name, with "#call" appended when call != 0 and
 * "@vpp" when vpp != 0.  Writes into buf; returns buf. */
char *names_display(const struct names *n, uint32_t id, char *buf, size_t size);

/* Labels.  names_build_labels() (re)derives all labels; 0 ok, -1 no memory. */
int names_build_labels(struct names *n, enum label_rules rules);
uint32_t names_label_count(const struct names *n);
const struct label *names_label(const struct names *n, uint32_t label_id);
const char *names_label_text(const struct names *n, uint32_t label_id);
/* Labels of one target: ids into the label table. */
void names_target_labels(const struct names *n, uint32_t target, const uint32_t **ids, uint32_t *count);
/* Finds a label by text and category (cat < 0: any category, first match). */
uint32_t names_label_find(const struct names *n, const char *text, int cat);
const char *label_cat_name(int cat);

/* The label rules as a pure function, shared with the .trend.db writer:
 * calls emit(ctx, cat, text, len) once per label of name, in derivation
 * order (duplicates possible; callers dedupe). */
typedef void (*label_emit_fn)(void *ctx, int cat, const char *text, size_t len);
void labels_derive(const char *name, size_t len, enum label_rules rules, label_emit_fn emit, void *ctx);

#endif
