/* tpatterns_file: a trace patterns file read (see tpatterns_file.h). */
#include "src/io/trace/tpatterns_file.h"

#include <stdlib.h>

#include "src/io/common/json.h"

struct tpatterns *tpatterns_file_read(const char *path, struct pt_error *err) {
    char *text = NULL;
    size_t len = 0;
    if (json_read_file(path, (size_t)1 << 20, &text, &len, err)) return NULL;
    struct tpatterns *p = tpatterns_new(err);
    if (p && tpatterns_parse(p, text, len, path, err)) {
        tpatterns_free(p);
        p = NULL;
    }
    free(text);
    return p;
}
