/* Unit tests: Chrome JSON event decoding (json_event.c) and the
 * systemTraceEvents accessor. */
#include <stdlib.h>

#include "check.h"
#include "import/json/json_internal.h"

static json_state state;

static import_file file_for(const char *json) {
  import_file f;
  memset(&f, 0, sizeof f);
  memset(&state, 0, sizeof state);
  f.state = &state;
  f.data = (const uint8_t *)json;
  f.len = strlen(json);
  f.name = "test.json";
  return f;
}

static int str_is(const json_str *s, const char *want) {
  return s->ptr && s->len == strlen(want) && memcmp(s->ptr, want, s->len) == 0;
}

static void test_read_fields(void) {
  const char *json =
      "{\"ph\":\"b\",\"name\":\"n\\u0041\",\"cat\":\"c\",\"pid\":7,\"tid\":\"worker\","
      "\"ts\":\"1.5\",\"dur\":2,\"tts\":\"x\",\"id2\":{\"local\":12,\"global\":\"g\"},"
      "\"bind_id\":\"0x1f\",\"flow_in\":true,\"flow_out\":false,\"bp\":\"e\","
      "\"args\":{\"a\":1},\"id\":\"0x10\"}";
  import_file f = file_for(json);
  json_event e;
  memset(&e, 0, sizeof e);
  base_error err = {0};
  CHECK_EQ_INT(json_read_event(&f, 0, &e, &err), 0);
  CHECK_EQ_INT(e.ph, 'b');
  CHECK(str_is(&e.name, "nA"));
  CHECK(str_is(&e.cat, "c"));
  CHECK(e.has_pid && e.pid == 7);
  CHECK(e.has_tid && str_is(&e.tid_str, "worker"));
  CHECK(e.ts.valid && e.ts.ns == 1500);
  CHECK(e.dur.valid && e.dur.ns == 2000);
  CHECK(e.tts.present && !e.tts.valid);
  CHECK(!e.tdur.present);
  CHECK(str_is(&e.id2_local, "12"));
  CHECK(str_is(&e.id2_global, "g"));
  CHECK(e.bind_id.valid && e.bind_id.value == 0x1f);
  CHECK(e.flow_in && !e.flow_out);
  CHECK(str_is(&e.bp, "e"));
  CHECK(e.args_offset > 0 && json[e.args_offset] == '{');
  CHECK(str_is(&e.id, "0x10"));
  CHECK(e.flow_v1_id.valid && e.flow_v1_id.value == 16);
  json_event_free(&e);
}

static void test_flow_ids(void) {
  const char *cases[] = {"{\"id\":\"zz\"}", "{\"id\":\"-1\"}", "{\"id\":true}",
                         "{\"id\":\"\"}"};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    import_file f = file_for(cases[i]);
    json_event e;
    memset(&e, 0, sizeof e);
    CHECK_EQ_INT(json_read_event(&f, 0, &e, NULL), 0);
    CHECK(e.flow_v1_id.present && !e.flow_v1_id.valid);
    json_event_free(&e);
  }
  import_file f = file_for("{\"id\":4096,\"pid\":-1,\"tid\":1.5e10}");
  json_event e;
  memset(&e, 0, sizeof e);
  CHECK_EQ_INT(json_read_event(&f, 0, &e, NULL), 0);
  CHECK(e.flow_v1_id.valid && e.flow_v1_id.value == 4096);
  CHECK(str_is(&e.id, "4096"));
  CHECK(!e.has_pid && !e.has_tid); /* out of the 32-bit range */
  json_event_free(&e);
}

static void test_repeated_keys_do_not_leak(void) {
  import_file f = file_for("{\"name\":\"a\\n\",\"name\":\"b\\t\",\"cat\":\"\\\"\"}");
  json_event e;
  memset(&e, 0, sizeof e);
  CHECK_EQ_INT(json_read_event(&f, 0, &e, NULL), 0);
  CHECK(str_is(&e.name, "b\t"));
  CHECK(str_is(&e.cat, "\""));
  json_event_free(&e);
}

static void test_truncated_event_fails(void) {
  import_file f = file_for("{\"ph\":\"X\",\"name\":\"a");
  json_event e;
  memset(&e, 0, sizeof e);
  base_error err = {0};
  CHECK(json_read_event(&f, 0, &e, &err) != 0);
  json_event_free(&e);
}

static void test_systrace_text(void) {
  const char *json = "{\"systemTraceEvents\":\"# tracer\\nline one\\n\"}";
  import_file f = file_for(json);
  char *text = NULL;
  size_t len = 0;
  CHECK_EQ_INT(json_systrace_text(&f, &text, &len, NULL), 0);
  CHECK(text == NULL); /* nothing located yet */
  state.has_systrace = 1;
  state.systrace_offset = strlen("{\"systemTraceEvents\":\"");
  state.systrace_len = strlen("# tracer\\nline one\\n");
  CHECK_EQ_INT(json_systrace_text(&f, &text, &len, NULL), 0);
  CHECK_EQ_STR(text, "# tracer\nline one\n");
  CHECK_EQ_INT(len, 18);
  base_free(text);
}

/* Strings compare by content (a span and its unescaped copy alike). */
static int json_str_same(const json_str *a, const json_str *b) {
  if (!a->ptr || !b->ptr) return !a->ptr && !b->ptr;
  return a->len == b->len && memcmp(a->ptr, b->ptr, a->len) == 0;
}

static int json_time_same(const json_time *a, const json_time *b) {
  return a->present == b->present && a->valid == b->valid && (!a->valid || a->ns == b->ns);
}

static int json_flow_same(const json_flow_ref *a, const json_flow_ref *b) {
  return a->present == b->present && a->valid == b->valid && (!a->valid || a->value == b->value);
}

static int json_events_same(const json_event *a, const json_event *b) {
  return a->ph == b->ph && json_str_same(&a->name, &b->name) && json_str_same(&a->cat, &b->cat) &&
         json_str_same(&a->scope, &b->scope) && json_str_same(&a->bp, &b->bp) &&
         json_str_same(&a->id, &b->id) && json_str_same(&a->id2_local, &b->id2_local) &&
         json_str_same(&a->id2_global, &b->id2_global) &&
         json_str_same(&a->pid_str, &b->pid_str) && json_str_same(&a->tid_str, &b->tid_str) &&
         json_time_same(&a->ts, &b->ts) && json_time_same(&a->dur, &b->dur) &&
         json_time_same(&a->tts, &b->tts) && json_time_same(&a->tdur, &b->tdur) &&
         a->has_pid == b->has_pid && (!a->has_pid || a->pid == b->pid || a->pid_str.ptr) &&
         a->has_tid == b->has_tid && (!a->has_tid || a->tid == b->tid || a->tid_str.ptr) &&
         json_flow_same(&a->flow_v1_id, &b->flow_v1_id) &&
         json_flow_same(&a->bind_id, &b->bind_id) && a->flow_in == b->flow_in &&
         a->flow_out == b->flow_out && a->args_offset == b->args_offset && a->end == b->end;
}

/* json_read_event (flat fast path first) and the general path alone give
 * the same status and fields for flat objects and for every way an object
 * can leave the fast path. */
static void check_paths_agree(const char *json, uint32_t max_depth, size_t max_len) {
  import_file f = file_for(json);
  state.limits.max_depth = max_depth;
  state.limits.max_string_len = max_len;
  json_event a, b;
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  base_error ea = {0}, eb = {0};
  int ra = json_read_event(&f, 0, &a, &ea);
  int rb = json_read_event_tokens(&f, 0, &b, &eb);
  CHECK_EQ_INT(ra, rb);
  if (ra == 0 && !json_events_same(&a, &b)) {
    fprintf(stderr, "  fields differ for: %s\n", json);
    CHECK(0);
  }
  if (ra != 0) CHECK_EQ_STR(ea.message, eb.message);
  /* The scan's flat head reader, where it reads the object, agrees too. */
  json_event_head h;
  size_t end;
  uint32_t nested = (max_depth ? max_depth : JSON_DEFAULT_MAX_DEPTH) - 1;
  if (json_read_head_flat(json, strlen(json), 0, max_len, nested, &h, &end)) {
    CHECK_EQ_INT(rb, 0);
    if (rb == 0 && !(json_time_same(&h.ts, &b.ts) && json_time_same(&h.dur, &b.dur) &&
                     h.ph == b.ph && end == b.end)) {
      fprintf(stderr, "  head differs for: %s\n", json);
      CHECK(0);
    }
  }
  json_event_free(&a);
  json_event_free(&b);
}

static void test_flat_path_agrees(void) {
  const char *cases[] = {
      "{}", "{ }", "{\"ph\":\"X\"}",
      ("{\"pid\":100010,\"tid\":1000102,\"ts\":86400576345,\"ph\":\"B\",\"name\":\"n_18\","
       "\"cat\":\"cat_b\"}"),
      " {\"ts\" : 12.5 ,\n\t\"dur\":\r0.001 , \"ph\":\"X\" } trailing",
      "{\"ts\":-0,\"dur\":-5,\"tts\":-12.25,\"tdur\":0}",
      "{\"ts\":123456789012345,\"dur\":1234567890123456}",
      "{\"ts\":1234567.89012345,\"dur\":12345678.901234567}",
      "{\"ts\":1e3}", "{\"ts\":1.5E-2}", "{\"ts\":01}", "{\"ts\":1.}", "{\"ts\":-}",
      "{\"ts\":\"1.5\",\"pid\":\"p\",\"tid\":4294967296}",
      "{\"pid\":1.5,\"tid\":-1,\"id\":\"0x10\",\"bind_id\":7}",
      "{\"flow_in\":true,\"flow_out\":false,\"s\":null,\"bp\":\"e\"}",
      "{\"flow_in\":tru}", "{\"flow_in\":truex}", "{\"a\":nul}",
      "{\"args\":{\"a\":[1,{\"b\":\"c\\\"\"}]},\"name\":\"x\",\"args\":{}}",
      "{\"args\":[1,2],\"other\":{\"x\":{\"y\":[]}}}",
      "{\"args\":{\"a\":}}", "{\"args\":{\"a\":1}",
      "{\"id2\":{\"local\":\"0x1\"},\"ph\":\"b\"}",
      "{\"name\":\"a\\u0041\",\"cat\":\"c\"}", "{\"na\\u006de\":\"k\"}",
      "{\"name\":\"raw\x01\x7f\xff bytes\"}",
      "{\"ph\":\"X\",}", "{\"ph\" \"X\"}", "{\"ph\":\"X\" \"name\":\"n\"}",
      "{\"ph\":\"X\"", "{\"ph\":\"X", "{\"ph", "{", "[1]", "x",
      "{\"name\":\"a\",\"name\":\"b\",\"cat\":\"c\\n\"}",
      "{\"ts\":5,\"ts\":\"6\",\"dur\":true}",
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) check_paths_agree(cases[i], 0, 0);
  /* The limits apply the same way on both paths. */
  check_paths_agree("{\"name\":\"abcdef\",\"ts\":1}", 0, 4);
  check_paths_agree("{\"name\":\"abc\",\"ts\":123456}", 0, 4);
  check_paths_agree("{\"name\":\"abcd\",\"ts\":1234}", 0, 4);
  check_paths_agree("{\"args\":{\"a\":{\"b\":1}}}", 2, 0);
  check_paths_agree("{\"args\":{\"a\":{\"b\":1}}}", 3, 0);
  check_paths_agree("{\"args\":{}}", 1, 0);
  /* Names of every length up to 40 with a quote, an escape or a high byte
   * at every position. */
  char name[48], obj[128];
  static const char *marks[] = {"\\\"", "\\\\", "\"", "\xa2", "\xdc"};
  for (size_t m = 0; m < 5; m++)
    for (int len = 0; len <= 40; len++)
      for (int at = 0; at <= len; at++) {
        memset(name, 'a', sizeof name);
        snprintf(name + at, sizeof name - (size_t)at, "%s", marks[m]);
        size_t mark_len = strlen(marks[m]);
        memset(name + at + mark_len, 'b', (size_t)(len - at) + 1);
        name[len + mark_len] = 0;
        snprintf(obj, sizeof obj, "{\"name\":\"%s\",\"ph\":\"X\"}", name);
        check_paths_agree(obj, 0, 0);
      }
}

/* Numbers of every length from 1 to 20 digits (the fast path reads eight
 * digits at a time), signed, with fractions, and followed by every kind of
 * byte: both paths read the same value or both refuse it, and the head
 * reader agrees. Bytes next to the digits in ASCII and high bytes whose
 * low nibble is a digit must end a number. */
static void test_flat_numbers_agree(void) {
  static const char *tails[] = {"}", ",\"ph\":\"X\"}", " }", "x}", "e3}", "E-2}", ".}",
                                "/}", ":}", "\xb5}", "\xb0\xb1}", "0}", ""};
  static const char *signs[] = {"", "-"};
  char digits[32], num[48], obj[128];
  for (int len = 1; len <= 20; len++) {
    for (int i = 0; i < len; i++) digits[i] = (char)('1' + (i * 7 + len) % 9);
    digits[len] = 0;
    for (int frac = -1; frac <= len - 1; frac++) {
      int whole = frac < 0 ? len : len - frac;
      if (frac == 0) continue;
      for (size_t sg = 0; sg < 2; sg++) {
        if (frac < 0)
          snprintf(num, sizeof num, "%s%s", signs[sg], digits);
        else
          snprintf(num, sizeof num, "%s%.*s.%s", signs[sg], whole, digits, digits + whole);
        for (size_t t = 0; t < sizeof tails / sizeof *tails; t++) {
          snprintf(obj, sizeof obj, "{\"ts\":%s%s", num, tails[t]);
          check_paths_agree(obj, 0, 0);
          snprintf(obj, sizeof obj, "{\"pid\":%s%s", num, tails[t]);
          check_paths_agree(obj, 0, 0);
        }
      }
    }
  }
  check_paths_agree("{\"ts\":0}", 0, 0);
  check_paths_agree("{\"ts\":00000000}", 0, 0);
  check_paths_agree("{\"ts\":10000000,\"dur\":99999999}", 0, 0);
  check_paths_agree("{\"ts\":0.000000001}", 0, 0);
}

/* A scan's input over a whole document, with the default options. */
static import_scan_input scan_input(const char *doc) {
  static weft_options options;
  weft_options_default(&options);
  return (import_scan_input){(const uint8_t *)doc, strlen(doc), &options, 0, 0, 0};
}

/* The scan's push order (a stable sort by ts, then: ends first, complete
 * events longest first, the rest in file order) matches a plain insertion
 * sort of the events in file order, over runs, ties and shuffles. */
static int pending_before(const json_pending *x, const json_pending *y, int keyed) {
  if (x->ts != y->ts) return x->ts < y->ts;
  return keyed && x->key < y->key;
}

static void check_scan_order(unsigned seed, int n, int with_complete) {
  static char doc[64 * 1024];
  size_t at = (size_t)snprintf(doc, sizeof doc, "{\"traceEvents\":[");
  unsigned x = seed;
  for (int i = 0; i < n; i++) {
    x = x * 1103515245u + 12345u;
    unsigned r = x >> 8;
    /* runs of rising ts broken now and then, many equal ts */
    int ts = (r % 4 == 0) ? (int)(r % 50) : i / 3;
    static const char *phs = "BEiXE";
    char ph = phs[(r >> 4) % (with_complete ? 5 : 3)];
    at += (size_t)snprintf(doc + at, sizeof doc - at, "%s{\"ts\":%d,\"ph\":\"%c\",\"dur\":%u}",
                           i ? "," : "", ts, ph, (r >> 8) % 4);
  }
  snprintf(doc + at, sizeof doc - at, "]}");
  import_scan_input in = scan_input(doc);
  void *result = NULL;
  base_error err = {0};
  CHECK_EQ_INT(json_scan_run(&in, &result, &err), 0);
  json_scan *scan = result;
  if (!scan) return;
  CHECK_EQ_INT(scan->events.len, (size_t)n);
  json_pending *want = malloc((size_t)n * sizeof *want);
  memcpy(want, scan->events.data, (size_t)n * sizeof *want);
  /* back to file order, then the reference sort */
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && want[j].offset < want[j - 1].offset; j--) {
      json_pending t = want[j];
      want[j] = want[j - 1];
      want[j - 1] = t;
    }
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && pending_before(&want[j], &want[j - 1], scan->has_complete); j--) {
      json_pending t = want[j];
      want[j] = want[j - 1];
      want[j - 1] = t;
    }
  int same = 1;
  for (int i = 0; i < n; i++) same &= want[i].offset == scan->events.data[i].offset;
  if (!same) fprintf(stderr, "  order differs: seed %u, %d events\n", seed, n);
  CHECK(same);
  CHECK_EQ_INT(scan->has_complete, strstr(doc, "\"X\"") != NULL);
  free(want);
  json_scan_free(result);
}

static void test_scan_order(void) {
  for (unsigned seed = 1; seed <= 40; seed++)
    for (int n = 1; n <= 300; n += 37) {
      check_scan_order(seed, n, 0);
      check_scan_order(seed, n, 1);
    }
}

/* The scan over a whole document (flat events read by the fast path, the
 * others by the tokenizer, which resumes after each flat one) finds every
 * event at the offset, end and time the general path reads there. */
static void test_scan_mixes_paths(void) {
  const char *doc =
      "{\"traceEvents\":[ {\"ts\":3,\"ph\":\"B\",\"args\":{\"a\":[1,{\"b\":2}]}},\n"
      "{\"ts\":1,\"name\":\"esc\\\"aped\",\"ph\":\"X\",\"dur\":2},[1,2],"
      "{ \"ph\" : \"i\" , \"ts\" : 2.5e0 },{},{\"ts\":\"4\",\"ph\":\"E\"},"
      "{\"ph\":\"M\",\"name\":\"process_name\"},{\"ts\":5,\"id2\":{\"local\":\"0x1\"}}],"
      "\"displayTimeUnit\":\"ns\"}";
  import_scan_input in = scan_input(doc);
  void *result = NULL;
  base_error err = {0};
  CHECK_EQ_INT(json_scan_run(&in, &result, &err), 0);
  json_scan *scan = result;
  CHECK(scan != NULL);
  if (!scan) return;
  CHECK_EQ_INT(scan->events.len, 6); /* {} and [1,2] are not events */
  CHECK_EQ_INT(scan->display_time_units, 1);
  import_file f = file_for(doc);
  for (size_t i = 0; i < scan->events.len; i++) {
    const json_pending *p = &scan->events.data[i];
    json_event e;
    memset(&e, 0, sizeof e);
    CHECK_EQ_INT(json_read_event_tokens(&f, p->offset, &e, NULL), 0);
    CHECK_EQ_INT(p->end, e.end);
    if (e.ts.valid) CHECK_EQ_INT(p->ts, e.ts.ns);
    json_event_free(&e);
  }
  json_scan_free(result);
}

/* A scan split at a guessed event boundary (two threads) finds exactly
 * what one walk finds, or fails the same way, wherever the guess falls:
 * between events, inside strings and nested values that look like a
 * boundary, in trailing keys, in a truncated or broken document. */
static int scans_same(const json_scan *a, const json_scan *b) {
  if (a->events.len + a->later.len != b->events.len + b->later.len ||
      a->metadata.len != b->metadata.len ||
      a->has_complete != b->has_complete || a->tokenizer_failures != b->tokenizer_failures ||
      a->display_time_units != b->display_time_units || a->has_systrace != b->has_systrace ||
      (a->has_systrace && (a->systrace_offset != b->systrace_offset ||
                           a->systrace_len != b->systrace_len)))
    return 0;
  json_scan_cursor ca = {0, 0}, cb = {0, 0};
  for (size_t i = 0; i < a->events.len + a->later.len; i++) {
    const json_pending *x = json_scan_next(a, &ca), *y = json_scan_next(b, &cb);
    if (!x || !y || x->ts != y->ts || x->key != y->key || x->offset != y->offset ||
        x->end != y->end)
      return 0;
  }
  if (json_scan_next(a, &ca) || json_scan_next(b, &cb)) return 0;
  for (size_t i = 0; i < a->metadata.len; i++)
    if (a->metadata.data[i] != b->metadata.data[i]) return 0;
  return 1;
}

static int split_two_runs; /* split scans whose result kept two runs */

static int check_split_scans(const char *doc) {
  import_scan_input in = scan_input(doc);
  void *whole = NULL;
  base_error ew = {0};
  int rw = json_scan_run(&in, &whole, &ew);
  int splits = 0;
  for (size_t guess = 0; guess <= in.len; guess++) {
    void *part = NULL;
    base_error ep = {0};
    int rp = json_scan_run_split(&in, guess, &part, &ep);
    int same = rp == rw && (rw ? strcmp(ep.message, ew.message) == 0
                               : scans_same(whole, part));
    if (!same) fprintf(stderr, "  split at %zu differs for: %s\n", guess, doc);
    CHECK(same);
    if (!rp) splits += ((json_scan *)part)->split;
    if (!rp) split_two_runs += ((json_scan *)part)->later.len != 0;
    json_scan_free(part);
  }
  json_scan_free(whole);
  return splits;
}

static void test_split_scan(void) {
  int splits = check_split_scans(
      "{\"traceEvents\":[{\"ts\":3,\"ph\":\"B\",\"args\":{\"s\":\"},{\"}}\n"
      ",{\"ts\":1,\"ph\":\"X\",\"dur\":2,\"args\":{\"a\":[{},{\"b\":1}]}} , {\"ts\":2,\"ph\":\"E\"},"
      "[{},{}],{\"ts\":\"x\",\"ph\":\"i\"},{\"name\":\"e\\\"sc},{\",\"ts\":4},{}],"
      "\"displayTimeUnit\":\"ns\",\"metadata\":{\"k\":[{},{}]},"
      "\"systemTraceEvents\":\"a},{b\"}");
  CHECK(splits > 0);
  splits = check_split_scans(
      "[{\"ts\":5,\"ph\":\"B\"},{\"ts\":1,\"ph\":\"E\"},\n{\"ts\":1,\"ph\":\"X\",\"dur\":1},"
      "{\"ts\":0,\"ph\":\"M\"}]");
  CHECK(splits > 0);
  /* Chrome's unterminated array; a broken event after the guess; nested
   * traceEvents-like arrays that are not the events array. */
  CHECK(check_split_scans("[{\"ts\":1,\"ph\":\"B\"},{\"ts\":2,\"ph\":\"E\"},{\"ts\":3,") > 0);
  check_split_scans("{\"traceEvents\":[{\"ts\":1},{\"ts\":2},{\"ts\":3,]}");
  check_split_scans("{\"traceEvents\":[{\"ts\":1},{\"ts\":2}],\"x\":[{\"ts\":3},{\"ts\":4}]}");
  check_split_scans("{\"other\":[{},{}],\"traceEvents\":[{\"ts\":1},{\"ts\":2}]}");
  check_split_scans("{\"a\":{\"b\":[{},{},{}]}}");
  check_split_scans("  [{},{},{}]  ");
  /* An X event with an unreadable dur ends the events, wherever the split
   * falls; the keys after the array are still read. */
  check_split_scans("{\"traceEvents\":[{\"ts\":1,\"ph\":\"B\"},{\"ts\":\"x\"},"
                    "{\"ts\":2,\"ph\":\"X\",\"dur\":\"5a\"},{\"ts\":\"y\"},"
                    "{\"ts\":3,\"ph\":\"E\"},{\"ts\":4,\"ph\":\"c\"}],"
                    "\"metadata\":{\"k\":1}}");
  check_split_scans("[{\"ts\":1,\"ph\":\"X\",\"dur\":null},{\"ts\":\"x\"},{\"ts\":2},{\"ts\":3,");
  /* Each thread orders its part and the join merges them: ties at one ts
   * across the split, out of order on both sides, complete events (the
   * tie key) on one side only, either side. */
  const char *ties = "{\"ts\":2,\"ph\":\"B\"},{\"ts\":1,\"ph\":\"B\"},{\"ts\":2,\"ph\":\"i\"},"
                     "{\"ts\":2,\"ph\":\"E\"},{\"ts\":1,\"ph\":\"E\"},{\"ts\":2,\"ph\":\"B\"}";
  const char *complete = "{\"ts\":2,\"ph\":\"X\",\"dur\":3},{\"ts\":2,\"ph\":\"X\",\"dur\":5},"
                         "{\"ts\":1,\"ph\":\"i\"},{\"ts\":2,\"ph\":\"e\"},{\"ts\":2,\"ph\":\"i\"}";
  char doc[1024];
  snprintf(doc, sizeof doc, "[%s,%s]", ties, complete);
  CHECK(check_split_scans(doc) > 0);
  snprintf(doc, sizeof doc, "[%s,%s]", complete, ties);
  CHECK(check_split_scans(doc) > 0);
  split_two_runs = 0;
  snprintf(doc, sizeof doc, "[%s,%s,%s]", complete, ties, complete);
  CHECK(check_split_scans(doc) > 0);
  CHECK(split_two_runs > 0); /* both parts keyed: the runs merged as pushed */
}

/* An X event whose dur does not read drops itself and every later event. */
static void test_bad_dur_cuts_events(void) {
  const char *doc = "[{\"ts\":1,\"ph\":\"B\"},{\"ts\":2,\"ph\":\"X\",\"dur\":\"5 \"},"
                    "{\"ts\":\"x\"},{\"ts\":3,\"ph\":\"E\"}]";
  import_scan_input in = scan_input(doc);
  void *result = NULL;
  base_error err = {0};
  CHECK(json_scan_run(&in, &result, &err) == 0);
  json_scan *s = result;
  CHECK(s->events.len == 1);
  CHECK(s->tokenizer_failures == 1);
  json_scan_free(result);
}

int main(void) {
  RUN_TEST(test_read_fields);
  RUN_TEST(test_flow_ids);
  RUN_TEST(test_repeated_keys_do_not_leak);
  RUN_TEST(test_truncated_event_fails);
  RUN_TEST(test_systrace_text);
  RUN_TEST(test_flat_path_agrees);
  RUN_TEST(test_scan_mixes_paths);
  RUN_TEST(test_flat_numbers_agree);
  RUN_TEST(test_scan_order);
  RUN_TEST(test_split_scan);
  RUN_TEST(test_bad_dur_cuts_events);
  return CHECK_SUMMARY();
}
