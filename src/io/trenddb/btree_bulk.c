/* btree_bulk: bottom-up B-tree of a WITHOUT ROWID table (an index B-tree
 * in SQLite's file format), written into the database file at its end.
 *
 * In an index B-tree every entry is stored once: in a leaf, or in an
 * interior page as the divider between two subtrees.  Records come in key
 * order and fill the open leaf; when it is full its last record goes up as
 * the divider and the new record starts the next leaf (so no page is ever
 * left empty); an interior page that is full does the same one level up.
 * Pages are numbered in the order they close, from the file's end on, and
 * written there a megabyte at a time; btree_bulk_finish writes the last
 * page (the tree's top) into the table's root page. */
#include "src/io/trenddb/btree_bulk.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/util/bgwrite.h"
#include "model/util/fs.h"

#define BULK_WRITE_BYTES ((size_t)1 << 20)   /* a write or read of pages: 1 MB (a syscall a page cost more than the page) */

struct btree_bulk {
    /* the open pages, fd, failed and intkey: btree_bulk.h's, for
     * btree_bulk_place's inline path (the first member: see there) */
    struct btree_bulk_head h;
    char *path;                      /* its name, for messages */
    int ps;
    int nlv;
    int64_t root;                    /* the table's root page, where the top goes */
    uint32_t next, lockpage;         /* the page the next page closed takes; the lock-byte page (skipped) */
    unsigned char hdr[100];          /* the file's header as btree_bulk_start read it */
    unsigned char *wbuf;             /* the last pages closed, written BULK_WRITE_BYTES at a time */
    size_t wn;                       /* pages in wbuf (consecutive, the last one next - 1) */
    /* the writing thread (bgwrite; started at the first full wbuf; none:
     * wbuf written on the caller's thread): a full wbuf is handed over for
     * the other buffer, so that the pwrite's copy of the pages runs
     * beside the next pages' making */
    struct bgwrite io;
    int64_t nrec;                    /* a rowid table's rows (btree_bulk_add_row) */
    int64_t lastkey;                 /* its last rowid */
    unsigned char cell[2][1024];     /* scratch for cells moving up */
};
/* btree_bulk_place reads the head through a struct btree_bulk pointer */
_Static_assert(offsetof(struct btree_bulk, h) == 0, "btree_bulk_head first");

static void put16(unsigned char *p, unsigned v) { p[0] = (unsigned char)(v >> 8); p[1] = (unsigned char)v; }
static void put32(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}
static unsigned get16(const unsigned char *p) { return (unsigned)p[0] << 8 | p[1]; }
static uint32_t get32(const unsigned char *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* SQLite's varint (big-endian groups of 7 bits; ninth byte whole). */
static size_t put_varint(unsigned char *p, uint64_t v) {
    unsigned char tmp[10];
    size_t n = 0;
    if (v >> 56) {   /* nine bytes */
        p[8] = (unsigned char)v;
        v >>= 8;
        for (int i = 7; i >= 0; i--) {
            p[i] = (unsigned char)((v & 0x7f) | 0x80);
            v >>= 7;
        }
        return 9;
    }
    do {
        tmp[n++] = (unsigned char)((v & 0x7f) | 0x80);
        v >>= 7;
    } while (v);
    tmp[0] &= 0x7f;
    for (size_t i = 0; i < n; i++) p[i] = tmp[n - 1 - i];
    return n;
}

static size_t get_varint(const unsigned char *p, uint64_t *v) {
    uint64_t x = 0;
    for (size_t i = 0; i < 8; i++) {
        x = (x << 7) | (p[i] & 0x7f);
        if (!(p[i] & 0x80)) { *v = x; return i + 1; }
    }
    *v = (x << 8) | p[8];
    return 9;
}

/* The header and the body are written in place (header: one byte per
 * column, every serial type < 128), each value as one store. */
size_t btree_bulk_record(unsigned char *out, int ncols, const int64_t *ival, const double *dval, const uint8_t *kind) {
    unsigned char *types = out + 1, *w = out + 1 + ncols;
    for (int c = 0; c < ncols; c++) {
        unsigned k = kind[c];
        if (k == BTREE_BULK_REAL) {
            btree_bulk_put_real(w, dval[c]);
            w += 8;
            types[c] = 7;
        } else if (k == BTREE_BULK_NULL) {
            types[c] = 0;
        } else
            types[c] = btree_bulk_put_int(&w, ival[c]);
    }
    out[0] = (unsigned char)(1 + ncols);   /* header size: itself and one byte per type (all < 128) */
    return (size_t)(w - out);
}

/* The header's serial types are varints here (a text's is 13 + 2 * its
 * length); its size, one byte, is below 128 for 8 columns. */
size_t btree_bulk_record_text(unsigned char *out, int ncols, const int64_t *ival, const char *const *text,
                              const uint8_t *kind) {
    size_t hl = 1;
    for (int c = 0; c < ncols; c++) {
        int bytes;
        uint64_t type = kind[c] == BTREE_BULK_TEXT ? 13 + 2 * (uint64_t)ival[c]
                        : kind[c] == BTREE_BULK_INT ? (uint64_t)btree_bulk_int_type(ival[c], &bytes)
                                                    : 0;
        hl += put_varint(out + hl, type);
    }
    out[0] = (unsigned char)hl;
    unsigned char *w = out + hl;
    for (int c = 0; c < ncols; c++) {
        if (kind[c] == BTREE_BULK_TEXT) {
            memcpy(w, text[c], (size_t)ival[c]);
            w += ival[c];
        } else if (kind[c] == BTREE_BULK_INT)
            btree_bulk_put_int(&w, ival[c]);
    }
    return (size_t)(w - out);
}

static int hdr_size(const struct btree_bulk_page *pg) { return pg->interior ? 12 : 8; }

static int page_init(struct btree_bulk *b, struct btree_bulk_page *pg, int interior) {
    if (!pg->p && !(pg->p = malloc((size_t)b->ps))) return -1;
    memset(pg->p, 0, 12);   /* the header; page_seal zeroes what no cell ever took */
    pg->interior = interior;
    pg->intkey = b->h.intkey;
    pg->ncells = 0;
    pg->content = b->ps;
    pg->hw = hdr_size(pg);
    pg->lw = b->ps;
    return 0;
}

static int page_fits(const struct btree_bulk_page *pg, size_t cs) {
    return (long)hdr_size(pg) + 2L * (pg->ncells + 1) + (long)cs <= (long)pg->content;
}

/* hw and lw brought up to the page as it is (before a cell is taken back,
 * and at its seal): a cell placed costs no high-water mark of its own. */
static void page_mark(struct btree_bulk_page *pg) {
    int hw = hdr_size(pg) + 2 * pg->ncells;
    if (hw > pg->hw) pg->hw = hw;
    if (pg->content < pg->lw) pg->lw = pg->content;
}

/* The cell of cs bytes just below the page's content is in: its pointer.
 * btree_bulk.h's btree_bulk_leaf_place takes the same steps for an index
 * leaf inline, in its own order (sharing this cost the writer 0.6 % more
 * instructions at 134 MB, callgrind: the byte stores alias the page). */
static void page_placed(struct btree_bulk_page *pg, size_t cs) {
    pg->content -= (int)cs;
    put16(pg->p + hdr_size(pg) + 2 * pg->ncells, (unsigned)pg->content);
    pg->ncells++;
}

static void page_put(struct btree_bulk_page *pg, const unsigned char *cell, size_t cs) {
    memcpy(pg->p + pg->content - cs, cell, cs);
    page_placed(pg, cs);
}

/* The last cell's payload (the record) out of the page, into out; its
 * left child (interior pages) in *child. */
static size_t page_take_last(struct btree_bulk_page *pg, unsigned char *out, uint32_t *child) {
    page_mark(pg);
    const unsigned char *c = pg->p + pg->content;   /* the last cell put sits lowest */
    size_t at = 0;
    if (pg->interior) {
        *child = get32(c);
        at = 4;
    }
    uint64_t len;
    if (pg->intkey) {   /* a rowid table's interior cell: the child, then the key's varint, which goes up as it is */
        uint64_t key;
        len = get_varint(c + at, &key);
    } else {
        at += get_varint(c + at, &len);
    }
    memcpy(out, c + at, (size_t)len);
    pg->ncells--;
    pg->content += (int)(at + len);
    return (size_t)len;
}

/* Finishes the page's header; rightmost for interior pages. */
static void page_seal(struct btree_bulk *b, struct btree_bulk_page *pg, uint32_t rightmost) {
    /* the bytes no cell took are zeros (a cell taken back leaves its bytes, as the page had them) */
    page_mark(pg);
    memset(pg->p + pg->hw, 0, (size_t)(pg->lw - pg->hw));
    pg->p[0] = pg->intkey ? (pg->interior ? 0x05 : 0x0d) : (pg->interior ? 0x02 : 0x0a);
    put16(pg->p + 3, (unsigned)pg->ncells);
    put16(pg->p + 5, pg->content == 65536 ? 0 : (unsigned)pg->content);
    if (pg->interior) put32(pg->p + 8, rightmost);
    (void)b;
}

/* The batch handed over last written (or none): 0, or -1 with errno the
 * write's, b failed. */
static int bulk_io_wait(struct btree_bulk *b) {
    if (bgwrite_wait(&b->io) == 0) return 0;
    b->h.failed = 1;
    return -1;
}

/* The pages waiting in wbuf into the file, at their places: by the
 * writing thread (bgwrite_put; started at the first full wbuf, so that a
 * tree of less than BULK_WRITE_BYTES starts none, with the second buffer),
 * or here. */
static int wbuf_flush(struct btree_bulk *b) {
    if (!b->wn) return 0;
    size_t full = b->wn == BULK_WRITE_BYTES / (size_t)b->ps ? BULK_WRITE_BYTES : 0;
    unsigned char *next = bgwrite_put(&b->io, b->h.fd, b->wbuf, b->wn * (size_t)b->ps,
                                      (off_t)(b->next - 1 - (uint32_t)b->wn) * b->ps, full);
    if (!next) {
        b->h.failed = 1;
        return -1;
    }
    b->wbuf = next;
    b->wn = 0;
    return 0;
}

/* Seals the page and queues it for its place: its page number, 0 on
 * failure.  Places follow each other but for the lock-byte page (the page
 * holding byte 2^30, which SQLite never uses), which breaks a run. */
static uint32_t page_close(struct btree_bulk *b, struct btree_bulk_page *pg, uint32_t rightmost) {
    page_seal(b, pg, rightmost);
    size_t cap = BULK_WRITE_BYTES / (size_t)b->ps;
    if ((b->wn == cap || b->next == b->lockpage) && wbuf_flush(b) != 0) return 0;
    if (b->next == b->lockpage) b->next++;
    memcpy(b->wbuf + b->wn++ * (size_t)b->ps, pg->p, (size_t)b->ps);
    return b->next++;
}

/* intkey: a rowid table's interior cell, rec the key's varint (no length). */
static size_t cell_of(unsigned char *cell, uint32_t child, const unsigned char *rec, size_t len, int intkey) {
    size_t at = 0;
    if (child) {
        put32(cell, child);
        at = 4;
    }
    if (!intkey) at += put_varint(cell + at, len);
    memcpy(cell + at, rec, len);
    return at + len;
}

/* The divider rec (len bytes) with left subtree child, into level k. */
static int push_divider(struct btree_bulk *b, int k, uint32_t child, const unsigned char *rec, size_t len) {
    for (;;) {
        if (k >= BTREE_BULK_LEVELS) { b->h.failed = 1; return -1; }
        if (k == b->nlv) {
            if (page_init(b, &b->h.lv[k], 1) != 0) { b->h.failed = 1; return -1; }
            b->nlv++;
        }
        struct btree_bulk_page *pg = &b->h.lv[k];
        unsigned char cell[1100];
        size_t cs = cell_of(cell, child, rec, len, b->h.intkey);
        if (page_fits(pg, cs)) {
            page_put(pg, cell, cs);
            return 0;
        }
        /* full: its last divider goes up; this one starts the next page */
        uint32_t last_child;
        size_t ll = page_take_last(pg, b->cell[1], &last_child);
        uint32_t q = page_close(b, pg, last_child);
        if (!q || page_init(b, pg, 1) != 0) return -1;
        page_put(pg, cell, cs);
        memcpy(b->cell[0], b->cell[1], ll);
        rec = b->cell[0];
        len = ll;
        child = q;
        k++;
    }
}

int btree_bulk_add(struct btree_bulk *b, const unsigned char *rec, size_t len) {
    if (b->h.failed || b->h.fd < 0 || len > 900 || b->h.intkey) return -1;
    struct btree_bulk_page *leaf = &b->h.lv[0];
    unsigned char *at = btree_bulk_leaf_place(leaf, len);
    if (at) {
        memcpy(at, rec, len);
        return 0;
    }
    unsigned char cell[1000];
    size_t cs = cell_of(cell, 0, rec, len, 0);
    uint32_t unused;
    unsigned char up[1024];
    size_t ul = page_take_last(leaf, up, &unused);
    uint32_t p = page_close(b, leaf, 0);
    if (!p || page_init(b, leaf, 0) != 0) return -1;
    page_put(leaf, cell, cs);
    return push_divider(b, 1, p, up, ul);
}

/* A rowid table's leaf keeps every row: when the next row does not fit,
 * the leaf closes and its last rowid goes up as the divider (an interior
 * cell: the left child and that key), where an index tree moves its last
 * record up. */
int btree_bulk_add_row(struct btree_bulk *b, int64_t rowid, const unsigned char *rec, size_t len) {
    if (b->h.failed || b->h.fd < 0 || !b->h.intkey || (b->nrec && rowid <= b->lastkey) || len > (size_t)b->ps - 35)
        return -1;   /* b->ps - 35: the most a table leaf keeps in the page (no overflow pages here) */
    struct btree_bulk_page *leaf = &b->h.lv[0];
    unsigned char cell[24];
    size_t hl = put_varint(cell, len);
    hl += put_varint(cell + hl, (uint64_t)rowid);
    if (!page_fits(leaf, hl + len)) {
        unsigned char up[10];
        size_t ul = put_varint(up, (uint64_t)b->lastkey);
        uint32_t p = page_close(b, leaf, 0);
        if (!p || page_init(b, leaf, 0) != 0 || push_divider(b, 1, p, up, ul) != 0) { b->h.failed = 1; return -1; }
    }
    unsigned char *c = leaf->p + leaf->content - (hl + len);
    memcpy(c, cell, hl);
    memcpy(c + hl, rec, len);
    page_placed(leaf, hl + len);
    b->nrec++;
    b->lastkey = rowid;
    return 0;
}

int btree_bulk_open_intkey(struct btree_bulk **out, int page_size, struct pt_error *err) {
    if (btree_bulk_open(out, page_size, err) != 0) return -1;
    (*out)->h.intkey = 1;
    (*out)->h.lv[0].intkey = 1;
    return 0;
}

int btree_bulk_open(struct btree_bulk **out, int page_size, struct pt_error *err) {
    *out = NULL;
    if (page_size < 512 || page_size > 65536 || (page_size & (page_size - 1)))
        return pt_errorf(err, "page size %d", page_size);
    struct btree_bulk *b = calloc(1, sizeof *b);
    if (!b || !(b->wbuf = malloc(BULK_WRITE_BYTES > (size_t)page_size ? BULK_WRITE_BYTES : (size_t)page_size))) {
        free(b);
        return pt_errorf(err, "out of memory");
    }
    b->h.fd = -1;
    b->ps = page_size;
    if (page_init(b, &b->h.lv[0], 0) != 0) {
        btree_bulk_free(b);
        return pt_errorf(err, "out of memory");
    }
    b->nlv = 1;
    *out = b;
    return 0;
}

void btree_bulk_free(struct btree_bulk *b) {
    if (!b) return;
    bgwrite_stop(&b->io);
    if (b->h.fd >= 0) close(b->h.fd);
    for (int i = 0; i < BTREE_BULK_LEVELS; i++) free(b->h.lv[i].p);
    free(b->wbuf);
    free(b->path);
    free(b);
}

int btree_bulk_started(const struct btree_bulk *b) { return b->h.fd >= 0; }

int btree_bulk_start(struct btree_bulk *b, int fd, const char *path, int64_t root, struct pt_error *err) {
    unsigned char *hdr = b->hdr, *rp = NULL;
    struct stat st;
    int rc = -1;
    if (b->path || !(b->path = strdup(path))) {
        pt_errorf(err, "%s: %s", path, b->path ? "internal: a tree started twice" : "out of memory");
        goto out;
    }
    if (fs_pread_all(fd, hdr, sizeof b->hdr, 0) != 0 || fstat(fd, &st) != 0 || memcmp(hdr, "SQLite format 3", 16)) {
        pt_errorf(err, "%s: not the SQLite file expected", path);
        goto out;
    }
    unsigned ps = get16(hdr + 16) == 1 ? 65536 : get16(hdr + 16);
    uint32_t n = get32(hdr + 28);
    if ((int)ps != b->ps || hdr[20] != 0 || get32(hdr + 24) != get32(hdr + 92) || (int64_t)n * ps != st.st_size ||
        root < 2 || root > n || get32(hdr + 32) != 0 || get32(hdr + 52) != 0) {
        /* another page size, reserved bytes, a size not in the header, free
         * pages or auto-vacuum: not the plain file this knows how to grow */
        pt_errorf(err, "%s: not the SQLite file layout expected (page size %u, %u pages)", path, ps, n);
        goto out;
    }
    if (!(rp = malloc(ps)) || fs_pread_all(fd, rp, ps, (off_t)(root - 1) * ps) != 0 || rp[0] != (b->h.intkey ? 0x0d : 0x0a) ||
        get16(rp + 3) != 0) {
        pt_errorf(err, "%s: the table's root page %lld is not the empty leaf expected", path, (long long)root);
        goto out;
    }
    b->root = root;
    b->lockpage = (uint32_t)(((uint64_t)1 << 30) / ps) + 1;
    b->next = n + 1;
    b->h.fd = fd;
    fd = -1;
    rc = 0;
out:
    if (fd >= 0) close(fd);
    free(rp);
    return rc;
}

/* The tree's top, sealed in lv[top] (its place: the root page). */
static int finish_tree(struct btree_bulk *b, int *top) {
    uint32_t child = 0;
    for (int k = 0; k < b->nlv; k++) {
        if (k == b->nlv - 1) {
            page_seal(b, &b->h.lv[k], child);
            *top = k;
            return 0;
        }
        child = page_close(b, &b->h.lv[k], child);
        if (!child) return -1;
    }
    return -1;
}

int btree_bulk_finish(struct btree_bulk *b, struct pt_error *err) {
    if (b->h.fd < 0) return 0;   /* never started: the empty leaf SQLite made is the table */
    int top = 0, rc = -1;
    if (b->h.failed || finish_tree(b, &top) != 0 || wbuf_flush(b) != 0 || bulk_io_wait(b) != 0) {
        pt_errorf(err, "%s: could not write the table's pages: %s (disk full?)", b->path, strerror(errno));
        goto out;
    }
    /* the page count, and the change counter moved on (with the version
     * it is valid for): a connection that kept pages of the file reads
     * them again */
    uint32_t change = get32(b->hdr + 24) + 1;
    put32(b->hdr + 24, change);
    put32(b->hdr + 28, b->next - 1);
    put32(b->hdr + 92, change);
    if (fs_pwrite_all(b->h.fd, b->h.lv[top].p, (size_t)b->ps, (off_t)(b->root - 1) * b->ps) != 0 ||
        fs_pwrite_all(b->h.fd, b->hdr + 24, 8, 24) != 0 || fs_pwrite_all(b->h.fd, b->hdr + 92, 4, 92) != 0) {
        pt_errorf(err, "%s: write error: %s (disk full?)", b->path, strerror(errno));
        goto out;
    }
    rc = 0;
out:
    bgwrite_stop(&b->io);
    close(b->h.fd);
    b->h.fd = -1;
    b->h.failed = 1;   /* no more records */
    return rc;
}
