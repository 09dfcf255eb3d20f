/* Moved to model/util/fs.h (the utility layer); this header forwards
 * so that code written against the old place still builds. */
#include "model/util/fs.h"
