#include "base/base.h"
#include "check.h"
#include "manifest/manifest.h"

/* Parses `json` and returns "OK" or the error message. */
static const char *perr(const char *json) {
  static base_error err;
  manifest m;
  base_error_clear(&err);
  int rc = manifest_parse(json, strlen(json), &m, &err);
  manifest_free(&m);
  return rc ? err.message : "OK";
}

static int perr_code(const char *json) {
  base_error err = {0};
  manifest m;
  int rc = manifest_parse(json, strlen(json), &m, &err);
  manifest_free(&m);
  return rc;
}

/* Wraps a perfetto_manifest body: M("\"version\": 1") */
#define M(body) "{\"perfetto_manifest\": {" body "}}"
#define V1 "\"version\": 1, "

static const char seed_example[] =
    "{\n"
    "\"perfetto_manifest\": {\n"
    "\"version\": 1,\n"
    "\"trace_time\": {\"clock\": \"BOOTTIME\"},\n"
    "\"files\": [\n"
    "{\"path\": \"phone.pftrace\", \"machine\": {\"name\": \"phone\"}},\n"
    "{\"path\": \"watch.pftrace\", \"machine\": {\"name\": \"watch\"}},\n"
    "{\n"
    "\"path\": \"app_log.json\",\n"
    "\"clocks\": {\n"
    "\"sync_to\": {\"file\": \"phone.pftrace\", \"clock\": \"BOOTTIME\"},\n"
    "\"offset_ns\": 250000000\n"
    "}\n"
    "}\n"
    "]\n"
    "}\n"
    "}";

static void test_seed_example(void) {
  manifest m;
  base_error err = {0};
  CHECK_EQ_INT(manifest_parse(seed_example, sizeof seed_example - 1, &m, &err), 0);
  CHECK_EQ_INT(m.version, 1);
  CHECK(m.trace_time.present);
  CHECK_EQ_INT(m.trace_time.clock, MANIFEST_CLOCK_BOOTTIME);
  CHECK(m.trace_time.file == NULL && m.trace_time.machine == NULL);
  CHECK_EQ_INT(m.file_count, 3);
  CHECK_EQ_INT(m.attribute_count, 0);
  if (m.file_count == 3) {
    const manifest_file *f = m.files;
    CHECK_EQ_STR(f[0].path, "phone.pftrace");
    CHECK_EQ_STR(f[0].machine, "phone");
    CHECK(!f[0].has_machines && f[0].machine_count == 0 && !f[0].has_clocks);
    CHECK_EQ_STR(f[1].path, "watch.pftrace");
    CHECK_EQ_STR(f[1].machine, "watch");
    CHECK_EQ_STR(f[2].path, "app_log.json");
    CHECK(f[2].machine == NULL && f[2].has_clocks);
    CHECK_EQ_INT(f[2].clocks.clock, MANIFEST_CLOCK_NONE);
    CHECK(f[2].clocks.machine == NULL);
    CHECK_EQ_STR(f[2].clocks.sync_to.file, "phone.pftrace");
    CHECK_EQ_INT(f[2].clocks.sync_to.file_index, 0);
    CHECK(f[2].clocks.sync_to.machine == NULL);
    CHECK_EQ_INT(f[2].clocks.sync_to.clock, MANIFEST_CLOCK_BOOTTIME);
    CHECK_EQ_INT(f[2].clocks.offset_ns, 250000000);
    CHECK(manifest_find_file(&m, "watch.pftrace") == &f[1]);
    CHECK(manifest_find_file(&m, "app_log.json") == &f[2]);
    CHECK(manifest_find_file(&m, "nope") == NULL);
    CHECK(manifest_file_declares_machine(&f[0], "phone"));
    CHECK(!manifest_file_declares_machine(&f[0], "watch"));
  }
  manifest_free(&m);
  manifest_free(&m); /* idempotent */
}

static void test_full_struct(void) {
  const char *doc = M(
      "\"files\": [{\"path\": \"relay.pb\", \"machines\": [{\"id\": 1234, \"name\": \"vm\"},"
      " {\"id\": 0, \"name\": \"host\"}, {\"id\": 4294967295, \"name\": \"max\"}],"
      " \"clocks\": {\"clock\": \"MONOTONIC\", \"machine\": \"vm\", \"offset_ns\": -5,"
      " \"sync_to\": {\"file\": \"b.json\", \"machine\": \"srv\", \"clock\": \"REALTIME\"}}},"
      " {\"path\": \"b.json\", \"machine\": {\"name\": \"srv\"}}],"
      "\"trace_time\": {\"clock\": \"MONOTONIC_RAW\", \"file\": \"relay.pb\", \"machine\": \"host\"},"
      "\"attributes\": {\"flags\": \"x\\u00e9\", \"n\": -7},"
      "\"version\": 1");
  manifest m;
  base_error err = {0};
  CHECK_EQ_INT(manifest_parse(doc, strlen(doc), &m, &err), 0);
  CHECK_EQ_STR(err.message, "");
  CHECK_EQ_INT(m.file_count, 2);
  if (m.file_count == 2) {
    const manifest_file *f = &m.files[0];
    CHECK(f->has_machines && f->machine_count == 3 && f->machine == NULL);
    CHECK_EQ_INT(f->machines[0].id, 1234);
    CHECK_EQ_STR(f->machines[0].name, "vm");
    CHECK_EQ_INT(f->machines[2].id, 4294967295u);
    const manifest_machine *mm = manifest_file_find_machine_id(f, 0);
    CHECK(mm && strcmp(mm->name, "host") == 0);
    CHECK(manifest_file_find_machine_id(f, 7) == NULL);
    mm = manifest_file_find_machine_name(f, "max");
    CHECK(mm && mm->id == 4294967295u);
    CHECK(manifest_file_find_machine_name(f, "nobody") == NULL);
    CHECK_EQ_INT(f->clocks.clock, MANIFEST_CLOCK_MONOTONIC);
    CHECK_EQ_STR(f->clocks.machine, "vm");
    CHECK_EQ_INT(f->clocks.offset_ns, -5);
    CHECK_EQ_STR(f->clocks.sync_to.file, "b.json");
    CHECK_EQ_INT(f->clocks.sync_to.file_index, 1);
    CHECK_EQ_STR(f->clocks.sync_to.machine, "srv");
    CHECK_EQ_INT(f->clocks.sync_to.clock, MANIFEST_CLOCK_REALTIME);
    CHECK(manifest_file_find_machine_id(&m.files[1], 0) == NULL);
  }
  CHECK_EQ_INT(m.trace_time.clock, MANIFEST_CLOCK_MONOTONIC_RAW);
  CHECK_EQ_STR(m.trace_time.file, "relay.pb");
  CHECK_EQ_STR(m.trace_time.machine, "host");
  CHECK_EQ_INT(m.attribute_count, 2);
  if (m.attribute_count == 2) {
    CHECK_EQ_STR(m.attributes[0].key, "flags");
    CHECK(!m.attributes[0].is_int);
    CHECK_EQ_STR(m.attributes[0].str_value, "x\xc3\xa9");
    CHECK_EQ_STR(m.attributes[1].key, "n");
    CHECK(m.attributes[1].is_int && m.attributes[1].int_value == -7);
  }
  manifest_free(&m);

  /* minimal manifest, and every clock name */
  CHECK_EQ_STR(perr(M("\"version\": 1")), "OK");
  const char *names[] = {"REALTIME", "REALTIME_COARSE", "MONOTONIC",
                         "MONOTONIC_COARSE", "MONOTONIC_RAW", "BOOTTIME"};
  for (uint32_t c = 1; c <= 6; c++) {
    CHECK_EQ_STR(manifest_clock_name(c), names[c - 1]);
    CHECK_EQ_INT(manifest_clock_from_name(names[c - 1], strlen(names[c - 1])), c);
  }
  CHECK(manifest_clock_name(0) == NULL && manifest_clock_name(7) == NULL);
  CHECK_EQ_INT(manifest_clock_from_name("boottime", 8), MANIFEST_CLOCK_NONE);
}

static void test_unknown_fields_ignored(void) {
  const char *doc =
      "{\"perfetto_manifest\": {\"future\": {\"deep\": [1, {\"x\": null}]}, " V1
      "\"trace_time\": {\"clock\": \"REALTIME\", \"extra\": [true]},"
      "\"files\": [{\"path\": \"a\", \"note\": \"hi\", \"machine\": {\"name\": \"m\","
      " \"color\": \"red\"}, \"machines_v2\": 3,"
      " \"clocks\": {\"sync_to\": {\"file\": \"b\", \"tolerance\": 1.5}, \"why\": {}}},"
      " {\"path\": \"b\", \"machines\": [{\"id\": 1, \"name\": \"x\", \"arch\": \"arm\"}]}]},"
      " \"other_top_level\": [1, 2]}";
  manifest m;
  base_error err = {0};
  CHECK_EQ_INT(manifest_parse(doc, strlen(doc), &m, &err), 0);
  CHECK_EQ_STR(err.message, "");
  CHECK_EQ_INT(m.file_count, 2);
  manifest_free(&m);
  /* escaped keys are matched after decoding */
  CHECK_EQ_STR(perr("{\"perfetto_\\u006danifest\": {\"\\u0076ersion\": 1}}"), "OK");
  /* unknown fields must still be valid JSON */
  CHECK_EQ_STR(perr(M(V1 "\"future\": [1,]")),
               "perfetto_manifest: json: trailing comma before ']' at offset 50 "
               "(line 1, column 51)");
}

/* Every row of the format's error table that can be checked statically. */
static void test_error_table(void) {
  CHECK_EQ_STR(perr("{\"perfetto_manifest\": {}}"),
               "perfetto_manifest: missing required field: version");
  CHECK_EQ_STR(perr(M("\"version\": 2")),
               "perfetto_manifest: unsupported version: 2. Only version 1 is supported; set \"version\": 1.");
  CHECK_EQ_INT(perr_code(M("\"version\": 2")), WEFT_EUNSUPPORTED);
  CHECK_EQ_STR(perr(M("\"version\": 0")),
               "perfetto_manifest: unsupported version: 0. Only version 1 is supported; set \"version\": 1.");
  CHECK_EQ_STR(perr(M("\"version\": -1")),
               "perfetto_manifest: unsupported version: -1. Only version 1 is supported; set \"version\": 1.");
  CHECK_EQ_STR(perr(M("\"version\": 99999999999999999999")),
               "perfetto_manifest: unsupported version: 99999999999999999999. Only "
               "version 1 is supported; set \"version\": 1.");
  CHECK_EQ_STR(perr(M(V1 "\"trace_time\": {\"clock\": \"X\"}")),
               "perfetto_manifest: unknown clock name: X. Use one of REALTIME, "
               "REALTIME_COARSE, MONOTONIC, MONOTONIC_COARSE, MONOTONIC_RAW, BOOTTIME.");
  CHECK_EQ_STR(perr(M(V1 "\"files\": [{\"path\": \"a\", \"clocks\": {\"clock\": \"CPU\","
                         " \"sync_to\": {\"file\": \"a\"}}}]")),
               "perfetto_manifest: unknown clock name: CPU. Use one of REALTIME, "
               "REALTIME_COARSE, MONOTONIC, MONOTONIC_COARSE, MONOTONIC_RAW, BOOTTIME.");
  CHECK_EQ_STR(perr(M(V1 "\"files\": [{\"path\": \"b\"}, {\"path\": \"a\", \"clocks\": "
                         "{\"sync_to\": {\"file\": \"b\", \"clock\": \"boottime\"}}}]")),
               "perfetto_manifest: unknown clock name: boottime. Use one of REALTIME, "
               "REALTIME_COARSE, MONOTONIC, MONOTONIC_COARSE, MONOTONIC_RAW, BOOTTIME.");
  CHECK_EQ_STR(perr(M(V1 "\"files\": [{\"path\": \"a\", \"machine\": {\"name\": \"x\"},"
                         " \"machines\": []}]")),
               "perfetto_manifest: machine and machines are mutually exclusive");
  CHECK_EQ_STR(perr(M(V1 "\"files\": [{\"machines\": [{\"id\": 0, \"name\": \"x\"}],"
                         " \"machine\": {\"name\": \"x\"}, \"path\": \"a\"}]")),
               "perfetto_manifest: machine and machines are mutually exclusive");
  CHECK_EQ_STR(perr(M(V1 "\"files\": [{\"path\": \"a\", \"machine\": {\"name\": \"\"}}]")),
               "perfetto_manifest: machine: name must be non-empty");
  CHECK_EQ_STR(perr(M(V1 "\"files\": [{\"path\": \"a\", \"machines\": [{\"id\": 4294967296,"
                         " \"name\": \"vm\"}]}]")),
               "perfetto_manifest: machines: id must be in [0, 4294967295]");
  CHECK_EQ_STR(perr(M(V1 "\"files\": [{\"path\": \"a\", \"machines\": [{\"id\": -1,"
                         " \"name\": \"vm\"}]}]")),
               "perfetto_manifest: machines: id must be in [0, 4294967295]");
  CHECK_EQ_STR(perr(M(V1 "\"files\": [{\"path\": \"a\", \"machines\": [{\"id\": "
                         "123456789012345678901234, \"name\": \"vm\"}]}]")),
               "perfetto_manifest: machines: id must be in [0, 4294967295]");
  CHECK_EQ_STR(perr(M(V1 "\"files\": [{\"path\": \"a\", \"clocks\": {\"offset_ns\": 1}}]")),
               "perfetto_manifest: clocks: a sync_to block is required. Manual clock "
               "handling relates this file to a clock in another trace, e.g. "
               "\"sync_to\": {\"file\": \"other.pb\"}.");
  CHECK_EQ_STR(perr(M(V1 "\"files\": [{\"path\": \"a\", \"clocks\": {\"sync_to\": {}}}]")),
               "perfetto_manifest: clocks: sync_to.file is required and must be a string");
  CHECK_EQ_STR(perr(M(V1 "\"files\": [{\"path\": \"a\", \"clocks\": {\"sync_to\": "
                         "{\"clock\": \"BOOTTIME\"}}}]")),
               "perfetto_manifest: clocks: sync_to.file is required and must be a string");
  CHECK_EQ_STR(perr(M(V1 "\"files\": [{\"path\": \"a.pb\", \"clocks\": {\"sync_to\": "
                         "{\"file\": \"ghost.pb\", \"clock\": \"BOOTTIME\"}}}]")),
               "perfetto_manifest: clocks: sync_to.file names unknown file 'ghost.pb'. "
               "It must match the `path` of an entry in the `files` array.");
  CHECK_EQ_STR(perr(M(V1 "\"files\": [{\"path\": \"a\", \"clocks\": {\"sync_to\": "
                         "{\"machine\": \"vm\"}}}]")),
               "perfetto_manifest: clocks: a machine name alone is ambiguous, name "
               "the file too");
  CHECK_EQ_STR(perr(M(V1 "\"files\": [{\"path\": \"a\", \"clocks\": {\"offset_ns\": 1.5,"
                         " \"sync_to\": {\"file\": \"a\"}}}]")),
               "perfetto_manifest: clocks: offset_ns must be an integer");
  CHECK_EQ_STR(perr(M(V1 "\"files\": [{\"path\": \"a\", \"clocks\": {\"offset_ns\": \"5\","
                         " \"sync_to\": {\"file\": \"a\"}}}]")),
               "perfetto_manifest: clocks: offset_ns must be an integer");
  CHECK_EQ_STR(perr(M(V1 "\"files\": [{\"path\": \"a\", \"clocks\": {\"offset_ns\": 1e3,"
                         " \"sync_to\": {\"file\": \"a\"}}}]")),
               "perfetto_manifest: clocks: offset_ns must be an integer");
  CHECK_EQ_STR(perr(M(V1 "\"files\": [{\"path\": \"a\", \"clocks\": {\"offset_ns\": "
                         "-9223372036854775808, \"sync_to\": {\"file\": \"a\"}}}]")),
               "perfetto_manifest: clocks: offset_ns is out of range");
  CHECK_EQ_STR(perr(M(V1 "\"files\": [{\"path\": \"a\", \"clocks\": {\"offset_ns\": "
                         "9223372036854775808, \"sync_to\": {\"file\": \"a\"}}}]")),
               "perfetto_manifest: clocks: offset_ns is out of range");
  /* INT64_MIN + 1 and INT64_MAX are fine */
  CHECK_EQ_STR(perr(M(V1 "\"files\": [{\"path\": \"a\"}, {\"path\": \"b\", \"clocks\": "
                         "{\"offset_ns\": -9223372036854775807, \"sync_to\": {\"file\": \"a\"}}},"
                         " {\"path\": \"c\", \"clocks\": {\"offset_ns\": 9223372036854775807,"
                         " \"sync_to\": {\"file\": \"a\"}}}]")),
               "OK");
  /* the source / reference machine must be declared by its file */
  CHECK_EQ_STR(perr(M(V1 "\"files\": [{\"path\": \"a.pb\", \"machine\": {\"name\": \"phone\"},"
                         " \"clocks\": {\"machine\": \"ghost\", \"clock\": \"BOOTTIME\","
                         " \"sync_to\": {\"file\": \"b.pb\", \"clock\": \"BOOTTIME\"}}},"
                         " {\"path\": \"b.pb\", \"machine\": {\"name\": \"srv\"}}]")),
               "perfetto_manifest: clocks: machine 'ghost' is not a machine declared by "
               "file 'a.pb'.");
  CHECK_EQ_STR(perr(M(V1 "\"files\": [{\"path\": \"a.pb\", \"clocks\": {\"sync_to\": "
                         "{\"file\": \"m.pb\", \"machine\": \"vm2\"}}},"
                         " {\"path\": \"m.pb\", \"machines\": [{\"id\": 0, \"name\": \"host\"},"
                         " {\"id\": 7, \"name\": \"vm\"}]}]")),
               "perfetto_manifest: clocks: sync_to.machine 'vm2' is not a machine "
               "declared by file 'm.pb'.");
  CHECK_EQ_STR(perr(M(V1 "\"files\": [{\"path\": \"a.pb\", \"clocks\": {\"sync_to\": "
                         "{\"file\": \"m.pb\", \"machine\": \"vm\"}}},"
                         " {\"path\": \"m.pb\", \"machines\": [{\"id\": 0, \"name\": \"host\"},"
                         " {\"id\": 7, \"name\": \"vm\"}]}]")),
               "OK");
}

static void test_trace_time_errors(void) {
  CHECK_EQ_STR(perr(M(V1 "\"trace_time\": {\"file\": \"ghost.pb\", \"clock\": \"BOOTTIME\"},"
                         " \"files\": [{\"path\": \"a.json\"}]")),
               "perfetto_manifest: trace_time: file names unknown file 'ghost.pb'. It "
               "must match the `path` of an entry in the `files` array.");
  CHECK_EQ_STR(perr(M(V1 "\"trace_time\": {\"file\": \"a\", \"clock\": \"BOOTTIME\"}")),
               "perfetto_manifest: trace_time: file names unknown file 'a'. It must "
               "match the `path` of an entry in the `files` array.");
  CHECK_EQ_STR(perr(M(V1 "\"trace_time\": {\"machine\": \"vm\", \"clock\": \"BOOTTIME\"}")),
               "perfetto_manifest: trace_time: a machine name alone is ambiguous, name "
               "the file too");
  CHECK_EQ_STR(perr(M(V1 "\"trace_time\": {\"file\": \"a\", \"machine\": \"vm\","
                         " \"clock\": \"BOOTTIME\"}, \"files\": [{\"path\": \"a\","
                         " \"machine\": {\"name\": \"phone\"}}]")),
               "perfetto_manifest: trace_time: machine 'vm' is not a machine declared "
               "by file 'a'.");
  CHECK_EQ_STR(perr(M(V1 "\"trace_time\": {\"file\": \"a\", \"machine\": \"phone\","
                         " \"clock\": \"BOOTTIME\"}, \"files\": [{\"path\": \"a\","
                         " \"machine\": {\"name\": \"phone\"}}]")),
               "OK");
  CHECK_EQ_STR(perr(M(V1 "\"trace_time\": {\"file\": \"a\"}, \"files\": [{\"path\": \"a\"}]")),
               "perfetto_manifest: trace_time: missing required field: clock");
}

static void test_type_errors(void) {
  CHECK_EQ_STR(perr(M("\"version\": 1.5")), "perfetto_manifest: version must be an integer");
  CHECK_EQ_STR(perr(M("\"version\": 1.0")), "perfetto_manifest: version must be an integer");
  CHECK_EQ_STR(perr(M("\"version\": \"1\"")), "perfetto_manifest: version must be an integer");
  CHECK_EQ_STR(perr(M("\"version\": [1]")), "perfetto_manifest: version must be an integer");
  CHECK_EQ_STR(perr(M("\"version\": {\"v\": 1}")),
               "perfetto_manifest: version must be an integer");
  CHECK_EQ_STR(perr(M("\"version\": null")), "perfetto_manifest: version must be an integer");
  CHECK_EQ_STR(perr(M("\"version\": 1, \"version\": 1")),
               "perfetto_manifest: duplicate field: version");
  CHECK_EQ_STR(perr("[]"), "perfetto_manifest: the document must be a JSON object");
  CHECK_EQ_STR(perr("{\"other\": 1}"),
               "perfetto_manifest: missing required field: perfetto_manifest");
  CHECK_EQ_STR(perr("{\"perfetto_manifest\": \"x\"}"),
               "perfetto_manifest: perfetto_manifest must be an object");
  CHECK_EQ_STR(perr("{\"perfetto_manifest\": {\"version\": 1}} x"),
               "perfetto_manifest: json: unexpected character 'x', expected end of input "
               "after the top-level value at offset 38 (line 1, column 39)");
  CHECK_EQ_STR(perr("{\"perfetto_manifest\": {\"version\": 1}"),
               "perfetto_manifest: json: unexpected end of input at offset 36 (line 1, "
               "column 37)");
  CHECK_EQ_STR(perr(M(V1 "\"trace_time\": \"BOOTTIME\"")),
               "perfetto_manifest: trace_time must be an object");
  CHECK_EQ_STR(perr(M(V1 "\"trace_time\": {\"clock\": 6}")),
               "perfetto_manifest: trace_time: clock must be a string");
  CHECK_EQ_STR(perr(M(V1 "\"trace_time\": {\"clock\": \"BOOTTIME\", \"file\": 1}")),
               "perfetto_manifest: trace_time: file must be a string");
  CHECK_EQ_STR(perr(M(V1 "\"files\": {}")), "perfetto_manifest: files must be an array");
  CHECK_EQ_STR(perr(M(V1 "\"files\": [\"a.pb\"]")),
               "perfetto_manifest: files: each entry must be an object");
  CHECK_EQ_STR(perr(M(V1 "\"files\": [{}]")),
               "perfetto_manifest: files: missing required field: path");
  CHECK_EQ_STR(perr(M(V1 "\"files\": [{\"path\": \"\"}]")),
               "perfetto_manifest: files: path must be non-empty");
  CHECK_EQ_STR(perr(M(V1 "\"files\": [{\"path\": [\"a\"]}]")),
               "perfetto_manifest: files: path must be a string");
  CHECK_EQ_STR(perr(M(V1 "\"files\": [{\"path\": \"a\\u0000b\"}]")),
               "perfetto_manifest: files: path must not contain NUL characters");
  CHECK_EQ_STR(perr(M(V1 "\"files\": [{\"path\": \"a\"}, {\"path\": \"a\"}]")),
               "perfetto_manifest: files: duplicate entry for path 'a'");
  CHECK_EQ_STR(perr(M(V1 "\"files\": [{\"path\": \"a\", \"path\": \"b\"}]")),
               "perfetto_manifest: files: duplicate field: path");
  CHECK_EQ_STR(perr(M(V1 "\"files\": [{\"path\": \"a\", \"machine\": \"phone\"}]")),
               "perfetto_manifest: machine must be an object");
  CHECK_EQ_STR(perr(M(V1 "\"files\": [{\"path\": \"a\", \"machine\": {}}]")),
               "perfetto_manifest: machine: missing required field: name");
  CHECK_EQ_STR(perr(M(V1 "\"files\": [{\"path\": \"a\", \"machine\": {\"name\": 3}}]")),
               "perfetto_manifest: machine: name must be a string");
  CHECK_EQ_STR(perr(M(V1 "\"files\": [{\"path\": \"a\", \"machines\": {}}]")),
               "perfetto_manifest: machines must be an array");
  CHECK_EQ_STR(perr(M(V1 "\"files\": [{\"path\": \"a\", \"machines\": [0]}]")),
               "perfetto_manifest: machines entries need an integer id and a string name, e.g. "
               "\"machines\": [{\"id\": 0, \"name\": \"phone\"}].");
  CHECK_EQ_STR(perr(M(V1 "\"files\": [{\"path\": \"a\", \"machines\": [{\"name\": \"x\"}]}]")),
               "perfetto_manifest: machines entries need an integer id and a string name, e.g. "
               "\"machines\": [{\"id\": 0, \"name\": \"phone\"}].");
  CHECK_EQ_STR(perr(M(V1 "\"files\": [{\"path\": \"a\", \"machines\": [{\"id\": 1}]}]")),
               "perfetto_manifest: machines entries need an integer id and a string name, e.g. "
               "\"machines\": [{\"id\": 0, \"name\": \"phone\"}].");
  CHECK_EQ_STR(perr(M(V1 "\"files\": [{\"path\": \"a\", \"machines\": [{\"id\": 1,"
                         " \"name\": \"\"}]}]")),
               "perfetto_manifest: machines: name must be non-empty");
  CHECK_EQ_STR(perr(M(V1 "\"files\": [{\"path\": \"a\", \"machines\": [{\"id\": \"1\","
                         " \"name\": \"x\"}]}]")),
               "perfetto_manifest: machines entries need an integer id and a string name, e.g. "
               "\"machines\": [{\"id\": 0, \"name\": \"phone\"}].");
  CHECK_EQ_STR(perr(M(V1 "\"files\": [{\"path\": \"a\", \"machines\": [{\"id\": 1.5,"
                         " \"name\": \"x\"}]}]")),
               "perfetto_manifest: machines entries need an integer id and a string name, e.g. "
               "\"machines\": [{\"id\": 0, \"name\": \"phone\"}].");
  CHECK_EQ_STR(perr(M(V1 "\"files\": [{\"path\": \"a\", \"machines\": [{\"id\": 3, \"name\":"
                         " \"x\"}, {\"id\": 3, \"name\": \"y\"}]}]")),
               "perfetto_manifest: machines: duplicate id 3");
  CHECK_EQ_STR(perr(M(V1 "\"files\": [{\"path\": \"a\", \"clocks\": []}]")),
               "perfetto_manifest: clocks must be an object");
  CHECK_EQ_STR(perr(M(V1 "\"files\": [{\"path\": \"a\", \"clocks\": {\"sync_to\": \"a\"}}]")),
               "perfetto_manifest: clocks: sync_to must be an object");
  CHECK_EQ_STR(perr(M(V1 "\"files\": [{\"path\": \"a\", \"clocks\": {\"sync_to\": "
                         "{\"file\": 1}}}]")),
               "perfetto_manifest: clocks: sync_to.file must be a string");
  CHECK_EQ_STR(perr(M(V1 "\"files\": [{\"path\": \"a\", \"clocks\": {\"sync_to\": "
                         "{\"file\": \"a\", \"machine\": null}}}]")),
               "perfetto_manifest: clocks: sync_to.machine must be a string");
  CHECK_EQ_STR(perr(M(V1 "\"files\": [{\"path\": \"a\", \"clocks\": {\"sync_to\": "
                         "{\"file\": \"a\", \"clock\": true}}}]")),
               "perfetto_manifest: clocks: sync_to.clock must be a string");
  CHECK_EQ_STR(perr(M(V1 "\"files\": [{\"path\": \"a\", \"clocks\": {\"clock\": 1,"
                         " \"sync_to\": {\"file\": \"a\"}}}]")),
               "perfetto_manifest: clocks: clock must be a string");
  CHECK_EQ_STR(perr(M(V1 "\"files\": [{\"path\": \"a\", \"clocks\": {\"machine\": {},"
                         " \"sync_to\": {\"file\": \"a\"}}}]")),
               "perfetto_manifest: clocks: machine must be a string");
  CHECK_EQ_STR(perr(M(V1 "\"attributes\": [1]")),
               "perfetto_manifest: attributes must be an object of string or integer "
               "values, e.g. \"attributes\": {\"benchmark\": \"startup\"}.");
  CHECK_EQ_STR(perr(M(V1 "\"attributes\": {\"flags\": [\"a\", \"b\"]}")),
               "perfetto_manifest: attributes: 'flags' must be a string or an integer");
  CHECK_EQ_STR(perr(M(V1 "\"attributes\": {\"ratio\": 0.5}")),
               "perfetto_manifest: attributes: 'ratio' must be a string or an integer");
  /* control bytes in user strings are not copied raw into messages */
  CHECK_EQ_STR(perr(M(V1 "\"trace_time\": {\"clock\": \"a\\nb\"}")),
               "perfetto_manifest: unknown clock name: a?b. Use one of REALTIME, "
               "REALTIME_COARSE, MONOTONIC, MONOTONIC_COARSE, MONOTONIC_RAW, BOOTTIME.");
}

static void test_cycles(void) {
  CHECK_EQ_STR(perr(M(V1 "\"files\": [{\"path\": \"a\", \"clocks\": {\"sync_to\": "
                         "{\"file\": \"a\"}}}]")),
               "perfetto_manifest: clocks: sync_to forms a cycle: a -> a");
  CHECK_EQ_STR(perr(M(V1 "\"files\": [{\"path\": \"a\", \"clocks\": {\"sync_to\": "
                         "{\"file\": \"b\"}}}, {\"path\": \"b\", \"clocks\": {\"sync_to\": "
                         "{\"file\": \"a\"}}}]")),
               "perfetto_manifest: clocks: sync_to forms a cycle: a -> b -> a");
  CHECK_EQ_STR(perr(M(V1 "\"files\": [{\"path\": \"x\", \"clocks\": {\"sync_to\": "
                         "{\"file\": \"a\"}}}, {\"path\": \"a\", \"clocks\": {\"sync_to\": "
                         "{\"file\": \"b\"}}}, {\"path\": \"b\", \"clocks\": {\"sync_to\": "
                         "{\"file\": \"c\"}}}, {\"path\": \"c\", \"clocks\": {\"sync_to\": "
                         "{\"file\": \"a\"}}}]")),
               "perfetto_manifest: clocks: sync_to forms a cycle: a -> b -> c -> a");
  /* chains and trees without cycles are fine */
  CHECK_EQ_STR(perr(M(V1 "\"files\": [{\"path\": \"a\", \"clocks\": {\"sync_to\": "
                         "{\"file\": \"b\"}}}, {\"path\": \"b\", \"clocks\": {\"sync_to\": "
                         "{\"file\": \"c\"}}}, {\"path\": \"d\", \"clocks\": {\"sync_to\": "
                         "{\"file\": \"c\"}}}, {\"path\": \"c\"}]")),
               "OK");

  /* a long chain closed into one cycle: linear time, bounded message */
  base_buf b;
  base_buf_init(&b, 0);
  int n = 20000;
  const char *head = "{\"perfetto_manifest\": {\"version\": 1, \"files\": [";
  base_buf_append(&b, head, strlen(head));
  for (int i = 0; i < n; i++)
    base_buf_appendf(&b, "%s{\"path\": \"f%d\", \"clocks\": {\"sync_to\": {\"file\": \"f%d\"}}}",
                     i ? "," : "", i, (i + 1) % n);
  base_buf_append(&b, "]}}", 3);
  manifest m;
  base_error err = {0};
  CHECK_EQ_INT(manifest_parse(b.data, b.len, &m, &err), WEFT_EPARSE);
  CHECK(strncmp(err.message, "perfetto_manifest: clocks: sync_to forms a cycle: f0 -> f1 -> ",
                62) == 0);
  CHECK(strlen(err.message) < 800);
  CHECK(strstr(err.message, " -> ... -> f0") != NULL);
  manifest_free(&m);
  base_buf_free(&b);
}

/* The conformance corpus manifests (meta.json of each parser/trace_manifest
 * test whose error is decidable from the manifest alone). */
static void test_conformance_manifests(void) {
  CHECK_EQ_STR(perr("{\"perfetto_manifest\": {\"version\": 1, \"attributes\": {\"flags\": "
                    "[\"a\", \"b\"]}}}"),
               "perfetto_manifest: attributes: 'flags' must be a string or an integer");
  CHECK_EQ_STR(perr("{\"perfetto_manifest\": {\"version\": 1, \"files\": [{\"path\": "
                    "\"app.json\", \"machines\": [{\"id\": 4294967296, \"name\": \"vm\"}]}]}}"),
               "perfetto_manifest: machines: id must be in [0, 4294967295]");
  CHECK_EQ_STR(perr("{\"perfetto_manifest\": {}}"),
               "perfetto_manifest: missing required field: version");
  CHECK(strstr(perr("{\"perfetto_manifest\": {\"version\": 1, \"files\": [{\"path\": \"a.pb\","
                    " \"machine\": {\"name\": \"phone\"}, \"clocks\": {\"machine\": \"ghost\","
                    " \"clock\": \"BOOTTIME\", \"sync_to\": {\"file\": \"b.pb\", \"clock\": "
                    "\"BOOTTIME\"}}}, {\"path\": \"b.pb\", \"machine\": {\"name\": \"srv\"}}]}}"),
               "perfetto_manifest: clocks: machine 'ghost' is not a machine declared by "
               "file 'a.pb'.") != NULL);
  CHECK(strstr(perr("{\"perfetto_manifest\": {\"version\": 1, \"files\": [{\"path\": \"a.pb\","
                    " \"machine\": {\"name\": \"phone\"}, \"clocks\": {\"clock\": \"BOOTTIME\","
                    " \"offset_ns\": 1, \"sync_to\": {\"file\": \"ghost.pb\", \"clock\": "
                    "\"BOOTTIME\"}}}]}}"),
               "perfetto_manifest: clocks: sync_to.file names unknown file 'ghost.pb'") != NULL);
  CHECK(strstr(perr("{\"perfetto_manifest\": {\"version\": 1, \"trace_time\": {\"file\": "
                    "\"ghost.pb\", \"clock\": \"BOOTTIME\"}, \"files\": [{\"path\": \"a.json\"}]}}"),
               "perfetto_manifest: trace_time: file names unknown file 'ghost.pb'") != NULL);
  CHECK(strstr(perr("{\"perfetto_manifest\": {\"version\": 99}}"),
               "perfetto_manifest: unsupported version: 99") != NULL);
  CHECK_EQ_STR(perr("{\"perfetto_manifest\": {\"version\": 1.5}}"),
               "perfetto_manifest: version must be an integer");
  /* accepted manifests from the corpus */
  const char *ok[] = {
      "{\"perfetto_manifest\": {\"version\": 1, \"files\": [{\"path\": \"phone.pb\", \"machine\": "
      "{\"name\": \"phone\"}}, {\"path\": \"app.json\", \"machine\": {\"name\": \"server\"}, "
      "\"clocks\": {\"offset_ns\": 500, \"sync_to\": {\"file\": \"phone.pb\", \"clock\": "
      "\"BOOTTIME\"}}}]}}",
      "{\"perfetto_manifest\": {\"version\": 1, \"files\": [{\"path\": \"multi.pb\", "
      "\"machines\": [{\"id\": 0, \"name\": \"phone\"}, {\"id\": 7, \"name\": \"vm\"}], "
      "\"clocks\": {\"machine\": \"vm\", \"clock\": \"BOOTTIME\", \"offset_ns\": 500, "
      "\"sync_to\": {\"file\": \"server.pb\", \"clock\": \"BOOTTIME\"}}}, {\"path\": "
      "\"server.pb\", \"machine\": {\"name\": \"server\"}}], \"trace_time\": {\"file\": "
      "\"server.pb\", \"clock\": \"BOOTTIME\"}}}",
      "{\"perfetto_manifest\": {\"version\": 1, \"files\": [{\"path\": \"a.json\"}, {\"path\": "
      "\"b.json\", \"clocks\": {\"offset_ns\": 500, \"sync_to\": {\"file\": \"a.json\"}}}]}}",
      "{\"perfetto_manifest\": {\"version\": 1, \"files\": [{\"path\": \"p.pb\", \"machines\": "
      "[{\"id\": 0, \"name\": \"host_p\"}, {\"id\": 7, \"name\": \"shared\"}]}, {\"path\": "
      "\"q.pb\", \"machines\": [{\"id\": 0, \"name\": \"host_q\"}, {\"id\": 7, \"name\": "
      "\"shared\"}]}]}}",
      /* error_multi_machine_source_needs_machine: only the traces tell */
      "{\"perfetto_manifest\": {\"version\": 1, \"files\": [{\"path\": \"multi.pb\", "
      "\"machines\": [{\"id\": 0, \"name\": \"phone\"}, {\"id\": 7, \"name\": \"vm\"}], "
      "\"clocks\": {\"clock\": \"BOOTTIME\", \"sync_to\": {\"file\": \"server.pb\", \"clock\": "
      "\"BOOTTIME\"}}}, {\"path\": \"server.pb\", \"machine\": {\"name\": \"server\"}}]}}",
  };
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) CHECK_EQ_STR(perr(ok[i]), "OK");
}

static void test_content_checks(void) {
  const char *doc =
      "{\"perfetto_manifest\": {\"version\": 1, \"files\": [{\"path\": \"multi.pb\", "
      "\"machines\": [{\"id\": 0, \"name\": \"phone\"}, {\"id\": 7, \"name\": \"vm\"}], "
      "\"clocks\": {\"clock\": \"BOOTTIME\", \"sync_to\": {\"file\": \"server.pb\", \"clock\": "
      "\"BOOTTIME\"}}}, {\"path\": \"server.pb\", \"machine\": {\"name\": \"server\"}},"
      " {\"path\": \"c.pb\", \"clocks\": {\"sync_to\": {\"file\": \"m2.pb\"}}},"
      " {\"path\": \"m2.pb\"}, {\"path\": \"e.pb\"}]}}";
  manifest m;
  base_error err = {0};
  CHECK_EQ_INT(manifest_parse(doc, strlen(doc), &m, &err), 0);
  CHECK_EQ_INT(manifest_check_multi_machine(&m, "multi.pb", &err), WEFT_EPARSE);
  CHECK_EQ_STR(err.message,
               "perfetto_manifest: clocks: file 'multi.pb' is a multi-machine trace; name "
               "which machine the clock is on with clocks: machine.");
  CHECK_EQ_INT(manifest_check_multi_machine(&m, "m2.pb", &err), WEFT_EPARSE);
  CHECK_EQ_STR(err.message,
               "perfetto_manifest: clocks: sync_to.file 'm2.pb' is a multi-machine trace; "
               "also name the machine with clocks: sync_to.machine");
  CHECK_EQ_INT(manifest_check_multi_machine(&m, "server.pb", &err), WEFT_EPARSE);
  CHECK_EQ_STR(err.message,
               "perfetto_manifest: clocks: sync_to.file 'server.pb' is a multi-machine "
               "trace; also name the machine with clocks: sync_to.machine");
  CHECK_EQ_INT(manifest_check_multi_machine(&m, "e.pb", &err), 0);
  CHECK_EQ_INT(manifest_check_multi_machine(&m, "unlisted.pb", &err), 0);
  const manifest_file *multi = manifest_find_file(&m, "multi.pb");
  CHECK(multi != NULL);
  CHECK_EQ_INT(manifest_check_machine_id(multi, 7, &err), 0);
  CHECK_EQ_INT(manifest_check_machine_id(multi, 8, &err), WEFT_EPARSE);
  CHECK_EQ_STR(err.message,
               "perfetto_manifest: machines: trace has a packet from undeclared machine id 8");
  CHECK_EQ_INT(manifest_check_machine_id(manifest_find_file(&m, "server.pb"), 8, &err), 0);
  manifest_free(&m);
}

static void test_detect(void) {
  const char *yes[] = {"{\"perfetto_manifest\": {}}", " \n\t\r{\"perfetto_manifest\"",
                       "{\n  \"perfetto_manifest\": {\"version\": 1}}"};
  const char *no[] = {"", "{", "{\"perfetto_manifes", "{\"perfetto_manifest_x\": 1}",
                      "[{\"perfetto_manifest\": 1}]", "{\"traceEvents\": []}",
                      "\xef\xbb\xbf{\"perfetto_manifest\": {}}", "x{\"perfetto_manifest\""};
  for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
    CHECK(manifest_detect(yes[i], strlen(yes[i])));
  for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
    CHECK(!manifest_detect(no[i], strlen(no[i])));
  CHECK(manifest_detect(seed_example, sizeof seed_example - 1));
}

static void test_truncation_and_alloc_failures(void) {
  size_t full = sizeof seed_example - 1;
  int bad = 0;
  for (size_t cut = 0; cut < full; cut++) {
    char *copy = base_malloc(cut ? cut : 1);
    memcpy(copy, seed_example, cut);
    manifest m;
    base_error err = {0};
    if (manifest_parse(copy, cut, &m, &err) != WEFT_EPARSE) bad++;
    manifest_free(&m);
    base_free(copy);
  }
  CHECK_EQ_INT(bad, 0);

  /* every allocation failure is reported cleanly (and leaks nothing) */
  const char *doc = M(V1 "\"files\": [{\"path\": \"a\", \"machines\": [{\"id\": 1,"
                         " \"name\": \"x\"}]}, {\"path\": \"b\", \"clocks\": {\"sync_to\":"
                         " {\"file\": \"a\"}}}], \"attributes\": {\"k\": \"v\"}");
  int ok = 0, nomem = 0, other = 0;
  for (uint64_t n = 1; n < 200; n++) {
    manifest m;
    base_error err = {0};
    base_alloc_fail_after(n);
    int rc = manifest_parse(doc, strlen(doc), &m, &err);
    base_alloc_fail_after(0);
    if (rc == 0) ok++;
    else if (rc == WEFT_ENOMEM) nomem++;
    else other++;
    manifest_free(&m);
  }
  CHECK(ok > 0 && nomem > 0);
  CHECK_EQ_INT(other, 0);
}

/* Parses `json` within `limits`; "OK" or the error message, *code its code. */
static const char *perr_limited(const char *json, uint32_t depth, size_t string_len,
                                int *code) {
  static base_error err;
  manifest m;
  base_error_clear(&err);
  json_limits limits = {depth, string_len};
  *code = manifest_parse_limited(json, strlen(json), &limits, &m, &err);
  manifest_free(&m);
  return *code ? err.message : "OK";
}

static int starts_with(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

static void test_json_limits(void) {
  int code;
  /* depth: the document object, perfetto_manifest, files, an entry = 4 */
  const char *doc = M(V1 "\"files\": [{\"path\": \"a\"}]");
  CHECK_EQ_STR(perr_limited(doc, 4, 0, &code), "OK");
  const char *msg = perr_limited(doc, 3, 0, &code);
  CHECK_EQ_INT(code, WEFT_ELIMIT);
  CHECK(starts_with(msg, "perfetto_manifest: json: nesting deeper than the limit of 3 at offset "));
  CHECK(strstr(msg, "(--max-json-depth)") != NULL);
  /* in an unknown field (skipped, still bounded), and in pass 1 (version) */
  msg = perr_limited(M(V1 "\"x\": [[[[1]]]]"), 5, 0, &code);
  CHECK_EQ_INT(code, WEFT_ELIMIT);
  CHECK(strstr(msg, "limit of 5") && strstr(msg, "(--max-json-depth)"));
  msg = perr_limited(M("\"version\": [[[[1]]]]"), 4, 0, &code);
  CHECK_EQ_INT(code, WEFT_ELIMIT);
  CHECK(strstr(msg, "limit of 4") && strstr(msg, "(--max-json-depth)"));
  /* the default (0 and NULL): 512 */
  char deep[2048] = "{\"perfetto_manifest\": {\"version\": 1, \"x\": ";
  size_t n = strlen(deep);
  for (int i = 0; i < 600; i++) deep[n++] = '[';
  for (int i = 0; i < 600; i++) deep[n++] = ']';
  memcpy(deep + n, "}}", 3);
  msg = perr_limited(deep, 0, 0, &code);
  CHECK_EQ_INT(code, WEFT_ELIMIT);
  CHECK(strstr(msg, "limit of 512") != NULL);
  CHECK_EQ_INT(perr_code(deep), WEFT_ELIMIT);

  /* strings: values, keys and skipped values; the raw (escaped) length.
   * The longest key of a manifest is "perfetto_manifest" (17 bytes). */
  doc = M(V1 "\"files\": [{\"path\": \"abcdefghijklmnopqrstuvwxyz\"}]");
  CHECK_EQ_STR(perr_limited(doc, 0, 26, &code), "OK");
  msg = perr_limited(doc, 0, 25, &code);
  CHECK_EQ_INT(code, WEFT_ELIMIT);
  CHECK(starts_with(msg, "perfetto_manifest: json: string of 26 bytes is longer than "
                         "the limit of 25 at offset "));
  CHECK(strstr(msg, "(--max-string)") != NULL);
  msg = perr_limited(M(V1 "\"an_unknown_key_of_30_bytes_xyz\": 1"), 0, 29, &code);
  CHECK(code == WEFT_ELIMIT && strstr(msg, "string of 30 bytes") && strstr(msg, "(--max-string)"));
  doc = M(V1 "\"x\": [\"\\u0041\\u0042\\u0043\\u0044\"]"); /* 24 raw bytes */
  msg = perr_limited(doc, 0, 23, &code);
  CHECK(code == WEFT_ELIMIT && strstr(msg, "string of 24 bytes"));
  CHECK_EQ_STR(perr_limited(doc, 0, 24, &code), "OK");
}

/* When several checks fail, the first reported is Perfetto's: trace_time,
 * then files, then attributes, whatever their document order; then the
 * trace_time file before sync_to files; in clocks, sync_to before offset_ns. */
static void test_validation_order(void) {
  CHECK(strstr(perr(M(V1 "\"files\": [{\"path\": \"a\", \"machine\": {\"name\": \"\"}}], "
                         "\"trace_time\": {\"clock\": \"X\"}")),
               "unknown clock name: X") != NULL);
  CHECK_EQ_STR(perr(M(V1 "\"attributes\": {\"a\": null}, \"files\": [{\"path\": \"a\", "
                         "\"machine\": {\"name\": \"\"}}]")),
               "perfetto_manifest: machine: name must be non-empty");
  CHECK_EQ_STR(perr(M(V1 "\"files\": [{\"path\": \"a\", \"clocks\": {\"sync_to\": "
                         "{\"file\": \"zz\"}}}], \"trace_time\": {\"clock\": \"BOOTTIME\", "
                         "\"file\": \"qq\"}")),
               "perfetto_manifest: trace_time: file names unknown file 'qq'. It must match "
               "the `path` of an entry in the `files` array.");
  CHECK(strstr(perr(M(V1 "\"files\": [{\"path\": \"a\", \"clocks\": {\"offset_ns\": 1.5, "
                         "\"sync_to\": {}}}]")),
               "sync_to.file is required") != NULL);
  CHECK(strstr(perr(M(V1 "\"files\": [{\"path\": \"a\", \"clocks\": {\"offset_ns\": [1], "
                         "\"sync_to\": {\"file\": \"a\"}}}]")),
               "clocks: offset_ns must be an integer") != NULL);
  CHECK_EQ_STR(perr(M(V1 "\"attributes\": {\"\": \"x\"}")),
               "perfetto_manifest: attributes: keys must be non-empty");
}

int main(void) {
  RUN_TEST(test_json_limits);
  RUN_TEST(test_seed_example);
  RUN_TEST(test_full_struct);
  RUN_TEST(test_unknown_fields_ignored);
  RUN_TEST(test_error_table);
  RUN_TEST(test_trace_time_errors);
  RUN_TEST(test_type_errors);
  RUN_TEST(test_validation_order);
  RUN_TEST(test_cycles);
  RUN_TEST(test_conformance_manifests);
  RUN_TEST(test_content_checks);
  RUN_TEST(test_detect);
  RUN_TEST(test_truncation_and_alloc_failures);
  return CHECK_SUMMARY();
}
