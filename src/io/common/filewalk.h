/* filewalk: the files of one format under a folder, for the readers whose
 * input is a file or a folder holding such files a few levels down
 * (profiler traces, TensorBoard event files).  The walk lists, recurses,
 * leaves out what cannot be listed with a note, bounds the depth and the
 * number of files; the reader says which folders to pass over and which
 * files are its own.
 *
 * Detection walks with a budget (probe): it stops at the first file taken,
 * and after looking into *budget folders and file heads in all, so that
 * saying a dump of 1000 rank folders is no trace does not read it. */
#ifndef PT_IO_FILEWALK_H
#define PT_IO_FILEWALK_H

#include <stddef.h>
#include <sys/stat.h>

#include "model/cube/dataset.h"
#include "model/err.h"

struct filewalk_list {
    char **v;          /* paths (owned) in walk order */
    size_t n, cap;
};

struct filewalk {
    int max_depth;                 /* folders below the root looked into */
    size_t max_files;              /* more is an error ("more than N <what>") */
    const char *what;              /* "trace files" */
    int (*skip_dir)(const char *name);
    /* A regular file at path (its name, its stat): 1 it is one (taken),
     * 0 not, -1 a file of the format's name that is not one (at the root
     * of a load, noted as skipped).  budget is NULL outside detection;
     * an accept that reads the file takes one from it (--*budget) first,
     * and takes nothing once it is below 0. */
    int (*accept)(const char *name, const char *path, const struct stat *st, int *budget);
};

/* Appends the files under dir to out.  Detection (probe, budget set):
 * stops at the first, never fails, ds and err may be NULL.  A load: a
 * sub-folder that cannot be listed is a note in ds and left out; the root,
 * an error.  0, or -1 with err (the root, too many files, memory). */
int filewalk_run(const struct filewalk *w, const char *dir, struct filewalk_list *out, struct dataset *ds,
                 int *budget, struct pt_error *err);
void filewalk_list_free(struct filewalk_list *l);

#endif
