/* tpatterns_file: a trace patterns file (probetop-formats(5), TRACE
 * PATTERNS) read into the patterns the trace reader classifies with:
 * `probetop trace --patterns FILE` and `probetop TRACES --patterns FILE`
 * both read it here, before any load. */
#ifndef PT_IO_TPATTERNS_FILE_H
#define PT_IO_TPATTERNS_FILE_H

#include "model/err.h"
#include "model/trace/tpatterns.h"

/* The defaults with the file's keys instead (tpatterns_parse); NULL with
 * err: the file unreadable, or "FILE:LINE: ..." for a bad line. */
struct tpatterns *tpatterns_file_read(const char *path, struct pt_error *err);

#endif
