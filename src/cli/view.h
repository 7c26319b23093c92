/* `weft view` (src/server/view.h): the web timeline of a loaded merge. */
#ifndef WEFT_CLI_VIEW_H
#define WEFT_CLI_VIEW_H

#include "merge.h"
#include "subcommands.h"

/* Serves the view of `w` (loaded from `inputs` with `merge`'s flags) until
 * stopped; closes w. Returns the process exit status. */
int cli_view_serve(const cli_mode *mode, weft *w, const weft_options *options,
                   const cli_merge *merge, const char *const *inputs, int count);

#endif
