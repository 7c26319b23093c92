/* gecko: the Firefox Profiler importer's shared parts (see gecko_import.c
 * for the format and the rules): the importer's state, and reading the
 * spans of JSON values the profile is walked through (gecko_json.c). */
#ifndef WEFT_GECKO_INTERNAL_H
#define WEFT_GECKO_INTERNAL_H

#include "import/importer.h"

/* A JSON value of the file: [begin, end) bytes, and its first token's type. */
typedef struct gecko_span {
  size_t begin, end;
  json_token_type type;
} gecko_span;

#define GECKO_THREAD_EVENT 255u /* a marker record that makes its thread */

typedef struct gecko_marker {
  int64_t ts;
  int64_t dur;        /* phase 1 */
  gecko_span data;    /* type JSON_TOK_EOF: none */
  uint32_t thread;    /* index into gecko_state.threads */
  uint32_t phase;     /* 0..3, or GECKO_THREAD_EVENT */
  string_id name, category;
} gecko_marker;

typedef struct gecko_thread {
  int64_t tid, pid;
  string_id name;
  uint32_t utid;
  int made;
  int has_first;      /* first_sample holds its first sample's time */
  int64_t first_sample;
} gecko_thread;

typedef VEC(gecko_span) gecko_spans;

/* A stack sample: pushed with GECKO_SAMPLE_BIT | its index. */
#define GECKO_SAMPLE_BIT (UINT64_C(1) << 63)
typedef struct gecko_sample {
  int64_t ts;
  uint32_t thread, callsite;
} gecko_sample;

typedef struct gecko_state {
  uint32_t clock;
  json_limits limits;
  gecko_spans categories;
  VEC(gecko_thread) threads;
  VEC(gecko_marker) markers;
  VEC(gecko_sample) samples;
  int64_t dropped;    /* markers without the times their phase needs */
} gecko_state;

typedef int (*gecko_member_fn)(import_file *f, void *user, const char *key, size_t key_len,
                               const gecko_span *value, base_error *err);

/* A tokenizer over the value `s` alone. */
int gecko_tokenizer(import_file *f, const gecko_span *s, json_tokenizer *t, base_error *err);
/* The span of the value whose first token `t` was just read from tk, whose
 * buffer starts at file offset `base`. */
int gecko_value_span(json_tokenizer *tk, size_t base, const json_token *t, gecko_span *out,
                     base_error *err);
/* Calls fn for each member of the object `s` (keys as raw bytes). */
int gecko_members(import_file *f, const gecko_span *s, gecko_member_fn fn, void *user,
                  base_error *err);
/* The elements of the array `s` (none when it is not an array). */
int gecko_elements(import_file *f, const gecko_span *s, gecko_spans *out, base_error *err);
int gecko_key_is(const char *key, size_t len, const char *name);
/* A number or numeric string value; 0 if it is neither. */
int gecko_number(import_file *f, const gecko_span *s, double *out);
/* Milliseconds to ns as Perfetto converts them; 0 when out of range. */
int gecko_ms_to_ns(double ms, int64_t *ns);
/* Interns a string value's text (unescaped); STRING_NULL for others. */
int gecko_intern(import_file *f, const gecko_span *s, string_id *out);
/* s as an index below n (0: not one). */
int gecko_index(import_file *f, const gecko_span *s, size_t n, size_t *out);
/* s (ms) as ns (0: not a time). */
int gecko_time(import_file *f, const gecko_span *s, int64_t *ns);

/* Reads a thread's stack samples (gecko_samples.c): interns its frames and
 * callsites into the stack_profile tables and records one gecko_sample per
 * sample with a stack. */
int gecko_read_samples(import_file *f, uint32_t thread, const gecko_span *thread_value,
                       const gecko_spans *strings, base_error *err);

#endif
