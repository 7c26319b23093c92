/* manifest: reads and validates a `perfetto_manifest` document (see
 * shared/seeds/trace-manifest-format.md) into a plain C struct.
 *
 * Owns: every string and array of a parsed manifest (one arena, released by
 * manifest_free). Pointers into it stay valid until manifest_free.
 *
 * Invariants after a successful manifest_parse:
 *  - version == 1; every clock is a MANIFEST_CLOCK_* value (NONE = omitted);
 *  - strings are NUL-terminated UTF-8-or-bytes without embedded NUL;
 *  - file paths are unique and non-empty; no entry has both machine and
 *    machines; machine names are non-empty; machines ids are unique per file;
 *  - every clocks block has sync_to.file naming an entry of files (its index
 *    in sync_to.file_index), and the sync_to links between files have no
 *    cycle; every clocks.machine / sync_to.machine / trace_time.machine names
 *    a machine declared by the file it refers to, and trace_time.file (if any)
 *    names an entry of files;
 *  - offset_ns is never INT64_MIN.
 * Checks that need the trace contents (undeclared embedded machine ids,
 * multi-machine files, pinning a file that emits snapshots) are left to the
 * caller; manifest_check_machine_id and manifest_check_multi_machine give
 * their exact error texts.
 *
 * Every error message starts with "perfetto_manifest: ". Unknown fields are
 * ignored (their values are still validated as JSON); a known field given
 * twice in one object is an error. */
#ifndef WEFT_MANIFEST_H
#define WEFT_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/base.h"
#include "base/json_tokenizer.h"

/* Builtin clock ids (builtin_clock.proto). */
#define MANIFEST_CLOCK_NONE 0u /* clock omitted */
#define MANIFEST_CLOCK_REALTIME 1u
#define MANIFEST_CLOCK_REALTIME_COARSE 2u
#define MANIFEST_CLOCK_MONOTONIC 3u
#define MANIFEST_CLOCK_MONOTONIC_COARSE 4u
#define MANIFEST_CLOCK_MONOTONIC_RAW 5u
#define MANIFEST_CLOCK_BOOTTIME 6u

typedef struct manifest_machine {
  uint32_t id;      /* embedded machine id, [0, 4294967295] */
  const char *name; /* non-empty */
} manifest_machine;

typedef struct manifest_sync_to {
  const char *file;     /* path of an entry of files */
  size_t file_index;    /* that entry's index in manifest.files */
  const char *machine;  /* or NULL */
  uint32_t clock;       /* NONE: the file's private timeline (PIN) */
} manifest_sync_to;

typedef struct manifest_clocks {
  uint32_t clock;       /* NONE: the file is clockless (PIN) */
  const char *machine;  /* or NULL */
  manifest_sync_to sync_to;
  int64_t offset_ns;    /* default 0 */
} manifest_clocks;

typedef struct manifest_file {
  const char *path;
  const char *machine;         /* "machine": {"name": ...}, or NULL */
  bool has_machines;           /* "machines" given (possibly empty) */
  const manifest_machine *machines; /* document order */
  size_t machine_count;
  bool has_clocks;
  manifest_clocks clocks;      /* valid when has_clocks */
  /* private: machines sorted by id and by name, for lookups */
  const manifest_machine *machines_by_id_;
  const manifest_machine *machines_by_name_;
} manifest_file;

typedef struct manifest_trace_time {
  bool present;
  uint32_t clock;       /* never NONE when present */
  const char *file;     /* or NULL */
  const char *machine;  /* or NULL (only with file) */
} manifest_trace_time;

/* "attributes": {"key": "string" | integer, ...}, in document order. */
typedef struct manifest_attribute {
  const char *key;
  bool is_int;
  int64_t int_value;     /* when is_int */
  const char *str_value; /* when !is_int */
} manifest_attribute;

/* weft_clock_interpolation, a field of weft's own (Perfetto ignores it). */
#define MANIFEST_INTERPOLATION_UNSET 0u
#define MANIFEST_INTERPOLATION_NEAREST 1u
#define MANIFEST_INTERPOLATION_LINEAR 2u

typedef struct manifest {
  int64_t version;
  uint32_t weft_clock_interpolation; /* MANIFEST_INTERPOLATION_* */
  manifest_trace_time trace_time;
  const manifest_file *files; /* document order */
  size_t file_count;
  const manifest_attribute *attributes;
  size_t attribute_count;
  /* private */
  const manifest_file **files_by_path_;
  base_arena arena_;
} manifest;

/* True if the contents, after leading JSON whitespace, start with
 * {"perfetto_manifest" . Whitespace between '{' and the key is also accepted
 * (a pretty-printed manifest is still unambiguously a manifest). */
bool manifest_detect(const char *data, size_t len);

/* Parses and validates. On failure *out holds nothing (manifest_free is
 * still safe). Codes: WEFT_EPARSE, WEFT_EUNSUPPORTED (version),
 * WEFT_ELIMIT (JSON limits), WEFT_ENOMEM. */
int manifest_parse(const char *data, size_t len, manifest *out, base_error *err);
/* The same within JSON limits (nesting depth, raw bytes of one string or
 * key; NULL or 0 = the tokenizer's defaults): exceeding one fails with
 * WEFT_ELIMIT, a message naming the limit and the option that sets it
 * (--max-json-depth, --max-string). */
int manifest_parse_limited(const char *data, size_t len, const json_limits *limits,
                           manifest *out, base_error *err);
void manifest_free(manifest *m);

/* Lookups (O(log n)); NULL when absent. */
const manifest_file *manifest_find_file(const manifest *m, const char *path);
const manifest_machine *manifest_file_find_machine_id(const manifest_file *f,
                                                      uint32_t id);
const manifest_machine *manifest_file_find_machine_name(const manifest_file *f,
                                                        const char *name);
/* True if `name` is the file's machine.name or one of its machines names. */
bool manifest_file_declares_machine(const manifest_file *f, const char *name);

/* For the importer, once trace contents are known:
 * a packet of file f carries embedded machine id `id`. Fails (EPARSE,
 * "perfetto_manifest: machines: trace has a packet from undeclared machine
 * id N") when f declares machines and not this id. */
int manifest_check_machine_id(const manifest_file *f, uint32_t id,
                              base_error *err);
/* File `path` turned out to hold several machines: fails if its own clocks
 * block lacks clocks.machine, or another file's sync_to names it without
 * sync_to.machine, with the reference implementation's texts. */
int manifest_check_multi_machine(const manifest *m, const char *path,
                                 base_error *err);

/* "BOOTTIME" for MANIFEST_CLOCK_BOOTTIME, ...; NULL for others. */
const char *manifest_clock_name(uint32_t clock);
/* MANIFEST_CLOCK_* for a name, MANIFEST_CLOCK_NONE if unknown. */
uint32_t manifest_clock_from_name(const char *name, size_t len);

#endif
