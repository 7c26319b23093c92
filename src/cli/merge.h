/* merge: the command line's merge options, compiled to a perfetto_manifest.
 *
 * Per-file flags (--machine FILE=NAME, --sync FILE=REF, --clock FILE=CLOCK,
 * --ref-clock FILE=CLOCK, --offset FILE=DURATION, --trace-time
 * [FILE=]CLOCK) or a whole manifest (--manifest FILE) describe how the
 * inputs are merged. Loading feeds the generated (or given) manifest before
 * the inputs, exactly as if all were packed in one archive; `weft merge`
 * writes that archive. Owns the flag values it collects (pointers into argv)
 * and nothing else; cli_merge_free releases its arrays. */
#ifndef WEFT_CLI_MERGE_H
#define WEFT_CLI_MERGE_H

#include <stdint.h>

#include "weft/weft.h"

typedef struct cli_merge_flag {
  const char *flag;  /* e.g. "--machine" */
  const char *file;  /* the FILE of FILE=VALUE (NULL for --trace-time CLOCK) */
  const char *value;
} cli_merge_flag;

typedef struct cli_merge {
  const char *manifest_path; /* --manifest, or NULL */
  cli_merge_flag *flags;
  int flag_count;
} cli_merge;

/* If argv[*i] is a merge flag, takes it (and its value, advancing *i) and
 * returns 1; 0 if it is not one; -1 (message printed) on a bad value. */
int cli_merge_take_flag(cli_merge *m, int argc, char **argv, int *i);
/* A duration as --offset takes it ("250ms", "-1.5s", "42ns", a bare number
 * of ns) in ns: 0, or -1 when malformed. */
int cli_merge_parse_duration(const char *s, int64_t *out);
/* True if any flag or --manifest was given. */
int cli_merge_active(const cli_merge *m);
/* Loads the inputs through `w` with the merge options applied (does not
 * call weft_load_finish). Returns 0, or -1 with the message in
 * weft_errmsg(w) or already printed. */
int cli_merge_load(weft *w, const cli_merge *m, const char *const *inputs,
                   int count);
/* `weft merge`: writes a ZIP or TAR (by out_path's extension) holding
 * perfetto_manifest.json and the inputs. Returns 0 or -1 (message printed). */
int cli_merge_write(const cli_merge *m, const char *const *inputs, int count,
                    const char *out_path);
/* The perfetto_manifest.json that `weft merge` would write for these
 * inputs (files named by their member names, the inputs' base names), to
 * free(); NULL on failure (message printed). */
char *cli_merge_manifest(const cli_merge *m, const char *const *inputs, int count);
void cli_merge_free(cli_merge *m);

#endif
