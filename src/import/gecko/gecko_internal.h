/* gecko: the Firefox Profiler importer's shared parts (see gecko_import.c
 * for the format and the rules): the importer's state, walking the
 * document's JSON values with one tokenizer (gecko_json.c), and a
 * thread's markers (gecko_markers.c) and stack samples (gecko_samples.c). */
#ifndef WEFT_GECKO_INTERNAL_H
#define WEFT_GECKO_INTERNAL_H

#include "import/importer.h"

/* A JSON value of the file: [begin, end) bytes, and its first token's type. */
typedef struct gecko_span {
  size_t begin, end;
  json_token_type type;
} gecko_span;

#define GECKO_THREAD_EVENT 255u /* a marker record that makes its thread */
#define GECKO_NO_INDEX UINT32_MAX

typedef struct gecko_marker {
  int64_t ts;
  int64_t dur;        /* phase 1 */
  uint32_t thread;    /* index into gecko_state.threads */
  uint32_t phase;     /* 0..3, or GECKO_THREAD_EVENT */
  uint32_t slot;      /* its name and category: index into
                         gecko_state.slots (thread events: none) */
  uint32_t data;      /* its data object: index into gecko_state.data
                         (GECKO_NO_INDEX: none) */
} gecko_marker;

/* A thread's markers of one name and category index: they share a track,
 * looked up at the first one's parse. */
typedef struct gecko_slot {
  uint32_t thread;
  string_id name;
  uint32_t category;       /* index into the thread's categories */
  string_id category_name; /* set with track */
  uint32_t track;          /* GECKO_NO_INDEX: not looked up yet */
} gecko_slot;

typedef struct gecko_thread {
  int64_t tid, pid;
  string_id name;
  uint32_t utid;
  int made;
  uint32_t categories, category_count; /* its profile's category names:
                         gecko_state.category_ids from `categories` on */
  int has_first;      /* first_sample holds its first sample's time */
  int64_t first_sample;
  int has_marker;     /* first_marker holds its earliest marker's time */
  int64_t first_marker;
} gecko_thread;

typedef VEC(gecko_span) gecko_spans;

/* A stack sample: pushed with GECKO_SAMPLE_BIT | its index. */
#define GECKO_SAMPLE_BIT (UINT64_C(1) << 63)
typedef struct gecko_sample {
  int64_t ts;
  uint32_t thread, callsite;
} gecko_sample;

/* A marker's sort key and index (gecko_order.c). */
typedef struct gecko_order_key {
  uint64_t key; /* ts with its sign bit flipped: unsigned order is ts order */
  size_t index;
} gecko_order_key;

/* gecko_order_markers' buffers, kept from thread to thread. */
typedef struct gecko_order {
  VEC(gecko_order_key) a, b;
  VEC(gecko_marker) sorted;
  size_t *count;
} gecko_order;

typedef struct gecko_state {
  uint32_t clock;
  json_limits limits;
  VEC(gecko_thread) threads;
  VEC(gecko_marker) markers;
  VEC(size_t) marker_breaks; /* each i with markers[i].ts < markers[i - 1].ts, in
                                order, kept by gecko_add_markers (which alone
                                appends the markers before the thread events) */
  VEC(gecko_sample) samples;
  gecko_spans data;   /* the markers' data objects */
  VEC(string_id) category_ids; /* the categories of every profile */
  VEC(gecko_slot) slots;
  base_map slot_map;  /* the thread being added's slots: name << 32 | category */
  struct gecko_thread_job *jobs; /* GECKO_THREADS_AHEAD, for reading threads */
  int64_t dropped;    /* markers without the times their phase needs */
} gecko_state;

/* Strings of a table (a thread's stringArray, the profile's categories),
 * each interned once, when first used. */
typedef struct gecko_strings {
  gecko_spans spans;
  VEC(string_id) ids; /* GECKO_NO_INDEX: not interned yet */
} gecko_strings;

/* ---- walking values (gecko_json.c) ----
 * A reader is a tokenizer over file bytes starting at `base`. A walk's
 * callback gets each value's first token and must consume the value: read
 * it, or take it as a span (gecko_take) or skip it (gecko_skip). */
typedef struct gecko_reader {
  import_file *f;
  json_tokenizer *tk;
  size_t base;
} gecko_reader;

typedef int (*gecko_member_fn)(gecko_reader *r, void *user, const json_token *key,
                               const json_token *value, base_error *err);
typedef int (*gecko_element_fn)(gecko_reader *r, void *user, const json_token *value,
                                 base_error *err);
typedef int (*gecko_span_fn)(import_file *f, void *user, const char *key, size_t key_len,
                             const gecko_span *value, base_error *err);

/* The members of the object whose '{' was just read. */
int gecko_walk_members(gecko_reader *r, gecko_member_fn fn, void *user, base_error *err);
/* The elements of the array whose '[' was just read. */
int gecko_walk_elements(gecko_reader *r, gecko_element_fn fn, void *user, base_error *err);
/* The span of the value whose first token `t` was just read. */
int gecko_take(gecko_reader *r, const json_token *t, gecko_span *out, base_error *err);
/* Consumes the value whose first token `t` was just read. */
int gecko_skip(gecko_reader *r, const json_token *t, base_error *err);
/* A reader over the value `s` alone (already read once, so well formed),
 * and its first token. Free tk with json_tokenizer_free. */
int gecko_open(import_file *f, const gecko_span *s, json_tokenizer *tk, gecko_reader *r,
               json_token *first, base_error *err);

/* The elements of the array value `t` as spans (none for other values). */
int gecko_read_spans(gecko_reader *r, const json_token *t, gecko_spans *out, base_error *err);

/* Calls fn for each member of the object `s` (keys as raw bytes). */
int gecko_members(import_file *f, const gecko_span *s, gecko_span_fn fn, void *user,
                  base_error *err);
/* The elements of the array `s` (none when it is not an array). */
int gecko_elements(import_file *f, const gecko_span *s, gecko_spans *out, base_error *err);
int gecko_key_is(const char *key, size_t len, const char *name);
int gecko_token_key_is(const json_token *key, const char *name);
/* A number or numeric string value; 0 if it is neither. */
int gecko_number(import_file *f, const gecko_span *s, double *out);
/* The same of a token just read; NaN if it is neither. */
double gecko_token_number(const json_token *t);
/* Milliseconds to ns as Perfetto converts them; 0 when out of range. */
int gecko_ms_to_ns(double ms, int64_t *ns);
/* Interns a string value's text (unescaped); STRING_NULL for others. */
int gecko_intern(import_file *f, const gecko_span *s, string_id *out);
/* s as an index below n (0: not one). */
int gecko_index(import_file *f, const gecko_span *s, size_t n, size_t *out);
/* s (ms) as ns (0: not a time). */
int gecko_time(import_file *f, const gecko_span *s, int64_t *ns);

/* Readies strings->ids for strings->spans; the interned string `i`. */
int gecko_strings_ready(gecko_strings *s);
int gecko_strings_get(import_file *f, gecko_strings *s, size_t i, string_id *out);
void gecko_strings_free(gecko_strings *s);

/* Reads the whole document (gecko_profile.c): threads, markers, samples. */
int gecko_read_document(import_file *f, base_error *err);

/* Sorts the n markers m stably by ts (gecko_order.c). */
int gecko_order_markers(gecko_order *o, gecko_marker *m, size_t n);
/* Frees gecko_order_markers' buffers. */
void gecko_order_free(gecko_order *o);
/* A marker's event payload. Most markers fit in it whole (GECKO_COMPACT:
 * phase, slot and a 32-bit dur), so that their parse reads no record; the
 * others carry their byte offset in st->markers (a prefetch hint for the
 * sorter: see gecko_locate_rule). */
#define GECKO_COMPACT (UINT64_C(1) << 62)
#define GECKO_COMPACT_SLOTS (UINT32_C(1) << 24)
static inline uint64_t gecko_marker_payload(const gecko_marker *m, size_t i) {
  if (m->phase <= 3 && m->data == GECKO_NO_INDEX && m->slot < GECKO_COMPACT_SLOTS &&
      (uint64_t)m->dur <= UINT32_MAX)
    return GECKO_COMPACT | (uint64_t)m->phase << 56 | (uint64_t)m->slot << 32 |
           (uint64_t)m->dur;
  return (uint64_t)i * sizeof(gecko_marker);
}
/* The marker a compact payload holds (ts from its event). */
static inline gecko_marker gecko_compact_marker(uint64_t payload, int64_t ts) {
  gecko_marker m = {.ts = ts, .dur = (int64_t)(payload & UINT32_MAX)};
  m.phase = (uint32_t)(payload >> 56) & 3;
  m.slot = (uint32_t)(payload >> 32) & (GECKO_COMPACT_SLOTS - 1);
  m.data = GECKO_NO_INDEX;
  return m;
}
/* Queues the events in time order: the thread events (st->markers from
 * n on), then the markers, then the samples, as the sorter would order
 * them queued one sequence after the other. */
int gecko_push_ordered(import_file *f, size_t n);

/* ---- markers (gecko_markers.c) ---- */

/* A thread's "markers" object as read: its columns (the processed
 * format), or its schema and rows (the Gecko format). Reused across
 * threads. */
typedef VEC(double) gecko_numbers;
typedef struct gecko_item {
  size_t index;
  gecko_span span;
} gecko_item;
typedef VEC(gecko_item) gecko_items;

enum { GK_NAME, GK_START, GK_END, GK_PHASE, GK_CATEGORY, GK_DATA, GK_FIELDS };

typedef struct gecko_marker_table {
  gecko_numbers columns[GK_DATA]; /* numeric columns; NaN: not a number */
  size_t data_len;                /* elements of the last array "data" */
  gecko_items data_items;         /* its containers, by element index */
  int data_is_column;             /* the last "data" is that array */
  gecko_span schema;
} gecko_marker_table;

/* Reads a "markers" value (first token t) into m, replacing it. */
int gecko_read_marker_table(gecko_reader *r, const json_token *t, gecko_marker_table *m,
                            base_error *err);
void gecko_marker_table_clear(gecko_marker_table *m);
void gecko_marker_table_free(gecko_marker_table *m);

/* ---- threads (gecko_threads.c) ---- */

/* The spans of a thread's sample tables. */
typedef struct gecko_stack_spans {
  gecko_span frames, funcs, stacks, samples;
} gecko_stack_spans;

/* A thread object as read: its members' values. */
typedef struct gecko_thread_read {
  gecko_span name, tid, pid;
  gecko_stack_spans stacks;
  gecko_strings strings;
  gecko_marker_table markers;
} gecko_thread_read;

/* A marker slot of one thread as its read finds it: a name (an index into
 * the thread's strings; GECKO_NO_INDEX: none) and a category index. */
typedef struct gecko_local_slot {
  uint32_t name, category;
  uint32_t slot; /* the state's slot, once the thread is added */
} gecko_local_slot;

/* How many threads are read ahead of the one being added. */
#define GECKO_THREADS_AHEAD 4

/* One thread's read, on a worker or in place: the thread object's members,
 * and its markers built and ordered, with slots and data still the
 * thread's own (indices into `slots` and `data`) and `thread` unset.
 * Nothing of it depends on other threads or on the trace context, so
 * that it may run while the thread before it is added. */
typedef struct gecko_thread_job {
  import_file *f;          /* read only: its bytes and limits */
  json_tokenizer tk;       /* at the thread object's first member */
  size_t base;             /* the reader's base */
  size_t end;              /* the object's end (tk's offsets); SIZE_MAX: not
                              known before it is read */
  scan_job *job;           /* the worker's job; NULL: read in place */
  int read_done;           /* read in place already */
  gecko_thread_read read;
  VEC(gecko_marker) markers;
  VEC(gecko_local_slot) slots;
  base_map slot_map;       /* name << 32 | category -> index into slots */
  gecko_spans data;        /* the markers' data objects */
  int64_t dropped;         /* markers without the times their phase needs */
  gecko_order order;
} gecko_thread_job;

/* Called in file order with each thread read: adds it to the state. */
typedef int (*gecko_thread_fn)(import_file *f, void *user, gecko_thread_job *j,
                               base_error *err);
/* Reads the elements of the "threads" array whose '[' was just read,
 * several at once when the load has workers, and hands each thread object
 * to fn in order. */
int gecko_read_threads(gecko_reader *r, gecko_thread_fn fn, void *user, base_error *err);
void gecko_threads_free(gecko_state *st);

/* Builds j's markers from its read marker table (gecko_markers.c). */
int gecko_build_markers(gecko_thread_job *j, base_error *err);
/* Adds j's markers to st->markers as those of `thread`: slots and data
 * objects become the state's. */
int gecko_add_markers(import_file *f, uint32_t thread, gecko_thread_job *j, base_error *err);

/* ---- stack samples (gecko_samples.c) ---- */

/* Reads a thread's stack samples: interns its frames and callsites into
 * the stack_profile tables and records one gecko_sample per sample with a
 * stack. */
int gecko_read_samples(import_file *f, uint32_t thread, const gecko_stack_spans *s,
                       const gecko_spans *strings, base_error *err);

#endif
