/* Translation tables. See proto_translation.h. */
#include "import/proto/proto_translation.h"

#include "model/context.h"

/* TranslationTable */
#define TT_CHROME_HISTOGRAM 1
#define TT_CHROME_USER_EVENT 2
#define TT_CHROME_PERFORMANCE_MARK 3
#define TT_SLICE_NAME 4
#define TT_PROCESS_TRACK_NAME 5
#define TT_CHROME_STUDY 6
/* each table's map field (a performance mark table's site map; its mark
 * map is field 2), and a map entry's key and value */
#define TT_MAP 1
#define TT_MARK_MAP 2
#define TT_ENTRY_KEY 1
#define TT_ENTRY_VALUE 2

struct proto_translation {
  base_map maps[PROTO_TRANSLATE_KINDS]; /* by kind: key -> string id */
};

void proto_translation_free(proto_translation *t) {
  if (!t) return;
  for (int i = 0; i < PROTO_TRANSLATE_KINDS; i++) base_map_free(&t->maps[i]);
  base_free(t);
}

static int tt_intern(import_file *f, proto_span s, string_id *out) {
  return ctx_intern(f->ctx, (const char *)s.data, s.len, out);
}

/* One map entry: a string key for slice names, a number for the hashes. */
static int tt_entry(import_file *f, base_map *map, int string_key, proto_span entry) {
  proto_reader r;
  proto_field fl;
  uint64_t key = 0;
  string_id value = STRING_NULL;
  int rc = WEFT_OK, has_key = 0;
  proto_reader_init_span(&r, entry);
  while (!rc && proto_reader_next(&r, &fl) == 1) {
    int len = fl.wire_type == PROTO_WIRE_LEN;
    if (fl.number == TT_ENTRY_KEY && string_key && len) {
      string_id id;
      rc = tt_intern(f, fl.span, &id);
      key = id, has_key = 1;
    } else if (fl.number == TT_ENTRY_KEY && !string_key && fl.wire_type == PROTO_WIRE_VARINT) {
      key = fl.value, has_key = 1;
    } else if (fl.number == TT_ENTRY_VALUE && len) {
      rc = tt_intern(f, fl.span, &value);
    }
  }
  if (rc || !has_key || value == STRING_NULL || key == UINT64_MAX) return rc;
  uint64_t *slot;
  if (base_map_insert(map, key, value, &slot) < 0) return WEFT_ENOMEM;
  *slot = value;
  return WEFT_OK;
}

static int tt_map_field(import_file *f, base_map *map, int string_key, proto_span table,
                        uint32_t field) {
  proto_reader r;
  proto_field fl;
  int rc = WEFT_OK;
  proto_reader_init_span(&r, table);
  while (!rc && proto_reader_next(&r, &fl) == 1)
    if (fl.number == field && fl.wire_type == PROTO_WIRE_LEN)
      rc = tt_entry(f, map, string_key, fl.span);
  return rc;
}

static int tt_map(import_file *f, base_map *map, int string_key, proto_span table) {
  return tt_map_field(f, map, string_key, table, TT_MAP);
}

int proto_translation_read(import_file *f, proto_translation **t, proto_span table) {
  if (!*t && !(*t = base_calloc(1, sizeof **t))) return WEFT_ENOMEM;
  proto_reader r;
  proto_field fl;
  int rc = WEFT_OK;
  proto_reader_init_span(&r, table);
  while (!rc && proto_reader_next(&r, &fl) == 1) {
    if (fl.wire_type != PROTO_WIRE_LEN) continue;
    if (fl.number == TT_SLICE_NAME)
      rc = tt_map(f, &(*t)->maps[PROTO_TRANSLATE_SLICE_NAME], 1, fl.span);
    else if (fl.number == TT_PROCESS_TRACK_NAME)
      rc = tt_map(f, &(*t)->maps[PROTO_TRANSLATE_PROCESS_TRACK], 1, fl.span);
    else if (fl.number == TT_CHROME_HISTOGRAM)
      rc = tt_map(f, &(*t)->maps[PROTO_TRANSLATE_HISTOGRAM], 0, fl.span);
    else if (fl.number == TT_CHROME_STUDY)
      rc = tt_map(f, &(*t)->maps[PROTO_TRANSLATE_STUDY], 0, fl.span);
    else if (fl.number == TT_CHROME_USER_EVENT)
      rc = tt_map(f, &(*t)->maps[PROTO_TRANSLATE_USER_EVENT], 0, fl.span);
    else if (fl.number == TT_CHROME_PERFORMANCE_MARK) {
      rc = tt_map(f, &(*t)->maps[PROTO_TRANSLATE_MARK_SITE], 0, fl.span);
      if (!rc)
        rc = tt_map_field(f, &(*t)->maps[PROTO_TRANSLATE_MARK_NAME], 0, fl.span, TT_MARK_MAP);
    }
  }
  return rc;
}

string_id proto_translate(const proto_translation *t, enum proto_translation_kind kind,
                          uint64_t key) {
  if (!t) return STRING_NULL;
  const uint64_t *v = base_map_find(&t->maps[kind], key);
  return v ? (string_id)*v : STRING_NULL;
}

string_id proto_translate_process_track(const proto_translation *t, string_id name) {
  if (name == STRING_NULL) return name;
  string_id translated = proto_translate(t, PROTO_TRANSLATE_PROCESS_TRACK, name);
  return translated != STRING_NULL ? translated : name;
}
