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
/* How `weft merge` checks what it writes. */
typedef struct cli_merge_checks {
  const weft_options *options; /* for the check's load */
  int validate;                /* load the would-be archive first */
  int strict;                  /* its warnings fail the merge */
  int quiet;                   /* no warnings printed (failures still are) */
} cli_merge_checks;

/* `weft merge` (merge_write.c): writes a ZIP or TAR (by out_path's
 * extension) holding perfetto_manifest.json and the inputs, through a
 * temporary file in out_path's directory renamed over it on success only.
 * Refuses missing inputs and inputs that are merged archives themselves;
 * the manifest is always checked, the whole merge loaded when
 * checks->validate. Returns 0 or -1 (message printed). */
int cli_merge_write(const cli_merge *m, const char *const *inputs, int count,
                    const char *out_path, const cli_merge_checks *checks);

/* Shared with merge_write.c: the part of `path` after its last '/'. */
const char *cli_merge_basename(const char *path);
/* The manifest the flags describe, for inputs named `names` in it (a
 * string to free()), or NULL (message printed). */
char *cli_merge_manifest(const cli_merge *m, const char *const *names,
                         const char *const *inputs, int count);
/* The perfetto_manifest.json that `weft merge` would write for these
 * inputs (the --manifest file's text, else the one the flags describe for
 * the inputs' member names), to free(); NULL on failure (message printed). */
char *cli_merge_archive_manifest(const cli_merge *m, const char *const *inputs, int count);
void cli_merge_free(cli_merge *m);

#endif
