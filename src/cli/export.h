/* Exports of a loaded trace (`weft export FORMAT -o OUT`, `-e/--export
 * OUT`), written through the public API:
 * - sqlite (export_sqlite.c): every table and view (views materialised)
 *   as tables of an SQLite database, with column types;
 * - arrow_tar (export_arrow.c): a tar of one Arrow IPC file per table;
 * - json (export_json.c): the merged trace as one Chrome JSON trace, every
 *   machine in it.
 * Each returns 0, or -1 with a message in err. */
#ifndef WEFT_CLI_EXPORT_H
#define WEFT_CLI_EXPORT_H

#include <stddef.h>

#include "weft/weft.h"

int cli_export_sqlite(weft *w, const char *path, char *err, size_t err_size);
int cli_export_arrow_tar(weft *w, const char *path, char *err, size_t err_size);
int cli_export_json(weft *w, const char *path, char *err, size_t err_size);

/* Whether `format` is one of the above. */
int cli_export_format_known(const char *format);
/* Runs the export of `format` to `path`; the process exit status (the
 * error printed). */
int cli_export_run(weft *w, const char *format, const char *path);

#endif
