/* experimental_annotated_callstack(callsite_id): the callsite and its
 * ancestors (leaf first) as stack_profile_callsite rows with an annotation
 * telling ART's managed frames from the runtime's own.
 *
 * Walking from the root, a state is carried down the callstack:
 *  - "initial" until the first managed frame, after which libart frames are
 *    "erased" (annotated as common frames);
 *  - a frame named "art_jni_trampoline" is a common frame and keeps its
 *    immediate callee un-annotated (a native method), after which libart
 *    frames are erased again.
 * A frame's mapping decides its kind: "/memfd:jit-cache" or
 * "/memfd:jit-zygote-cache" JIT code ("jit"); a file named libart.so or
 * libartd.so the runtime; by extension .so other native code, .dex, .vdex,
 * .jar and .apk interpreted dex ("interp"), .oat and .odex AOT code
 * ("aot"). Managed frames take their kind; while erasing, libart frames are
 * "common-frame-interp" when their name starts with nterp_, Nterp,
 * ExecuteNterp, ExecuteSwitchImpl or _ZN3art11interpreter, else
 * "common-frame"; other frames have no annotation (NULL). */
#include <string.h>

#include "sql/operators.h"
#include "storage/schema.h"

enum oac_state { OAC_INITIAL, OAC_ERASE_LIBART, OAC_KEEP_NEXT };
enum oac_map { OAC_OTHER, OAC_JIT, OAC_LIBART, OAC_NATIVE, OAC_INTERP, OAC_AOT };

typedef struct oac_table {
  sqlite3_vtab base; /* must be first */
  sql_engine *engine;
} oac_table;

typedef struct oac_cursor {
  sqlite3_vtab_cursor base; /* must be first */
  op_row_vec callsites;     /* leaf first */
  VEC(const char *) annotations;
  const storage_table *cs;
  size_t pos;
} oac_cursor;

static int oac_starts(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

static int oac_map_kind(const char *map) {
  if (!map || !*map) return OAC_OTHER;
  if (oac_starts(map, "/memfd:jit-cache") || oac_starts(map, "/memfd:jit-zygote-cache"))
    return OAC_JIT;
  const char *slash = strrchr(map, '/');
  if (slash && (oac_starts(slash, "/libart.so") || oac_starts(slash, "/libartd.so")))
    return OAC_LIBART;
  const char *dot = strrchr(map, '.');
  if (!dot) return OAC_OTHER;
  if (oac_starts(dot, ".so")) return OAC_NATIVE;
  if (oac_starts(dot, ".dex") || oac_starts(dot, ".vdex") || oac_starts(dot, ".jar") ||
      oac_starts(dot, ".apk"))
    return OAC_INTERP;
  if (oac_starts(dot, ".oat") || oac_starts(dot, ".odex")) return OAC_AOT;
  return OAC_OTHER;
}

static int oac_interpreter_frame(const char *name) {
  static const char *const prefixes[] = {"nterp_", "Nterp", "ExecuteNterp", "ExecuteSwitchImpl",
                                         "_ZN3art11interpreter"};
  for (size_t i = 0; name && i < sizeof prefixes / sizeof prefixes[0]; i++)
    if (oac_starts(name, prefixes[i])) return 1;
  return 0;
}

/* The annotation of a frame (NULL: none) reached in *state, which it
 * updates for its callees. */
static const char *oac_annotate(const char *name, const char *map, int *state) {
  if (*state == OAC_KEEP_NEXT) return *state = OAC_ERASE_LIBART, NULL;
  if (name && strcmp(name, "art_jni_trampoline") == 0)
    return *state = OAC_KEEP_NEXT, "common-frame";
  int kind = oac_map_kind(map);
  if (kind == OAC_INTERP || kind == OAC_JIT || kind == OAC_AOT) {
    if (*state == OAC_INITIAL) *state = OAC_ERASE_LIBART;
    return kind == OAC_INTERP ? "interp" : kind == OAC_JIT ? "jit" : "aot";
  }
  if (*state == OAC_ERASE_LIBART && kind == OAC_LIBART)
    return oac_interpreter_frame(name) ? "common-frame-interp" : "common-frame";
  return NULL;
}

static int oac_walk(oac_table *vt, oac_cursor *cur, int64_t start) {
  base_string_pool *strings = sql_engine_strings(vt->engine);
  const storage_table *frames =
      sql_engine_find_table(vt->engine, schema_tables[TABLE_STACK_PROFILE_FRAME].name);
  const storage_table *maps =
      sql_engine_find_table(vt->engine, schema_tables[TABLE_STACK_PROFILE_MAPPING].name);
  const storage_table *cs = cur->cs;
  /* a parent always precedes its callsite, so the walk ends */
  for (int64_t c = start; c >= 0 && (size_t)c < cs->row_count;
       c = storage_get_i64_or(cs, STACK_PROFILE_CALLSITE_parent_id, (size_t)c, -1)) {
    if (VEC_PUSH(cur->callsites, (uint32_t)c)) return WEFT_ENOMEM;
    if (cur->callsites.len > cs->row_count) break; /* a malformed cycle */
  }
  if (VEC_RESERVE(cur->annotations, cur->callsites.len)) return WEFT_ENOMEM;
  cur->annotations.len = cur->callsites.len;
  int state = OAC_INITIAL;
  for (size_t i = cur->callsites.len; i-- > 0;) { /* root first */
    size_t frame = (size_t)storage_get_i64(cs, STACK_PROFILE_CALLSITE_frame_id,
                                           cur->callsites.data[i]);
    const char *name = NULL, *map = NULL;
    if (frames && frame < frames->row_count) {
      name = base_string_pool_get(strings, storage_get_str(frames, STACK_PROFILE_FRAME_name, frame));
      size_t mapping = (size_t)storage_get_i64(frames, STACK_PROFILE_FRAME_mapping, frame);
      if (maps && mapping < maps->row_count)
        map = base_string_pool_get(strings, storage_get_str(maps, STACK_PROFILE_MAPPING_name, mapping));
    }
    cur->annotations.data[i] = oac_annotate(name, map, &state);
  }
  return WEFT_OK;
}

static int oac_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
                       sqlite3_vtab **out, char **errmsg) {
  (void)argc, (void)argv, (void)errmsg;
  if (sqlite3_declare_vtab(db, "CREATE TABLE x(id BIGINT, depth BIGINT, parent_id BIGINT, "
                               "frame_id BIGINT, annotation TEXT, start_id HIDDEN)") != SQLITE_OK)
    return SQLITE_ERROR;
  oac_table *vt = sqlite3_malloc(sizeof *vt);
  if (!vt) return SQLITE_NOMEM;
  memset(vt, 0, sizeof *vt);
  vt->engine = aux;
  *out = &vt->base;
  return SQLITE_OK;
}

static int oac_disconnect(sqlite3_vtab *vt) {
  sqlite3_free(vt);
  return SQLITE_OK;
}

static int oac_best_index(sqlite3_vtab *base, sqlite3_index_info *info) {
  (void)base;
  return op_best_index_start_id(info, 5);
}

static int oac_open(sqlite3_vtab *base, sqlite3_vtab_cursor **out) {
  (void)base;
  oac_cursor *cur = sqlite3_malloc(sizeof *cur);
  if (!cur) return SQLITE_NOMEM;
  memset(cur, 0, sizeof *cur);
  *out = &cur->base;
  return SQLITE_OK;
}

static int oac_close(sqlite3_vtab_cursor *base) {
  oac_cursor *cur = (oac_cursor *)base;
  VEC_FREE(cur->callsites);
  VEC_FREE(cur->annotations);
  sqlite3_free(cur);
  return SQLITE_OK;
}

static int oac_filter(sqlite3_vtab_cursor *base, int idx_num, const char *idx_str, int argc,
                      sqlite3_value **argv) {
  (void)idx_num, (void)idx_str;
  oac_cursor *cur = (oac_cursor *)base;
  oac_table *vt = (oac_table *)base->pVtab;
  cur->callsites.len = cur->annotations.len = cur->pos = 0;
  int64_t id = 0;
  const char *msg = NULL;
  int arg = argc == 1 ? op_read_start_id(argv[0], &id, &msg) : 1;
  if (arg < 0) return op_vtab_error(base->pVtab, "%s", msg);
  if (arg > 0) return SQLITE_OK;
  cur->cs = sql_engine_find_table(vt->engine, schema_tables[TABLE_STACK_PROFILE_CALLSITE].name);
  if (!cur->cs || id < 0 || (uint64_t)id >= cur->cs->row_count)
    return op_vtab_error(base->pVtab, "callsite with id %lld not found", (long long)id);
  return oac_walk(vt, cur, id) == WEFT_OK ? SQLITE_OK : SQLITE_NOMEM;
}

static int oac_next(sqlite3_vtab_cursor *base) {
  ((oac_cursor *)base)->pos++;
  return SQLITE_OK;
}

static int oac_eof(sqlite3_vtab_cursor *base) {
  oac_cursor *cur = (oac_cursor *)base;
  return cur->pos >= cur->callsites.len;
}

static int oac_column(sqlite3_vtab_cursor *base, sqlite3_context *ctx, int col) {
  oac_cursor *cur = (oac_cursor *)base;
  oac_table *vt = (oac_table *)base->pVtab;
  uint32_t row = cur->callsites.data[cur->pos];
  static const size_t cols[] = {STACK_PROFILE_CALLSITE_id, STACK_PROFILE_CALLSITE_depth,
                                STACK_PROFILE_CALLSITE_parent_id,
                                STACK_PROFILE_CALLSITE_frame_id};
  if (col >= 0 && col < 4) {
    op_result_cell(ctx, cur->cs, sql_engine_strings(vt->engine), cols[col], row);
  } else if (col == 4) {
    const char *a = cur->annotations.data[cur->pos];
    if (a) sqlite3_result_text(ctx, a, -1, SQLITE_STATIC);
    else sqlite3_result_null(ctx);
  }
  return SQLITE_OK;
}

static int oac_rowid(sqlite3_vtab_cursor *base, sqlite3_int64 *rowid) {
  *rowid = (sqlite3_int64)((oac_cursor *)base)->pos;
  return SQLITE_OK;
}

static const sqlite3_module oac_module = {
    .iVersion = 0,
    .xConnect = oac_connect,
    .xBestIndex = oac_best_index,
    .xDisconnect = oac_disconnect,
    .xDestroy = oac_disconnect,
    .xOpen = oac_open,
    .xClose = oac_close,
    .xFilter = oac_filter,
    .xNext = oac_next,
    .xEof = oac_eof,
    .xColumn = oac_column,
    .xRowid = oac_rowid,
};

int op_annotated_callstack_register(sqlite3 *db, sql_engine *e) {
  return sqlite3_create_module_v2(db, "experimental_annotated_callstack", &oac_module, e, NULL) ==
                 SQLITE_OK
             ? WEFT_OK
             : WEFT_ESQL;
}
