/* json_internal: what the Chrome JSON importer's files share.
 *
 * json_import.c tokenizes the file (top-level keys, the event array, the
 * order events are pushed in); json_event.c decodes one event object into a
 * json_event; json_apply.c applies events to the model; json_flow.c binds
 * flow events. Strings in a json_event point into the file's bytes unless
 * they had escapes (then `owned` holds the decoded copy); json_event_free
 * releases those. */
#ifndef WEFT_JSON_INTERNAL_H
#define WEFT_JSON_INTERNAL_H

#include "import/importer.h"
#include "base/json_tokenizer.h"
#include "model/columns.h"
#include "model/track_compressor.h"
#include "model/v8_profile.h"

/* json_async.c's sets of async tracks (see there). */
typedef struct json_async_state {
  track_compressor tracks; /* sets of interchangeable async tracks */
  base_map root_names;     /* cookie (and upid) -> string_id of its first name */
} json_async_state;

/* A V8 CPU profile sample pushed to the sorter (JSON_V8_PAYLOAD | index). */
typedef struct json_v8_sample {
  uint32_t callsite;
  int64_t pid, tid;
} json_v8_sample;

typedef struct json_state {
  uint32_t clock;
  json_limits limits;
  size_t systrace_offset, systrace_len; /* raw "systemTraceEvents" string */
  int has_systrace;
  char *systrace_text; /* decoded, owned; its lines are pushed with
                          JSON_SYSTRACE_PAYLOAD | line offset */
  size_t systrace_text_len;
  json_async_state async;
  VEC(struct json_v8_sample) v8_samples; /* pushed V8 CPU profile samples */
  VEC(struct json_counter_sample) counters; /* samples whose rows wait for the end */
  VEC(struct json_sort_hint) sort_hints; /* process/thread hints waiting for the end */
} json_state;

/* A process_sort_index / thread_sort_index metadata event's hint: its arg
 * set is written once the file's events are parsed (before the counters'
 * tracks), where Perfetto writes it: processes first, then threads, each
 * by upid / utid. */
typedef struct json_sort_hint {
  int64_t value;
  size_t order; /* the event's place among the hints */
  uint32_t row;
  int is_process;
} json_sort_hint;

/* A counter sample (a "C" event's numeric arg): its thread's arg set is
 * written when it is parsed, but its track and row only once the file's
 * events are parsed, in parse order, as Perfetto makes them. */
typedef struct json_counter_sample {
  int64_t ts, arg_set;
  double value;
  uint32_t upid;
  string_id name; /* "<name>[ id: <id>] <arg>" */
} json_counter_sample;

/* Writes the sort hints' arg sets, then makes the tracks and rows of the
 * counter samples (json_apply.c). */
int json_counters_end(import_file *f);

/* The tokenizer limits the load's options ask for. */
static inline json_limits json_limits_of(const weft_options *o) {
  json_limits limits = {o->max_json_depth, o->max_string_bytes};
  return limits;
}

/* json_tokenizer_init for trace files: trailing commas are accepted
 * (Perfetto's reader does; Chrome and Node write them). */
static inline int json_trace_tokenizer_init(json_tokenizer *t, const char *buf, size_t len,
                                            const json_limits *limits, base_error *err) {
  int rc = json_tokenizer_init(t, buf, len, limits, err);
  t->trailing_commas = true;
  return rc;
}

/* Sort payloads of systemTraceEvents lines (others: event offsets). */
#define JSON_SYSTRACE_PAYLOAD (UINT64_C(1) << 63)
/* Sort payloads of V8 CPU profile samples (their index in v8_samples);
 * they carry the systrace bit too, so that they have no place in the file. */
#define JSON_V8_PAYLOAD (JSON_SYSTRACE_PAYLOAD | (UINT64_C(1) << 62))
static inline int json_is_v8_payload(uint64_t payload) {
  return (payload & JSON_V8_PAYLOAD) == JSON_V8_PAYLOAD;
}

typedef struct json_str {
  const char *ptr; /* NULL = absent */
  size_t len;
  char *owned;     /* decoded copy, or NULL */
} json_str;

/* A time field (ts, dur, tts, tdur): microseconds in the file, ns here. */
typedef struct json_time {
  int present; /* the key was there (any value) */
  int valid;   /* its value converted: a number or a numeric string */
  int64_t ns;
} json_time;

/* A flow identifier: a number, or a string read as hex. */
typedef struct json_flow_ref {
  int present, valid;
  uint64_t value;
} json_flow_ref;

typedef struct json_event {
  char ph;
  json_str name, cat, scope, bp;
  json_str id, id2_local, id2_global; /* as strings (numbers: their text) */
  json_str pid_str, tid_str;          /* pid/tid given as strings */
  json_time ts, dur, tts, tdur;
  int64_t pid, tid;
  int has_pid, has_tid;
  json_flow_ref flow_v1_id; /* "id" read as a flow id */
  json_flow_ref bind_id;    /* "bind_id" (flow v2) */
  int flow_in, flow_out;
  size_t args_offset; /* offset of the args object's '{', or 0 */
  size_t end;         /* offset just past the object's '}', or 0 if the
                         read stopped early */
} json_event;

/* The bytes a queued event reads when parsed, held from tokenize until it
 * was parsed (import_input_hold): the object [start, end) and JSON_HOLD_PAD
 * bytes after it, which the tokenizer's 8-byte string scan may read. */
#define JSON_HOLD_PAD 8u
void json_hold_event(import_file *f, size_t start, size_t end);
void json_release_event(import_file *f, size_t start, size_t end);
/* The end of the event object at `start` (just past its '}'), by skipping
 * it; 0 if it does not parse. */
size_t json_event_extent(import_file *f, size_t start);

/* ---- json_scan.c: the scan (importer_ops.scan) ---- */

/* An event to push: its ts, order key at equal ts (INT64_MIN for ends,
 * INT64_MAX - dur for X, else INT64_MAX) and object [offset, end). */
typedef struct json_pending {
  int64_t ts;
  int64_t key;
  size_t offset, end;
} json_pending;

/* What the walk of a file found, events already in push order: one
 * sorted run, or, after a split, two (events, then later: the second
 * thread's), whose merge is the order (json_scan_next). */
/* Whether a string holds a number as JSON writes it, and if not why
 * (json_string_number; *exp: the exponent letter met). */
typedef enum json_number_check {
  JSON_NUMBER_OK,
  JSON_NUMBER_INCOMPLETE,            /* empty */
  JSON_NUMBER_EXPECTED_DIGIT,        /* no digit first (after a '-') */
  JSON_NUMBER_LEADING_ZERO,
  JSON_NUMBER_DIGIT_AFTER_DOT,
  JSON_NUMBER_DIGIT_AFTER_EXPONENT,
  JSON_NUMBER_TRAILING               /* a number, then more */
} json_number_check;
json_number_check json_string_number(const char *p, size_t n, char *exp);

/* A ts or dur value as written: its token type and text (for the message
 * of a tokenizer failure; a container's text is its first byte); ptr NULL
 * when absent. */
typedef struct json_time_value {
  json_token_type type;
  const char *ptr;
  size_t len;
} json_time_value;

/* An event the tokenizer gave up on (json_tokenizer_failure): the bytes
 * read of it [start, end) (end is the log's byte_offset) and the value
 * that failed (dur for an X event's, else ts). */
typedef struct json_failure {
  size_t start, end;
  json_time_value value;
} json_failure;

typedef struct json_scan {
  VEC(json_pending) events;
  VEC(json_pending) later;        /* empty: one run */
  VEC(json_pending) clock_syncs;  /* "ph": "c" events, in file order */
  VEC(json_pending) v8_events;    /* "ph": "P" events, in file order (not pushed) */
  int has_complete;               /* some X event: order by key at equal ts */
  VEC(size_t) metadata;           /* offsets of "metadata" objects' '{' */
  int64_t tokenizer_failures;     /* json_tokenizer_failure to count */
  int64_t display_time_units;     /* json_display_time_unit to count */
  int has_systrace;               /* the last "systemTraceEvents" string: */
  size_t systrace_offset, systrace_len; /* its raw bytes */
  int split; /* 1: a second thread scanned the part after the split */
  int events_cut; /* an X event with an unreadable dur ended the events */
  int64_t event_failures; /* of tokenizer_failures, those of single events */
  VEC(json_failure) failures; /* those events, in file order */
  /* during the walk only: its input and the pages given back so far
   * (import_scan_passed); where the walk stops if the split guess holds
   * (the end of an event at depth stop_depth: 0 for none), and whether
   * it did */
  const import_scan_input *in;
  size_t given;
  size_t stop_at;
  uint32_t stop_depth;
  int stopped;
} json_scan;

int json_scan_run(const import_scan_input *in, void **result, base_error *err);
/* json_scan_run with a split tried at the first event boundary after
 * offset `guess` whatever the file's size (the tests' way to it). */
int json_scan_run_split(const import_scan_input *in, size_t guess, void **result,
                        base_error *err);
void json_scan_free(void *result);
/* The events in push order: the next one after the cursor (zeroed at
 * first), NULL at the end. The two runs merged, the first one's event
 * first at a tie. */
typedef struct json_scan_cursor {
  size_t a, b;
} json_scan_cursor;
const json_pending *json_scan_next(const json_scan *s, json_scan_cursor *c);

/* ---- json_clock_sync.c ---- */
/* The file's clock is a trace-event clock, and its "ph": "c" events with
 * args.sync_id are clock-sync markers (import_clock_sync_named) at the
 * midpoint of args.issue_ts and ts (ts alone without issue_ts). */
int json_clock_sync_markers(import_file *f, const json_scan *scan, uint32_t clock,
                            base_error *err);

/* ---- json_import.c ---- */
/* The decoded "systemTraceEvents" string, or *text = NULL (see there). */
int json_systrace_text(import_file *f, char **text, size_t *len, base_error *err);

/* What the scan reads of an event object: ts, dur, ph, and whether it
 * has any member. */
typedef struct json_event_head {
  json_time ts, dur;
  json_time_value ts_value, dur_value;
  char ph;
  int any_key;
} json_event_head;


/* ---- json_event.c ---- */
/* Whether t opens an object or an array. */
int json_is_container(const json_token *t);
/* One member of an event object into its head (a container value only
 * counts as a key); both scan paths read members this way. */
void json_event_head_member(json_event_head *h, const json_token *key, const json_token *v);
/* The scan's fast path: the head of the flat event object at data[offset]
 * (its '{'), whose nested containers may open nested_depth more levels;
 * 1 with *end just past its '}', 0 if it is not flat (the tokenizer then
 * reads it, with the same result). */
int json_read_head_flat(const char *data, size_t len, size_t offset, size_t max_string_len,
                        uint32_t nested_depth, json_event_head *h, size_t *end);
int json_str_from(const json_token *t, json_str *s, base_error *err);
static inline int json_key_is(const json_token *t, const char *key) {
  size_t n = strlen(key);
  return t->len == n && memcmp(t->ptr, key, n) == 0;
}
/* A number token's value as Perfetto reads a non-int64 one: a double, an
 * integer literal beyond int64 being its digits modulo 2^64 taken as int64
 * (so 2^64 - 1 reads -1). */
/* Microseconds (number or numeric string token) -> ns; 0 ok, -1 invalid. */
int json_time_from(const json_token *t, int64_t *ns);
/* A whole string that strtod reads completely (e.g. "1.5", ".75", "+2"). */
int json_parse_double(const char *p, size_t len, double *out);
/* Decodes the event object at `offset` in the file into *e, which must be
 * zeroed: flat objects on a fast path (json_event.c), others on the general
 * tokenizer, with the same result. The importer calls the two halves
 * itself (json_read_flat in its prepare step, json_read_event_tokens in
 * the parse); the tests check that they agree through this. */
int json_read_event(import_file *f, size_t offset, json_event *e,
                    base_error *err);
/* The fast path alone: 1 with the flat object at `offset` decoded into *e
 * (zeroed by the caller; nothing in it is owned), 0 if the object is not
 * flat. Reads only the object's bytes and f's limits (so importer_ops.
 * prepare may call it). */
int json_read_flat(const import_file *f, size_t offset, json_event *e);
/* The general path alone (for tests comparing the two). */
int json_read_event_tokens(import_file *f, size_t offset, json_event *e,
                           base_error *err);
void json_event_free(json_event *e);

/* ---- json_apply.c ---- */
int json_apply(import_file *f, json_event *e, int64_t ts, base_error *err);
/* Reads the scan's V8 CPU profile events in file order and pushes their
 * samples (tokenize); json_v8_apply_sample applies one (parse). */
int json_v8_tokenize(import_file *f, const json_scan *scan, base_error *err);
int json_v8_apply_sample(import_file *f, uint64_t payload, int64_t ts);

/* ---- json_async.c ---- */
/* The track of async event e (ph b, e or n; with an id) of process upid,
 * its slot's open count updated for the phase. */
int json_async_track(import_file *f, const json_event *e, string_id cat, string_id name,
                     uint32_t upid, uint32_t *track);
void json_async_free(json_async_state *a);

/* ---- json_flow.c ---- */
/* Phases s, t, f (flow v1) on the thread's track. */
int json_flow_v1(import_file *f, const json_event *e, uint32_t track,
                 string_id cat, string_id name);
/* bind_id / flow_in / flow_out on a slice just begun on `track` (flow v2). */
int json_flow_v2(import_file *f, const json_event *e, uint32_t track);

#endif
