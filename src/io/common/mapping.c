/* mapping: the --mapping file, a JSON object of ordered substring
 * replacements of target names, read once and used by the dump and
 * monitor readers alike. */
#include "src/io/common/mapping.h"

#include <stdlib.h>
#include <string.h>

#include "model/util/util.h"
#include "src/io/common/json.h"

uint64_t mapping_hash(const struct mapping *m) {
    uint64_t h = 0;
    for (size_t k = 0; m && k < m->n; k++) {
        h = util_hash(m->from[k], strlen(m->from[k]) + 1, h);
        h = util_hash(m->to[k], strlen(m->to[k]) + 1, h);
    }
    return h;
}

void mapping_free(struct mapping *m) {
    for (size_t i = 0; i < m->n; i++) { free(m->from[i]); free(m->to[i]); }
    free(m->from);
    free(m->to);
    memset(m, 0, sizeof *m);
}

int mapping_read(const char *path, struct mapping *m, struct pt_error *err) {
    cJSON *root;
    memset(m, 0, sizeof *m);
    if (json_side_file(path, &root, err) != 0) return -1;
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return pt_errorf(err, "%s: a mapping file must be a JSON object {\"old\": \"new\", ...}", path);
    }
    size_t n = (size_t)cJSON_GetArraySize(root);
    m->from = calloc(n ? n : 1, sizeof *m->from);
    m->to = calloc(n ? n : 1, sizeof *m->to);
    if (!m->from || !m->to) { cJSON_Delete(root); mapping_free(m); return pt_errorf(err, "%s: out of memory", path); }
    const cJSON *it;
    cJSON_ArrayForEach(it, root) {
        if (!cJSON_IsString(it) || !it->string) {
            char esc[128];
            pt_escape(it->string ? it->string : "", it->string ? strlen(it->string) : 0, esc, sizeof esc);
            cJSON_Delete(root);
            mapping_free(m);
            return pt_errorf(err, "%s: key \"%s\": the replacement must be a string", path, esc);
        }
        if (!it->string[0]) continue;   /* replacing "" would insert everywhere; msProbe users never mean it */
        m->from[m->n] = strdup(it->string);
        m->to[m->n] = strdup(it->valuestring);
        if (!m->from[m->n] || !m->to[m->n]) {
            m->n++;
            cJSON_Delete(root);
            mapping_free(m);
            return pt_errorf(err, "%s: out of memory", path);
        }
        m->n++;
    }
    cJSON_Delete(root);
    return 0;
}
