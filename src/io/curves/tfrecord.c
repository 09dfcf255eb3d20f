/* tfrecord: record framing and CRC-32C (see tfrecord.h). */
#include "src/io/curves/tfrecord.h"

#include <pthread.h>
#include <string.h>

/* Slicing by 8: table[k][b] is the CRC of byte b followed by k zero bytes,
 * so eight bytes fold in with eight lookups and no dependency between them. */
static uint32_t crc_table[8][256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_init(void) {
    for (uint32_t b = 0; b < 256; b++) {
        uint32_t c = b;
        for (int k = 0; k < 8; k++) c = c & 1 ? (c >> 1) ^ 0x82f63b78u : c >> 1;
        crc_table[0][b] = c;
    }
    for (uint32_t b = 0; b < 256; b++)
        for (int k = 1; k < 8; k++) crc_table[k][b] = (crc_table[k - 1][b] >> 8) ^ crc_table[0][crc_table[k - 1][b] & 0xff];
}

static uint32_t le32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

uint32_t tfrecord_crc32c(uint32_t crc, const void *data, size_t n) {
    pthread_once(&crc_once, crc_init);
    const uint8_t *p = data;
    uint32_t c = ~crc;
    while (n >= 8) {
        uint32_t lo = le32(p) ^ c, hi = le32(p + 4);
        c = crc_table[7][lo & 0xff] ^ crc_table[6][(lo >> 8) & 0xff] ^ crc_table[5][(lo >> 16) & 0xff] ^ crc_table[4][lo >> 24] ^
            crc_table[3][hi & 0xff] ^ crc_table[2][(hi >> 8) & 0xff] ^ crc_table[1][(hi >> 16) & 0xff] ^ crc_table[0][hi >> 24];
        p += 8;
        n -= 8;
    }
    while (n--) c = (c >> 8) ^ crc_table[0][(c ^ *p++) & 0xff];
    return ~c;
}

uint32_t tfrecord_mask(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + 0xa282ead8u; }

int tfrecord_header_ok(const uint8_t *p, uint64_t *len) {
    if (tfrecord_mask(tfrecord_crc32c(0, p, 8)) != le32(p + 8)) return 0;
    *len = (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
    return 1;
}

enum tfrecord_status tfrecord_next(struct tfrecord_cursor *c, const uint8_t **data, size_t *dlen) {
    size_t left = c->len - c->off;
    if (left == 0) return TFRECORD_END;
    if (left < 12) return TFRECORD_TRUNCATED;
    const uint8_t *p = c->buf + c->off;
    uint64_t n;
    if (!tfrecord_header_ok(p, &n)) return TFRECORD_BAD_LENGTH;
    if (n > left - 12 || left - 12 - n < 4) return TFRECORD_TRUNCATED;
    *data = p + 12;
    *dlen = (size_t)n;
    c->off += 12 + (size_t)n + 4;
    return tfrecord_mask(tfrecord_crc32c(0, p + 12, (size_t)n)) == le32(p + 12 + n) ? TFRECORD_OK : TFRECORD_BAD_DATA;
}

size_t tfrecord_resync(const struct tfrecord_cursor *c) {
    for (size_t o = c->off + 1; o + 16 <= c->len; o++) {
        uint64_t n;
        if (!tfrecord_header_ok(c->buf + o, &n) || n > c->len - o - 16) continue;
        const uint8_t *d = c->buf + o + 12;
        if (tfrecord_mask(tfrecord_crc32c(0, d, (size_t)n)) == le32(d + n)) return o;
    }
    return c->len;
}
