/* cli progress: one status line on stderr while a load runs.
 *
 * A reporter thread polls weft_get_progress (safe from another thread) and,
 * once a load has taken longer than a second, rewrites one line in place:
 * bytes and files done, MiB/s and time left while reading; events parsed,
 * events/s and time left while merging and parsing. It prints nothing when
 * stderr is not a terminal or when quiet; the line is erased at the end. */
#ifndef WEFT_CLI_PROGRESS_H
#define WEFT_CLI_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

#include "weft/weft.h"

typedef struct cli_progress cli_progress;

enum cli_progress_phase { CLI_PROGRESS_READING = 0, CLI_PROGRESS_PARSING = 1 };

/* Starts reporting on w's load of `total_files` files of `total_bytes`
 * (0 when unknown, e.g. pipes). Returns NULL, and shows nothing, when quiet,
 * when stderr is not a terminal, or when a thread cannot be started. */
cli_progress *cli_progress_start(weft *w, uint64_t total_bytes,
                                 uint32_t total_files, int quiet);
/* Tells the reporter that reading ended and weft_load_finish runs. */
void cli_progress_phase(cli_progress *p, enum cli_progress_phase phase);
/* Stops the thread and erases the line. NULL is a no-op. */
void cli_progress_stop(cli_progress *p);

/* The text of the line (no control characters) for progress `now`, seconds
 * since the load began and since the parsing phase began (< 0: reading). */
void cli_progress_format(char *buf, size_t cap, const weft_load_progress *now,
                         uint64_t total_bytes, uint32_t total_files,
                         double elapsed_s, double parsing_s);

#endif
