/* json: the one place that knows msProbe's JSON dialect.
 *
 * Python's json module writes non-finite floats as the bare tokens NaN,
 * Infinity and -Infinity, which cJSON 1.7.15 rejects.  Two ways in:
 *
 *  - json_tree_*: a cJSON tree (order-preserving, for small files such as
 *    construct.json, stack.json, mapping and match-config files, and one
 *    rank's dump.json for the graph pane).  The bare tokens are rewritten to
 *    the strings "NaN", "Infinity", "-Infinity" before cJSON sees them; read
 *    statistics with json_number(), which accepts numbers, booleans and
 *    numeric strings (as msProbe's importer does).
 *
 *  - json_lex_*: a pull tokenizer over a whole buffer, for the hot path
 *    (dump.json of hundreds of MB): no tree, no allocation per value, the
 *    bare tokens are numbers.  Errors carry the byte offset and line.
 */
#ifndef PT_JSON_H
#define PT_JSON_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "model/err.h"

#define JSON_MAX_DEPTH 512

/* Opens path for reading as a regular file of at most max_bytes (its
 * status in *st): 0, or -1 with a message. */
struct stat;
int json_open_regular(const char *path, size_t max_bytes, int *fd, struct stat *st, struct pt_error *err);
/* Reads a whole regular file (refusing FIFOs, folders, devices, and files
 * over max_bytes) into a NUL-terminated buffer the caller frees. */
int json_read_file(const char *path, size_t max_bytes, char **buf, size_t *len, struct pt_error *err);

/* A whole regular file (same refusals as json_read_file) as a private copy,
 * never a mapping: a file that shrinks while it is read gets a message, not
 * SIGBUS.  For the pull tokenizer.  Free with json_unmap_file. */
int json_map_file(const char *path, size_t max_bytes, const char **buf, size_t *len, struct pt_error *err);
void json_unmap_file(const char *buf, size_t len);
/* The same into *buf, a buffer of *cap bytes kept from call to call (grown
 * as needed; NULL and 0 at first; the caller frees it, also on failure). */
int json_read_reuse(const char *path, size_t max_bytes, char **buf, size_t *cap, size_t *len, struct pt_error *err);
/* json_read_reuse, with the status of the file read (fstat of the open
 * file, st_mode 0 when it could not be opened) in *st: the identity of the
 * bytes read, with no stat of its own.  dirfd >= 0: path's folder, open
 * (path's last component opened by openat, the same flags: one lookup,
 * not a walk of the whole path for each of a folder's thousands of files);
 * messages name path either way. */
int json_read_stat(int dirfd, const char *path, size_t max_bytes, char **buf, size_t *cap, size_t *len, struct stat *st,
                   struct pt_error *err);

/* Parses text (len bytes) into a cJSON tree; what names the source in
 * messages (usually the path). */
int json_tree_parse(const char *text, size_t len, const char *what, cJSON **out, struct pt_error *err);
int json_tree_file(const char *path, cJSON **out, struct pt_error *err);
/* The files a user names beside the data (--mapping, --layer-mapping,
 * --match-config) are read by json_read_file too, at most this many bytes:
 * a FIFO, a device (/dev/zero) or a huge file is refused at once with a
 * message, never waited on or read until memory runs out. */
#define JSON_SIDE_MAX ((size_t)64 << 20)
/* json_tree_file for such a file. */
int json_side_file(const char *path, cJSON **out, struct pt_error *err);

/* A statistic as a double: number, true (1) / false (0), or a numeric string
 * ("1.5", "inf", "-Infinity", "nan", case-insensitive, surrounding space
 * allowed).  Returns 1 when item had such a value, 0 otherwise (null,
 * missing, other strings, objects, arrays). */
int json_number(const cJSON *item, double *out);

/* Writes s as a JSON string literal (quotes, escapes; invalid UTF-8 bytes
 * as \u00XX of the byte, so output is always valid JSON; control bytes,
 * C1 controls included, as \u escapes, so none reaches a terminal).  The
 * one JSON string writer of the commands. */
void json_fput_str(FILE *f, const char *s);

/* ---- pull tokenizer ---- */
enum json_tok {
    JT_ERROR = 0, JT_END, JT_OBJ_BEGIN, JT_OBJ_END, JT_ARR_BEGIN, JT_ARR_END,
    JT_KEY, JT_STRING, JT_NUMBER, JT_TRUE, JT_FALSE, JT_NULL,
    JT_MORE   /* streaming only: the next token runs past the buffer; refill (json_lex_refill) and ask again */
};

struct json_lex {
    const char *buf, *pos, *end;
    const char *what;          /* the file, for messages */
    struct pt_error *err;
    int depth;
    int state;                 /* what may come next (private) */
    int started, failed;
    uint8_t kind[JSON_MAX_DEPTH + 1];  /* 1 object, 2 array, per open container */
    /* the current token */
    enum json_tok tok;
    const char *tok_start;
    const char *str;           /* JT_KEY/JT_STRING: the raw bytes between the quotes */
    size_t slen;
    int has_esc;               /* the raw bytes contain backslash escapes */
    double num;                /* JT_NUMBER (NaN/Infinity/-Infinity included) */
    /* Streaming (files read a piece at a time, e.g. gzip'ed multi-GB traces):
     * more = 1 while the buffer is not the end of the input.  A token (or a
     * skipped value) that runs past the end then gives JT_MORE with the
     * tokenizer as it was before it; messages give bytes from the start of
     * the input (off0 = offset of buf[0]), no line numbers. */
    int more, streaming;
    uint64_t off0;
    /* How bytes are scanned (enum json_scan, json_scan_default())
     * and numbers converted (slow_numbers = 1: always strtod).  Every
     * choice gives the same tokens and values; tests set them to compare. */
    uint8_t scan, slow_numbers;
    /* walk: 0, byte scans from each token and skip; 1, skipping in two
     * passes (a structural index of 64 bytes at a time, json_scan.h, then
     * the brackets outside strings from its masks); 2, also the tokens
     * from the index.  The same tokens either way.  The index (private): the block
     * at ib (NULL: none), its bytes not white space, quotes and control
     * bytes not escaped, backslashes; icarry: the byte after it is escaped. */
    uint8_t walk;
    unsigned icarry;
    const char *ib;
    uint64_t inw, iq, ibs, ictl;
    /* The fast path's guess of the indentation (spaces after a newline) at
     * each depth (mod 32), before a member [0] and before a close [1]
     * (private; checked before it is used). */
    uint8_t indent[2][32];
    /* Its guess of a string's length (to 15) after the key before it, by
     * that key's first two bytes (khash): [0] the next key's, [1] a string
     * value's (private; checked before it is used). */
    uint8_t slen_guess[2][64];
    uint8_t khash;
};

enum json_scan { JSON_SCAN_PORTABLE, JSON_SCAN_SSE2, JSON_SCAN_AVX2 };
/* Or'ed with a scan variant: the two-pass walks (json_lex.walk 1 and 2)
 * with that variant's index. */
#define JSON_SCAN_INDEX 4
#define JSON_SCAN_TOKENS 8
/* The fastest scan variant this processor runs. */
int json_scan_best(void);
/* The scan a new tokenizer uses (a variant, with JSON_SCAN_INDEX or
 * JSON_SCAN_TOKENS or'ed for the two-pass walks): json_scan_best(), with
 * two-pass skipping (JSON_SCAN_INDEX) when that is SSE2 or AVX2, or the one
 * the environment variable PROBETOP_JSON_SCAN names (portable, sse2, avx2:
 * one pass; index-portable, index-sse2, index-avx2: two-pass skipping;
 * tokens-portable, tokens-sse2, tokens-avx2: two-pass skipping and tokens;
 * a variant the processor lacks gives its best), so that whole runs of
 * data2db and trace can be compared variant against variant
 * (tests/bench/lexer_scans.sh). */
int json_scan_default(void);
/* name as PROBETOP_JSON_SCAN reads it: the variant, at most best's, with
 * its walk; best for NULL, empty or an unknown name. */
int json_scan_pick(const char *name, int best);

void json_lex_init(struct json_lex *lx, const char *buf, size_t len, const char *what, struct pt_error *err);
/* Next token; JT_ERROR with err filled (file, line, byte offset) on bad input. */
enum json_tok json_lex_next(struct json_lex *lx);
/* Starts the tokenizer inside depth open containers (kinds[i]: 1 object,
 * 2 array, outermost first, the innermost an array) where a value is
 * expected, as just after a ',' there: a reader that begins in the middle
 * of a list it knows the place of (trace_split.c).  0, or -1 when depth or
 * kinds cannot be. */
int json_lex_enter(struct json_lex *lx, const uint8_t *kinds, int depth);
/* Skips the value whose first token was just returned (objects and arrays whole).
 * 0, -1 on bad input, 1 (streaming) when the value runs past the buffer: refill and call again. */
int json_lex_skip(struct json_lex *lx, enum json_tok first);
/* Streaming: the caller kept the unread bytes [lx->pos, end) at the start of
 * a new buffer buf (len bytes, the kept bytes first, then what it read) and
 * says whether more input follows.  Pointers of earlier tokens (lx->str) are
 * invalid afterwards. */
void json_lex_refill(struct json_lex *lx, const char *buf, size_t len, int more);
/* Decodes the current string/key into out (size n, NUL-terminated,
 * truncated if longer); returns the decoded length or -1 on a bad escape. */
long json_lex_string(const struct json_lex *lx, char *out, size_t n);
/* Compares the current string/key with a literal (no escapes expected). */
static inline int json_lex_is(const struct json_lex *lx, const char *lit, size_t litlen) {
    return !lx->has_esc && lx->slen == litlen && memcmp(lx->str, lit, litlen) == 0;
}
#define JSON_IS(lx, lit) json_lex_is((lx), (lit), sizeof(lit) - 1)
/* For readers that read the members of an object from its bytes (the
 * dump's tensor objects, parse_dump_elem.c), falling back to the tokens on
 * anything unsure.  json_lex_number_fast: the number at p ('-' or a digit,
 * at least 64 bytes readable from p) as json_lex_next's fast path reads it,
 * the same value; the end of it, or NULL when that path would leave it to
 * the tokenizer (more than 19 digits, a long exponent, slow_numbers, no
 * SSE2 build), which then reads it.  json_lex_close_at: the object or
 * array opened by the last token closes at p ('}' or ']'), as if every
 * token up to there was read: the next token follows p. */
const char *json_lex_number_fast(const struct json_lex *lx, const char *p, double *v);
void json_lex_close_at(struct json_lex *lx, const char *p);
/* json_lex_open_at: the object or array at p ('{' or '[') opens, as if
 * every token up to it was read (the dump's record skeletons,
 * parse_dump.c): 0, or -1 with lx untouched when it would nest deeper than
 * JSON_MAX_DEPTH (the tokens then say so). */
int json_lex_open_at(struct json_lex *lx, const char *p);
/* json_lex_next inside an array, where the dump's item lists have the
 * next item open or the array close ("[ {", "}, {", "} ]" with white
 * space): those read here in a few steps, anything else by json_lex_next.
 * The same tokens either way. */
enum json_tok json_lex_next_item(struct json_lex *lx);
/* json_lex_key_open: inside an object, just after its '{' or after a
 * member's value, the first or next member when it is "key": { with a key
 * of at most maxlen bytes and no escapes, control bytes or white space
 * before the ':' (the dump's records and keyword inputs, parse_dump.c): 1
 * with the key's bytes in str and slen (has_esc 0) and its object open
 * (tok JT_OBJ_BEGIN, tok_start at the '{'), as if json_lex_next gave both
 * tokens; 0 with lx untouched for anything else, which json_lex_next then
 * reads (messages included). */
int json_lex_key_open(struct json_lex *lx, size_t maxlen);
/* json_lex_member: as json_lex_key_open, and where the key's value is not
 * an object the key alone (JT_KEY, as json_lex_next gives it: the value
 * next), where the object ends its '}' (JT_OBJ_END): JT_OBJ_BEGIN, JT_KEY
 * or JT_OBJ_END, or JT_ERROR with lx untouched for anything else, which
 * json_lex_next then reads (the dump's keyword inputs, parse_dump.c). */
enum json_tok json_lex_member(struct json_lex *lx, size_t maxlen);
/* Line number (1-based) of a position, for messages. */
size_t json_line_of(const char *buf, const char *pos);

#endif
