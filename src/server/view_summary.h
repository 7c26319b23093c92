/* server: the viewport summary of the web view (docs/view.md): for a time
 * window and a width in pixels, per track one bucket per pixel. */
#ifndef WEFT_SERVER_VIEW_SUMMARY_H
#define WEFT_SERVER_VIEW_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include "rpc_wire.h"
#include "view_index.h"

#define VIEW_MAX_PX 16384u

/* Writes the summary JSON of the tracks `vids` (every track when NULL) over
 * [start, end) at px pixels into out, readying the tracks first
 * (view_index_ready). 0, -1 when out is full or memory ran out while
 * writing, -2 when it ran out readying the tracks. */
int view_summary_json(view_index *ix, int64_t start, int64_t end, uint32_t px,
                      const uint32_t *vids, size_t vid_count, rpc_buf *out);

#endif
