/* json: msProbe's JSON dialect (bare NaN/Infinity/-Infinity), as a cJSON
 * tree for small files; the pull tokenizer is json_lex.c. */
#include "src/io/common/json.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- reading files ---- */

/* Opens path (dirfd >= 0: its last component in that folder) for reading
 * as a regular file of at most max_bytes (json.h). */
static int open_regular_at(int dirfd, const char *path, size_t max_bytes, int *fd_out, struct stat *st,
                           struct pt_error *err) {
    /* O_NONBLOCK so that a FIFO put where a file should be cannot hang open(). */
    const char *slash = dirfd >= 0 ? strrchr(path, '/') : NULL;
    int fd = slash ? openat(dirfd, slash + 1, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
                   : open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return pt_errorf(err, "%s: cannot open: %s", path, strerror(errno));
    if (fstat(fd, st) != 0) {
        int e = errno;
        close(fd);
        return pt_errorf(err, "%s: cannot stat: %s", path, strerror(e));
    }
    if (!S_ISREG(st->st_mode)) {
        close(fd);
        return pt_errorf(err, "%s: is %s, not a regular file", path,
                         S_ISDIR(st->st_mode) ? "a folder" : S_ISFIFO(st->st_mode) ? "a FIFO" : "a special file");
    }
    if ((uint64_t)st->st_size > max_bytes) {
        close(fd);
        return pt_errorf(err, "%s: %lld bytes, more than the %zu this reader accepts", path,
                         (long long)st->st_size, max_bytes);
    }
    *fd_out = fd;
    return 0;
}

int json_open_regular(const char *path, size_t max_bytes, int *fd_out, struct stat *st, struct pt_error *err) {
    return open_regular_at(-1, path, max_bytes, fd_out, st, err);
}

/* The whole file into a private, NUL-terminated buffer.  A copy and not a
 * mapping: a mapped file that shrinks while it is read (msProbe, cp or
 * rsync still rewriting it) kills the reader with SIGBUS on the next page,
 * while read() just returns less, which is reported here.  A SIGBUS handler
 * jumping out of the tokenizer instead would have to be per thread (dumps
 * are parsed on a pool) and would leave half-built rows behind. */
static int read_into(int dirfd, const char *path, size_t max_bytes, char **buf, size_t *capp, size_t *len,
                     struct stat *stp, struct pt_error *err) {
    struct stat st0, *st = stp ? stp : &st0;
    int fd = -1;
    *len = 0;
    if (stp) memset(stp, 0, sizeof *stp);   /* st_mode 0: not opened */
    if (open_regular_at(dirfd, path, max_bytes, &fd, st, err) != 0) return -1;
    /* room for one byte past the size: a read of size + 1 that returns the
     * size is the end, seen by that read (a regular file reads short only
     * at its end), with no second, empty read to find it */
    size_t cap = *capp, n = 0, size = (size_t)st->st_size;
    char *b = *buf;
    if (!b || cap < size + 2) {
        cap = size + 2;
        b = realloc(*buf, cap);
        if (!b) {
            close(fd);
            return pt_errorf(err, "%s: out of memory for %zu bytes", path, cap);
        }
        *buf = b;
        *capp = cap;
    }
    for (;;) {
        if (n + 1 >= cap) {   /* the file grew while we read it */
            if (cap > max_bytes) break;
            char *nb = realloc(b, cap * 2);
            if (!nb) { close(fd); return pt_errorf(err, "%s: out of memory", path); }
            *buf = b = nb;
            *capp = cap *= 2;
        }
        size_t want = cap - 1 - n;
        ssize_t r = read(fd, b + n, want);
        if (r < 0) {
            if (errno == EINTR) continue;
            int e = errno;
            close(fd);
            return pt_errorf(err, "%s: read error: %s", path, strerror(e));
        }
        if (r == 0) break;
        n += (size_t)r;
        /* short, and exactly the size fstat gave: the end.  Past the size
         * (it grew, or a /proc file that says 0) or short of it, read on
         * until read() says the end. */
        if ((size_t)r < want && n == size) break;
    }
    close(fd);
    if (n < size)
        return pt_errorf(err, "%s: changed while it was read (%lld bytes, then %zu): is it still being written?",
                         path, (long long)st->st_size, n);
    b[n] = '\0';
    *len = n;
    return 0;
}

static int read_whole(const char *path, size_t max_bytes, char **buf, size_t *len, struct pt_error *err) {
    size_t cap = 0;
    *buf = NULL;
    if (read_into(-1, path, max_bytes, buf, &cap, len, NULL, err) == 0) return 0;
    free(*buf);
    *buf = NULL;
    *len = 0;
    return -1;
}

int json_read_reuse(const char *path, size_t max_bytes, char **buf, size_t *cap, size_t *len, struct pt_error *err) {
    return read_into(-1, path, max_bytes, buf, cap, len, NULL, err);
}

int json_read_stat(int dirfd, const char *path, size_t max_bytes, char **buf, size_t *cap, size_t *len, struct stat *st,
                   struct pt_error *err) {
    return read_into(dirfd, path, max_bytes, buf, cap, len, st, err);
}

int json_read_file(const char *path, size_t max_bytes, char **buf, size_t *len, struct pt_error *err) {
    return read_whole(path, max_bytes, buf, len, err);
}

int json_map_file(const char *path, size_t max_bytes, const char **buf, size_t *len, struct pt_error *err) {
    char *b;
    if (read_whole(path, max_bytes, &b, len, err) != 0) { *buf = NULL; return -1; }
    if (*len == 0) {   /* as a mapping was: nothing held for an empty file */
        free(b);
        b = NULL;
    }
    *buf = b;
    return 0;
}

void json_unmap_file(const char *buf, size_t len) {
    (void)len;
    free((char *)buf);
}

size_t json_line_of(const char *buf, const char *pos) {
    size_t line = 1;
    for (const char *p = buf; p < pos; p++) {
        p = memchr(p, '\n', (size_t)(pos - p));
        if (!p) break;
        line++;
    }
    return line;
}

/* ---- cJSON trees ---- */

/* Rewrites bare NaN / Infinity / -Infinity (outside strings) as strings.
 * Returns a new buffer (NUL-terminated) or NULL when out of memory. */
static char *dialect_to_strict(const char *text, size_t len, size_t *outlen) {
    size_t extra = 0;
    int in_str = 0;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (in_str) {
            if (c == '\\') i++;
            else if (c == '"') in_str = 0;
        } else if (c == '"') in_str = 1;
        else if (c == 'N' || c == 'I') extra += 2;
    }
    char *out = malloc(len + extra + 1);
    if (!out) return NULL;
    size_t o = 0;
    in_str = 0;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (in_str) {
            out[o++] = c;
            if (c == '\\' && i + 1 < len) out[o++] = text[++i];
            else if (c == '"') in_str = 0;
            continue;
        }
        if (c == '"') { in_str = 1; out[o++] = c; continue; }
        if (c == 'N' && len - i >= 3 && memcmp(text + i, "NaN", 3) == 0) {
            memcpy(out + o, "\"NaN\"", 5); o += 5; i += 2; continue;
        }
        if (c == 'I' && len - i >= 8 && memcmp(text + i, "Infinity", 8) == 0) {
            memcpy(out + o, "\"Infinity\"", 10); o += 10; i += 7; continue;
        }
        if (c == '-' && len - i >= 9 && memcmp(text + i, "-Infinity", 9) == 0) {
            memcpy(out + o, "\"-Infinity\"", 11); o += 11; i += 8; continue;
        }
        out[o++] = c;
    }
    out[o] = '\0';
    *outlen = o;
    return out;
}

/* 1 when the text ends inside a string or with a bracket still open: cJSON
 * puts its error on the last byte both for a cut file and for a bad last
 * character, and only this tells the two apart. */
static int json_open_at_end(const char *s, size_t n) {
    long depth = 0;
    int instr = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (instr) {
            if (c == '\\') i++;
            else if (c == '"') instr = 0;
        } else if (c == '"') instr = 1;
        else if (c == '{' || c == '[') depth++;
        else if (c == '}' || c == ']') depth--;
    }
    return instr || depth > 0;
}

int json_tree_parse(const char *text, size_t len, const char *what, cJSON **out, struct pt_error *err) {
    size_t slen;
    const char *end = NULL;
    *out = NULL;
    if (len == 0) return pt_errorf(err, "%s: empty file, expected a JSON object", what);
    char *strict = dialect_to_strict(text, len, &slen);
    if (!strict) return pt_errorf(err, "%s: out of memory", what);
    cJSON *root = cJSON_ParseWithLengthOpts(strict, slen, &end, 0);
    if (!root) {
        size_t line = end ? json_line_of(strict, end) : 0;
        int atend = end && (size_t)(end - strict) + 1 >= slen && json_open_at_end(strict, slen);
        free(strict);
        if (atend) return pt_errorf(err, "%s: line %zu: JSON ends early (truncated file?)", what, line);
        return pt_errorf(err, "%s: line %zu: not valid JSON here", what, line);
    }
    free(strict);
    *out = root;
    return 0;
}

static int tree_file(const char *path, size_t max_bytes, cJSON **out, struct pt_error *err) {
    char *buf;
    size_t len;
    *out = NULL;
    if (json_read_file(path, max_bytes, &buf, &len, err) != 0) return -1;
    int rc = json_tree_parse(buf, len, path, out, err);
    free(buf);
    return rc;
}

int json_tree_file(const char *path, cJSON **out, struct pt_error *err) {
    return tree_file(path, (size_t)1 << 31, out, err);
}

int json_side_file(const char *path, cJSON **out, struct pt_error *err) {
    return tree_file(path, JSON_SIDE_MAX, out, err);
}

/* Python float() of a trimmed string, restricted to what msProbe writes. */
static int parse_float_text(const char *s, double *out) {
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r')) n--;
    if (n == 0 || n > 64) return 0;
    char tmp[72];
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    const char *t = tmp;
    int neg = 0;
    if (*t == '+' || *t == '-') { neg = *t == '-'; t++; }
    if ((*t == 'n' || *t == 'N') && !strcasecmp(t, "nan")) { *out = NAN; return 1; }
    if ((*t == 'i' || *t == 'I') && (!strcasecmp(t, "inf") || !strcasecmp(t, "infinity"))) {
        *out = neg ? -INFINITY : INFINITY;
        return 1;
    }
    /* digits, one dot, exponent: reject hex and other strtod extensions */
    for (const char *p = t; *p; p++)
        if (!((*p >= '0' && *p <= '9') || *p == '.' || *p == 'e' || *p == 'E' || *p == '+' || *p == '-'))
            return 0;
    char *e;
    errno = 0;
    double v = strtod(tmp, &e);
    if (e == tmp || *e) return 0;
    *out = v;
    return 1;
}

int json_number(const cJSON *item, double *out) {
    if (!item) return 0;
    if (cJSON_IsNumber(item)) { *out = item->valuedouble; return 1; }
    if (cJSON_IsTrue(item)) { *out = 1.0; return 1; }
    if (cJSON_IsFalse(item)) { *out = 0.0; return 1; }
    if (cJSON_IsString(item) && item->valuestring) return parse_float_text(item->valuestring, out);
    return 0;
}

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

long json_lex_string(const struct json_lex *lx, char *out, size_t n) {
    const char *p = lx->str, *e = lx->str + lx->slen;
    size_t o = 0;
    if (n == 0) return -1;
    if (!lx->has_esc) {   /* nothing to decode: the raw bytes, truncated as below */
        o = lx->slen < n - 1 ? lx->slen : n - 1;
        memcpy(out, p, o);
        out[o] = '\0';
        return (long)o;
    }
    while (p < e) {
        char buf[4];
        size_t bl = 1;
        if (*p != '\\') { buf[0] = *p++; }
        else {
            p++;
            switch (*p) {
            case '"': buf[0] = '"'; break;
            case '\\': buf[0] = '\\'; break;
            case '/': buf[0] = '/'; break;
            case 'b': buf[0] = '\b'; break;
            case 'f': buf[0] = '\f'; break;
            case 'n': buf[0] = '\n'; break;
            case 'r': buf[0] = '\r'; break;
            case 't': buf[0] = '\t'; break;
            case 'u': {
                if (e - p < 5) goto bad;
                unsigned cp = 0;
                for (int i = 1; i <= 4; i++) {
                    int h = hexval(p[i]);
                    if (h < 0) goto bad;
                    cp = cp * 16 + (unsigned)h;
                }
                p += 4;
                if (cp >= 0xd800 && cp <= 0xdbff && e - p >= 7 && p[1] == '\\' && p[2] == 'u') {
                    unsigned lo = 0;
                    int ok = 1;
                    for (int i = 3; i <= 6; i++) {
                        int h = hexval(p[i]);
                        if (h < 0) { ok = 0; break; }
                        lo = lo * 16 + (unsigned)h;
                    }
                    if (ok && lo >= 0xdc00 && lo <= 0xdfff) {
                        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                        p += 6;
                    }
                }
                if (cp < 0x80) buf[0] = (char)cp;
                else if (cp < 0x800) { buf[0] = (char)(0xc0 | (cp >> 6)); buf[1] = (char)(0x80 | (cp & 0x3f)); bl = 2; }
                else if (cp < 0x10000) {
                    buf[0] = (char)(0xe0 | (cp >> 12)); buf[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
                    buf[2] = (char)(0x80 | (cp & 0x3f)); bl = 3;
                } else {
                    buf[0] = (char)(0xf0 | (cp >> 18)); buf[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
                    buf[2] = (char)(0x80 | ((cp >> 6) & 0x3f)); buf[3] = (char)(0x80 | (cp & 0x3f)); bl = 4;
                }
                break;
            }
            default: goto bad;
            }
            p++;
        }
        if (o + bl < n) { memcpy(out + o, buf, bl); o += bl; }
        else break;
    }
    out[o < n ? o : n - 1] = '\0';
    return (long)o;
bad:   /* a bad escape: what came before it, terminated (callers keep it) */
    out[o] = '\0';
    return -1;
}

void json_fput_str(FILE *f, const char *s) {
    const unsigned char *p = (const unsigned char *)s;
    fputc('"', f);
    for (; *p; p++) {
        unsigned char c = *p;
        /* a run of printable ASCII needing no escape in one write (a
         * listing of many entries is mostly names: per-byte locked writes
         * were a tenth of `probetop overflow --format json`) */
        const unsigned char *q = p;
        while (*q >= 0x20 && *q < 0x7f && *q != '"' && *q != '\\') q++;
        if (q - p > 1) {
            fwrite(p, 1, (size_t)(q - p), f);
            p = q - 1;
            continue;
        }
        if (c == '"' || c == '\\') { fputc('\\', f); fputc(c, f); }
        else if (c == '\n') fputs("\\n", f);
        else if (c == '\t') fputs("\\t", f);
        else if (c == '\r') fputs("\\r", f);
        else if (c < 0x20 || c == 0x7f) fprintf(f, "\\u%04x", c);
        else if (c < 0x80) fputc(c, f);
        else if (c == 0xc2 && p[1] >= 0x80 && p[1] < 0xa0) {
            /* a C1 control (U+009B starts an escape sequence on terminals
             * that take 8-bit controls): written as its \u escape, the same
             * character to a JSON reader */
            fprintf(f, "\\u%04x", p[1]);
            p++;
        }
        else {
            /* copy a valid UTF-8 sequence (pt_utf8_len: no overlong form, no
             * surrogate, so the output always decodes), escape a stray byte */
            size_t n = pt_utf8_len(p, 4);
            if (n) { fwrite(p, 1, n, f); p += n - 1; }
            else fprintf(f, "\\u%04x", c);
        }
    }
    fputc('"', f);
}
