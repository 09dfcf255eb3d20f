/* util: the small utility layer every module uses (model, readers, commands,
 * views).  It owns nothing of probetop's meaning: hashing, growable arrays,
 * string arenas, a string -> int map, qsort comparators and string helpers.
 * Before writing one of these again in a module, use the one here.
 * The rank-folder scanner is in model/util/rankdirs.h, the folder helpers in
 * model/util/fs.h, the bump arena in model/util/arena.h. */
#ifndef PT_UTIL_H
#define PT_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* ---- hashing: the one string hash (FNV-1a, 64 bits, with a final mix so
 * that the low bits a power-of-two table uses depend on every byte) ---- */
uint64_t util_hash(const void *s, size_t len, uint64_t seed);
uint64_t util_hash_str(const char *s);
/* util_hash_fast: a word-at-a-time hash (about 8x fewer multiplies on the
 * long names of dumps and monitor trees) for in-memory tables whose output
 * never depends on slot order.  Its values are not util_hash's and may
 * differ between byte orders: never for a key stored on disk (the caches
 * key on util_hash). */
uint64_t util_hash_fast(const void *s, size_t len, uint64_t seed);

/* ---- growable arrays ----
 * util_grow makes room for need elements of elem bytes in *p (capacity *cap,
 * doubled from 16); 0, or -1 out of memory with *p and *cap unchanged.
 * util_grow0 also zeroes the new tail.  Large arrays get huge pages
 * (bigmem.h). */
int util_grow_to(void **p, size_t *cap, size_t need, size_t elem, int zero);
/* (inline: most calls find the room there, and the readers call them once
 * an item; a call and a return each time cost more than the test) */
static inline int util_grow(void **p, size_t *cap, size_t need, size_t elem) {
    return need <= *cap ? 0 : util_grow_to(p, cap, need, elem, 0);
}
static inline int util_grow0(void **p, size_t *cap, size_t need, size_t elem) {
    return need <= *cap ? 0 : util_grow_to(p, cap, need, elem, 1);
}
/* room for one more element after n: UTIL_PUSH(v, n, cap) != 0 is out of memory */
/* two parallel arrays that share one capacity */
int util_grow2(void **a, size_t ea, void **b, size_t eb, size_t *cap, size_t need);
#define UTIL_PUSH(arr, n, cap) util_grow((void **)&(arr), &(cap), (size_t)(n) + 1, sizeof *(arr))

/* ---- string arena: NUL-terminated strings appended to one buffer, named
 * by their 32-bit offset (so the buffer may move) ---- */
int util_strpool_put(char **buf, size_t *len, size_t *cap, const char *s, size_t n, uint32_t *off);

/* ---- string -> int32 map (open addressing, one util_hash) ----
 * Zero-initialise; with borrow set the keys are the caller's and must
 * outlive the map, else they are copied. */
struct util_smap { char **keys; int32_t *vals; uint32_t *hashes; size_t cap, n; int borrow; };
/* The value slot of key; with create a missing key is added with value -1.
 * NULL: absent (without create) or out of memory. */
int32_t *util_smap_slot(struct util_smap *m, const char *key, int create);
void util_smap_free(struct util_smap *m);

/* ---- qsort comparators, ascending ---- */
int util_cmp_i32(const void *a, const void *b);
int util_cmp_str(const void *a, const void *b);   /* elements are char * */
/* v[0..n) sorted ascending, each value once (no sort when already in
 * order); returns how many are left. */
size_t util_sort_unique_i32(int32_t *v, size_t n);

/* ---- string helpers ---- */
int util_ends_with(const char *s, const char *suf);
int util_ends_with_n(const char *s, size_t n, const char *suf);   /* s is n bytes */
/* Appends n bytes of s to the text buf holds (*len bytes of size), cut
 * as snprintf cuts (at most size - 1 bytes, always NUL-terminated): for
 * texts made on hot paths a piece at a time. */
void util_put_text(char *buf, size_t size, size_t *len, const char *s, size_t n);
/* The length of the longest start of s's n bytes that is printable ASCII
 * (0x20..0x7e) other than a and b: what a csv or JSON writer copies as it
 * is.  Eight bytes at a time, for tables of tens of MB. */
size_t util_ascii_run(const char *s, size_t n, char a, char b);
/* memmem for a short word in a short text (a record name): its first
 * byte by memchr, then a compare; memmem's set-up costs more there. */
const char *util_find(const char *s, size_t n, const char *w, size_t wl);
/* Appends the decimal form of v to buf at o (no NUL); returns the new
 * length.  For hot paths, where printf's parsing of its format shows. */
size_t util_put_uint(char *buf, size_t o, unsigned long long v);
/* The same for a signed v, '-' first when negative (at most 20 bytes). */
size_t util_put_int(char *buf, size_t o, long long v);
/* "step12" -> 12 for prefix "step"; -1 unless the rest is 1+ plain digits
 * below INT_MAX. */
long util_num_after(const char *name, const char *prefix);

/* ---- --mem ---- */
/* SIZE: bytes, or with a K, M, G or T suffix (powers of 1024; a trailing B
 * or iB allowed).  0, or -1 when it is none. */
int util_parse_size(const char *v, uint64_t *out);
/* The default --mem: a quarter of the machine's memory, at most 1 GiB. */
uint64_t util_default_mem(void);
/* The cores online, at least 1 and at most max: how many threads a job of
 * independent parts starts when it is not told. */
int util_ncores(int max);

#endif
