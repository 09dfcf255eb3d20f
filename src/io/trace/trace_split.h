/* trace_split: one big trace file parsed on two threads (probetop-formats(5),
 * PROFILER TRACES: Memory).  The mapped event list is cut at an event
 * boundary guessed from the middle (a '}', a ',' and a '{'); a second
 * thread parses from there to the end while the first parses from the
 * start.  The guess is proven by the first half: only when its tokenizer
 * reaches an event of the list starting at that very byte (not one inside
 * a string or an object) are the halves merged; the second half's records
 * are then appended to the first's as one pass would have made them (names
 * interned in order, process groups looked up in order).  Anything one
 * pass would make differently (torch_npu device processes, lumped names,
 * distributedInfo after the list, a spilled stream, an error) leaves the
 * second half unused and the first parses on. */
#ifndef PT_TRACE_SPLIT_H
#define PT_TRACE_SPLIT_H

#include <stddef.h>
#include <stdint.h>

/* (trace_parse() itself is defined in trace_split.c: the one-pass parse
 * calls the split through hooks, never the other way round.) */

/* Where the second half starts in text[0, n): the '{' of an event after
 * byte from ('}' ',' '{' with white space between), or -1 within limit
 * bytes.  Only a guess: trace_split_meet's caller proves it. */
long long trace_split_guess(const char *text, size_t n, size_t from, size_t limit);

#endif
