/* tfevents_pb: the protobuf wire format of TensorBoard's Event records,
 * decoded by hand (no protobuf library), only as far as scalars go:
 *   Event        wall_time 1 (double), step 2 (int64), file_version 3,
 *                summary 5 (Summary); the rest skipped
 *   Summary      value 1 (repeated Value)
 *   Value        tag 1, simple_value 2 (float), tensor 8 (TensorProto),
 *                metadata 9 (SummaryMetadata)
 *   SummaryMetadata  plugin_data 1 { plugin_name 1 }, data_class 4
 *   TensorProto  dtype 1, tensor_shape 2 { dim 2 { size 1 } },
 *                tensor_content 4, float_val 5, double_val 6, half_val 13
 * (probetop-formats(5), TRAINING CURVES: TensorBoard event files, names
 * the .proto files).  Unknown fields are skipped by their wire type; a
 * varint longer than 10 bytes, a length past its message's end, a wire
 * type protobuf does not have (or a group) is malformed. */
#ifndef PT_IO_TFEVENTS_PB_H
#define PT_IO_TFEVENTS_PB_H

#include <stddef.h>
#include <stdint.h>

/* One Summary.Value of an Event, as far as it is a scalar. */
struct tfevents_pb_value {
    const uint8_t *tag;           /* not NUL-terminated */
    size_t tag_len;
    const uint8_t *plugin;        /* metadata.plugin_data.plugin_name, NULL when the value has no metadata */
    size_t plugin_len;
    int data_class;               /* metadata.data_class, 0 when not given */
    int kind;                     /* TFEVENTS_PB_* */
    double value;                 /* the scalar, for SIMPLE and TENSOR */
};

enum {
    TFEVENTS_PB_NONE,             /* no value this reader reads (image, histogram, audio, a string tensor...) */
    TFEVENTS_PB_SIMPLE,           /* simple_value */
    TFEVENTS_PB_TENSOR,           /* a one-element DT_FLOAT, DT_DOUBLE, DT_HALF or DT_BFLOAT16 tensor */
    TFEVENTS_PB_OTHER_TENSOR,     /* a tensor of another shape or type */
};

/* The top of one Event. */
struct tfevents_pb_event {
    int64_t step;
    double wall_time;
    const uint8_t *file_version;  /* NULL when absent */
    size_t file_version_len;
    const uint8_t *summary;       /* the Summary's bytes, NULL when absent */
    size_t summary_len;
};

/* Decodes the top of an Event record.  0, or -1 malformed (*why a static
 * string). */
int tfevents_pb_event(const uint8_t *p, size_t n, struct tfevents_pb_event *ev, const char **why);

typedef int (*tfevents_pb_fn)(void *ctx, const struct tfevents_pb_value *v);
/* Calls fn on every Value of a Summary's bytes, in order.  0; -1
 * malformed (*why set; the values before were given); or fn's non-zero
 * return, which stops. */
int tfevents_pb_summary(const uint8_t *p, size_t n, tfevents_pb_fn fn, void *ctx, const char **why);

#endif
