/* tfrecord: the record framing of TensorBoard event files (and of every
 * TFRecord file): each record is
 *     uint64 length (little endian)
 *     uint32 masked CRC-32C of those 8 bytes
 *     length bytes of data
 *     uint32 masked CRC-32C of the data
 * where masked(c) = ((c >> 15) | (c << 17)) + 0xa282ead8 (probetop-formats(5),
 * TRAINING CURVES: TensorBoard event files).  CRC-32C (Castagnoli,
 * reflected polynomial 0x82f63b78) is computed here, table-driven. */
#ifndef PT_IO_TFRECORD_H
#define PT_IO_TFRECORD_H

#include <stddef.h>
#include <stdint.h>

/* The CRC-32C of n bytes, continued from crc (0 to start). */
uint32_t tfrecord_crc32c(uint32_t crc, const void *p, size_t n);
uint32_t tfrecord_mask(uint32_t crc);

enum tfrecord_status {
    TFRECORD_OK,          /* a record: *data, *dlen; the cursor is past it */
    TFRECORD_END,         /* no byte left */
    TFRECORD_TRUNCATED,   /* the file ends inside a record (cursor unchanged) */
    TFRECORD_BAD_LENGTH,  /* the length's CRC does not match: framing lost (cursor unchanged) */
    TFRECORD_BAD_DATA,    /* the data's CRC does not match: the cursor is past the record */
};

struct tfrecord_cursor {
    const uint8_t *buf;
    size_t len, off;      /* off: the next record's first byte */
};

/* The record at c->off (see the statuses). */
enum tfrecord_status tfrecord_next(struct tfrecord_cursor *c, const uint8_t **data, size_t *dlen);

/* After TFRECORD_BAD_LENGTH: the first offset after c->off where a whole
 * record checks (both CRCs), or c->len when none does. */
size_t tfrecord_resync(const struct tfrecord_cursor *c);

/* A header (12 bytes at p) whose length CRC matches: 1 (*len set), else 0. */
int tfrecord_header_ok(const uint8_t *p, uint64_t *len);

#endif
