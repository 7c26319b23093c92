/* Chrome's trace metadata: the legacy ChromeEventBundle (TracePacket
 * chrome_events) and the typed ChromeMetadataPacket (chrome_metadata).
 *
 *  - each bundle's metadata entries become "cr-<name>" metadata rows (the
 *    n-th bundle with metadata, n > 1, writes "cr-<n>-<name>") and one
 *    __intrinsic_chrome_raw row "chrome_event.metadata" whose args hold
 *    the entries under their own names; legacy ftrace output and user JSON
 *    traces become "chrome_event.legacy_system_trace" / "..._user_trace"
 *    rows with a "data" arg. Bundles are read at trace time.
 *  - a ChromeMetadataPacket writes "cr-<letter>-<field>" rows, the letter
 *    counting packets in file order ('a' for the first, modulo 26).
 *  - a ChromeBenchmarkMetadata writes "benchmark_*" rows (trace-scoped);
 *    each story tag appends a benchmark_story_tags row. */
#include <stdio.h>

#include "import/proto/proto_fields_misc.h"
#include "import/proto/proto_import.h"
#include "import/proto/proto_misc.h"
#include "model/columns.h"
#include "model/model.h"

#define CHROME_META_NAME_MAX 2048
#define PROTO_CHROME_BENCHMARK_STORY_TAGS 7

/* A metadata row whose value is the bytes `v` (any length). */
static int chrome_meta_str(import_file *f, const char *name, const uint8_t *v, size_t len) {
  char *copy = base_malloc(len + 1);
  if (!copy) return WEFT_ENOMEM;
  if (len) memcpy(copy, v, len);
  copy[len] = '\0';
  int rc = ctx_metadata_dynamic_str(f->ctx, name, copy, 0, f->trace_id);
  base_free(copy);
  return rc;
}

/* ---- ChromeEventBundle ---- */

typedef struct chrome_meta_entry {
  proto_span name, str;
  int64_t num;
  int kind; /* 0 none, 's' string, 'i' int/bool, 'j' json */
} chrome_meta_entry;

/* Reads a ChromeMetadata; the value kinds are tried string, int, bool,
 * json, whatever their order on the wire. */
static void chrome_meta_entry_read(proto_span msg, chrome_meta_entry *e) {
  proto_reader r;
  proto_field fl;
  int has_str = 0, has_int = 0, has_bool = 0, has_json = 0;
  int64_t int_v = 0, bool_v = 0;
  proto_span str = {NULL, 0}, json = {NULL, 0};
  memset(e, 0, sizeof *e);
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    int len = fl.wire_type == PROTO_WIRE_LEN;
    switch (fl.number) {
      case PROTO_CHROME_METADATA_NAME: if (len) e->name = fl.span; break;
      case PROTO_CHROME_METADATA_STRING_VALUE: if (len) { str = fl.span; has_str = 1; } break;
      case PROTO_CHROME_METADATA_INT_VALUE:
        if (!len) { int_v = (int64_t)fl.value; has_int = 1; }
        break;
      case PROTO_CHROME_METADATA_BOOL_VALUE:
        if (!len) { bool_v = fl.value != 0; has_bool = 1; }
        break;
      case PROTO_CHROME_METADATA_JSON_VALUE: if (len) { json = fl.span; has_json = 1; } break;
      default: break;
    }
  }
  if (has_str) { e->kind = 's'; e->str = str; }
  else if (has_int) { e->kind = 'i'; e->num = int_v; }
  else if (has_bool) { e->kind = 'i'; e->num = bool_v; }
  else if (has_json) { e->kind = 'j'; e->str = json; }
}

static int chrome_meta_entry_row(import_file *f, uint32_t bundle, const chrome_meta_entry *e) {
  char name[CHROME_META_NAME_MAX];
  int n = bundle > 1 ? snprintf(name, sizeof name, "cr-%u-", bundle)
                     : snprintf(name, sizeof name, "cr-");
  size_t room = sizeof name - 1 - (size_t)n;
  size_t len = e->name.len < room ? e->name.len : room;
  if (len) memcpy(name + n, e->name.data, len);
  name[(size_t)n + len] = '\0';
  if (e->kind == 'i') return ctx_metadata_dynamic_int(f->ctx, name, e->num, 0, f->trace_id);
  return chrome_meta_str(f, name, e->str.data, e->str.len);
}

static int chrome_meta_entry_arg(trace_context *ctx, const chrome_meta_entry *e) {
  const char *key = (const char *)e->name.data;
  if (e->kind == 'i') return model_arg_int(ctx, key, e->name.len, MODEL_ARG_INT, e->num);
  return model_arg_string(ctx, key, e->name.len, (const char *)e->str.data, e->str.len,
                          e->kind == 'j' ? MODEL_ARG_JSON : MODEL_ARG_STRING);
}

/* Appends a chrome_raw row holding the pending args. */
static int chrome_raw_row(trace_context *ctx, int64_t ts, const char *name) {
  string_id name_id;
  int64_t args = -1;
  int rc = model_args_commit(ctx, &args);
  if (!rc) rc = ctx_intern(ctx, name, strlen(name), &name_id);
  return rc ? rc : model_chrome_raw(ctx, ts, name_id, 0, args);
}

static int chrome_bundle_metadata(import_file *f, proto_misc_state *m, int64_t ts,
                                  proto_span msg) {
  uint32_t bundle = ++m->chrome_bundles;
  proto_reader r;
  proto_field fl;
  int rc = WEFT_OK;
  proto_reader_init_span(&r, msg);
  while (!rc && proto_reader_next(&r, &fl) == 1) {
    if (fl.number != PROTO_CHROME_EVENT_BUNDLE_METADATA || fl.wire_type != PROTO_WIRE_LEN) continue;
    chrome_meta_entry e;
    chrome_meta_entry_read(fl.span, &e);
    if (!e.kind) {
      rc = import_stat(f, stat_empty_chrome_metadata, 1);
      continue;
    }
    rc = chrome_meta_entry_arg(f->ctx, &e);
    if (!rc) rc = chrome_meta_entry_row(f, bundle, &e);
  }
  if (!rc) return chrome_raw_row(f->ctx, ts, "chrome_event.metadata");
  model_args_discard(f->ctx);
  return rc;
}

/* The legacy ftrace output chunks, joined, as one "data" arg. */
static int chrome_bundle_ftrace(import_file *f, int64_t ts, proto_span msg) {
  proto_reader r;
  proto_field fl;
  size_t total = 0;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1)
    if (fl.number == PROTO_CHROME_EVENT_BUNDLE_LEGACY_FTRACE_OUTPUT &&
        fl.wire_type == PROTO_WIRE_LEN)
      total += fl.span.len;
  char *data = base_malloc(total + 1);
  if (!data) return WEFT_ENOMEM;
  size_t at = 0;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1)
    if (fl.number == PROTO_CHROME_EVENT_BUNDLE_LEGACY_FTRACE_OUTPUT &&
        fl.wire_type == PROTO_WIRE_LEN && fl.span.len) {
      memcpy(data + at, fl.span.data, fl.span.len);
      at += fl.span.len;
    }
  int rc = model_arg_string(f->ctx, "data", 4, data, at, MODEL_ARG_STRING);
  base_free(data);
  if (!rc) return chrome_raw_row(f->ctx, ts, "chrome_event.legacy_system_trace");
  model_args_discard(f->ctx);
  return rc;
}

/* A ChromeLegacyJsonTrace of type USER_TRACE (0, the default). */
static int chrome_bundle_user_trace(import_file *f, int64_t ts, proto_span msg) {
  proto_field fl;
  if (proto_find_last(msg.data, msg.len, PROTO_CHROME_LEGACY_JSON_TRACE_TYPE, &fl) == 1 &&
      fl.wire_type == PROTO_WIRE_VARINT && fl.value != 0)
    return WEFT_OK;
  proto_span data = {NULL, 0};
  if (proto_find_last(msg.data, msg.len, PROTO_CHROME_LEGACY_JSON_TRACE_DATA, &fl) == 1 &&
      fl.wire_type == PROTO_WIRE_LEN)
    data = fl.span;
  int rc = model_arg_string(f->ctx, "data", 4, (const char *)data.data, data.len,
                            MODEL_ARG_STRING);
  if (!rc) return chrome_raw_row(f->ctx, ts, "chrome_event.legacy_user_trace");
  model_args_discard(f->ctx);
  return rc;
}

int proto_chrome_events(import_file *f, proto_misc_state *m, int64_t ts, proto_span msg) {
  int has_meta = 0, has_ftrace = 0;
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.wire_type != PROTO_WIRE_LEN) continue;
    has_meta |= fl.number == PROTO_CHROME_EVENT_BUNDLE_METADATA;
    has_ftrace |= fl.number == PROTO_CHROME_EVENT_BUNDLE_LEGACY_FTRACE_OUTPUT;
  }
  int rc = has_meta ? chrome_bundle_metadata(f, m, ts, msg) : WEFT_OK;
  if (!rc && has_ftrace) rc = chrome_bundle_ftrace(f, ts, msg);
  proto_reader_init_span(&r, msg);
  while (!rc && proto_reader_next(&r, &fl) == 1)
    if (fl.number == PROTO_CHROME_EVENT_BUNDLE_LEGACY_JSON_TRACE && fl.wire_type == PROTO_WIRE_LEN)
      rc = chrome_bundle_user_trace(f, ts, fl.span);
  return rc;
}

/* ---- ChromeMetadataPacket ---- */

typedef struct chrome_packet_fields {
  proto_field last[PROTO_CHROME_METADATA_PACKET_OS_NAME + 1];
  uint32_t seen; /* bit n: field n present with the expected wire type */
} chrome_packet_fields;

static int chrome_packet_is_len(uint32_t n) {
  return n != PROTO_CHROME_METADATA_PACKET_CHROME_VERSION_CODE &&
         n != PROTO_CHROME_METADATA_PACKET_CHANNEL;
}

static void chrome_packet_read(proto_span msg, chrome_packet_fields *p) {
  proto_reader r;
  proto_field fl;
  memset(p, 0, sizeof *p);
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number == 0 || fl.number > PROTO_CHROME_METADATA_PACKET_OS_NAME) continue;
    if ((fl.wire_type == PROTO_WIRE_LEN) != chrome_packet_is_len(fl.number)) continue;
    p->last[fl.number] = fl;
    p->seen |= 1u << fl.number;
  }
}

/* "{ name: N, group: G } " per FinchHash, a newline before every pair
 * after the first. */
static int chrome_packet_field_trials(import_file *f, const char *name, proto_span msg) {
  size_t count = 0, cap;
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1)
    count += fl.number == PROTO_CHROME_METADATA_PACKET_FIELD_TRIAL_HASHES &&
             fl.wire_type == PROTO_WIRE_LEN;
  cap = count * 48 + 1;
  char *text = base_malloc(cap);
  if (!text) return WEFT_ENOMEM;
  size_t at = 0, on_line = 0;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number != PROTO_CHROME_METADATA_PACKET_FIELD_TRIAL_HASHES ||
        fl.wire_type != PROTO_WIRE_LEN)
      continue;
    proto_field n, g;
    uint32_t nv = 0, gv = 0;
    if (proto_find_last(fl.span.data, fl.span.len, 1, &n) == 1) nv = (uint32_t)n.value;
    if (proto_find_last(fl.span.data, fl.span.len, 2, &g) == 1) gv = (uint32_t)g.value;
    if (on_line == 2) { text[at++] = '\n'; on_line = 0; }
    on_line++;
    at += (size_t)snprintf(text + at, cap - at, "{ name: %u, group: %u } ", nv, gv);
  }
  int rc = chrome_meta_str(f, name, (const uint8_t *)text, at);
  base_free(text);
  return rc;
}

static int chrome_packet_background(import_file *f, proto_span msg);

int proto_chrome_metadata_packet(import_file *f, proto_misc_state *m, proto_span msg) {
  static const struct {
    uint32_t field;
    const char *suffix;
  } order[] = {
      {PROTO_CHROME_METADATA_PACKET_CHROME_VERSION_CODE, "playstore_version_code"},
      {PROTO_CHROME_METADATA_PACKET_PRODUCT_VERSION, "product-version"},
      {PROTO_CHROME_METADATA_PACKET_OS_NAME, "os-name"},
      {PROTO_CHROME_METADATA_PACKET_APP_PACKAGE_NAME, "package-name"},
      {PROTO_CHROME_METADATA_PACKET_CHANNEL, "channel"},
      {PROTO_CHROME_METADATA_PACKET_ENABLED_CATEGORIES, "enabled_categories"},
      {PROTO_CHROME_METADATA_PACKET_FIELD_TRIAL_HASHES, "field_trial_hashes"},
  };
  chrome_packet_fields p;
  chrome_packet_read(msg, &p);
  char letter = (char)('a' + m->chrome_packets % 26);
  m->chrome_packets++;
  int rc = WEFT_OK;
  for (size_t i = 0; !rc && i < sizeof order / sizeof *order; i++) {
    uint32_t n = order[i].field;
    if (!(p.seen >> n & 1u)) continue;
    char name[64];
    snprintf(name, sizeof name, "cr-%c-%s", letter, order[i].suffix);
    const proto_field *fl = &p.last[n];
    if (n == PROTO_CHROME_METADATA_PACKET_FIELD_TRIAL_HASHES)
      rc = chrome_packet_field_trials(f, name, msg);
    else if (!chrome_packet_is_len(n))
      rc = ctx_metadata_dynamic_int(f->ctx, name, (int64_t)proto_field_int32(fl), 0, f->trace_id);
    else
      rc = chrome_meta_str(f, name, fl->span.data, fl->span.len);
  }
  if (!rc && (p.seen >> PROTO_CHROME_METADATA_PACKET_BACKGROUND_TRACING_METADATA & 1u))
    rc = chrome_packet_background(f, p.last[PROTO_CHROME_METADATA_PACKET_BACKGROUND_TRACING_METADATA].span);
  return rc;
}


/* BackgroundTracingMetadata: its bytes in base64, and its scenario hash. */
static int chrome_packet_background(import_file *f, proto_span msg) {
  char *text = base_malloc((msg.len + 2) / 3 * 4 + 1);
  if (!text) return WEFT_ENOMEM;
  size_t at = base_base64(msg.data, msg.len, text);
  int rc = chrome_meta_str(f, "cr-background_tracing_metadata", (const uint8_t *)text, at);
  base_free(text);
  proto_field fl;
  if (!rc &&
      proto_find_last(msg.data, msg.len, PROTO_BACKGROUND_TRACING_METADATA_SCENARIO_NAME_HASH,
                      &fl) == 1 &&
      fl.wire_type == PROTO_WIRE_FIXED32)
    rc = ctx_metadata_dynamic_int(f->ctx, "cr-scenario_name_hash", (int64_t)(uint32_t)fl.value,
                                  0, f->trace_id);
  return rc;
}

/* ---- ChromeBenchmarkMetadata ---- */

int proto_chrome_benchmark_metadata(import_file *f, proto_span msg) {
  static const struct {
    uint32_t field;
    const char *name;
  } strings[] = {{3, "benchmark_name"},
                 {4, "benchmark_description"},
                 {5, "benchmark_label"},
                 {6, "benchmark_story_name"}},
    ints[] = {{1, "benchmark_start_time_us"},
              {2, "benchmark_story_run_time_us"},
              {8, "benchmark_story_run_index"},
              {9, "benchmark_had_failures"}};
  proto_field fl;
  int rc = WEFT_OK;
  for (size_t i = 0; !rc && i < sizeof strings / sizeof *strings; i++)
    if (proto_find_last(msg.data, msg.len, strings[i].field, &fl) == 1 &&
        fl.wire_type == PROTO_WIRE_LEN)
      rc = proto_metadata_str(f->ctx, strings[i].name, (const char *)fl.span.data, fl.span.len,
                              -1, f->trace_id);
  proto_reader r;
  proto_reader_init_span(&r, msg);
  while (!rc && proto_reader_next(&r, &fl) == 1) {
    if (fl.number != PROTO_CHROME_BENCHMARK_STORY_TAGS || fl.wire_type != PROTO_WIRE_LEN) continue;
    char *tag = base_malloc(fl.span.len + 1);
    if (!tag) return WEFT_ENOMEM;
    memcpy(tag, fl.span.data, fl.span.len);
    tag[fl.span.len] = '\0';
    rc = proto_metadata_str_multi(f->ctx, "benchmark_story_tags", tag, -1, f->trace_id);
    base_free(tag);
  }
  for (size_t i = 0; !rc && i < sizeof ints / sizeof *ints; i++)
    if (proto_find_last(msg.data, msg.len, ints[i].field, &fl) == 1 &&
        fl.wire_type == PROTO_WIRE_VARINT)
      rc = ctx_metadata_set_int(f->ctx, ints[i].name, (int64_t)fl.value, -1, f->trace_id);
  return rc;
}
