/* ModuleSymbols and mojo method names. See proto_native_symbols.h. */
#include "import/proto/proto_native_symbols.h"

#include <stdio.h>
#include <string.h>

#include "model/model.h"
#include "model/stack_profile.h"

enum { PROTO_MODULE_PATH = 1, PROTO_MODULE_BUILD_ID = 2, PROTO_MODULE_ADDRESS_SYMBOLS = 3 };
enum { PROTO_ADDRESS = 1, PROTO_ADDRESS_LINES = 2 };
enum { PROTO_LINE_FUNCTION_NAME = 1, PROTO_LINE_SOURCE_FILE = 2, PROTO_LINE_NUMBER = 3 };
#define PROTO_MAX_BUILD_ID 256

struct proto_native_symbols {
  base_map name_of;     /* hash(build id string, address) -> function name */
  base_map mapping_keys; /* key ids of native symbol mapping_id args -> 1 */
  base_map class_of;     /* obfuscated class name -> deobfuscated name */
  VEC(base_buf) modules; /* copies of the ModuleSymbols, for the frames */
};

void proto_native_symbols_free(proto_native_symbols *s) {
  if (!s) return;
  base_map_free(&s->name_of);
  base_map_free(&s->mapping_keys);
  base_map_free(&s->class_of);
  for (size_t i = 0; i < s->modules.len; i++) base_buf_free(&s->modules.data[i]);
  VEC_FREE(s->modules);
  base_free(s);
}

static proto_native_symbols *proto_native_symbols_get(proto_native_symbols **s) {
  if (!*s) *s = base_calloc(1, sizeof **s);
  return *s;
}

static uint64_t proto_symbol_key(string_id build_id, uint64_t address) {
  return base_hash_u64(base_hash_u64(build_id) ^ address) >> 1;
}

int proto_native_symbols_note_key(proto_native_symbols **s, string_id mapping_key) {
  proto_native_symbols *n = proto_native_symbols_get(s);
  if (!n) return WEFT_ENOMEM;
  return base_map_insert(&n->mapping_keys, mapping_key, 1, NULL) < 0 ? WEFT_ENOMEM : WEFT_OK;
}

/* The build id as lowercase hex (as stack_profile_mapping stores it). */
static int proto_build_id_hex(trace_context *ctx, proto_span raw, string_id *out) {
  static const char digits[] = "0123456789abcdef";
  char hex[2 * PROTO_MAX_BUILD_ID];
  size_t n = raw.len < PROTO_MAX_BUILD_ID ? raw.len : PROTO_MAX_BUILD_ID;
  for (size_t i = 0; i < n; i++) {
    hex[2 * i] = digits[raw.data[i] >> 4];
    hex[2 * i + 1] = digits[raw.data[i] & 15];
  }
  return ctx_intern(ctx, hex, 2 * n, out);
}

static int proto_address_symbol(trace_context *ctx, proto_native_symbols *s, string_id build_id,
                                proto_span msg) {
  proto_reader r;
  proto_field fl;
  uint64_t address = 0;
  proto_span line = {NULL, 0};
  int has_line = 0;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number == PROTO_ADDRESS && fl.wire_type == PROTO_WIRE_VARINT) address = fl.value;
    if (fl.number == PROTO_ADDRESS_LINES && fl.wire_type == PROTO_WIRE_LEN && !has_line)
      line = fl.span, has_line = 1;
  }
  proto_field name = {0};
  if (!has_line || !proto_find_last(line.data, line.len, PROTO_LINE_FUNCTION_NAME, &name) ||
      name.wire_type != PROTO_WIRE_LEN)
    return WEFT_OK;
  string_id id;
  uint64_t *slot;
  int rc = ctx_intern(ctx, (const char *)name.span.data, name.span.len, &id);
  if (rc || base_map_insert(&s->name_of, proto_symbol_key(build_id, address), id, &slot) < 0)
    return rc ? rc : WEFT_ENOMEM;
  *slot = id;
  return WEFT_OK;
}

int proto_module_symbols_parse(import_file *f, proto_native_symbols **s, const proto_field *fl) {
  if (fl->wire_type != PROTO_WIRE_LEN) return WEFT_OK;
  proto_native_symbols *n = proto_native_symbols_get(s);
  if (!n) return WEFT_ENOMEM;
  proto_field id_fl = {0};
  if (!proto_find_last(fl->span.data, fl->span.len, PROTO_MODULE_BUILD_ID, &id_fl) ||
      id_fl.wire_type != PROTO_WIRE_LEN)
    return WEFT_OK;
  string_id build_id;
  int rc = proto_build_id_hex(f->ctx, id_fl.span, &build_id);
  base_buf copy;
  base_buf_init(&copy, fl->span.len);
  if (!rc) rc = base_buf_append(&copy, fl->span.data, fl->span.len);
  if (!rc && VEC_PUSH(n->modules, copy)) rc = WEFT_ENOMEM;
  if (rc) base_buf_free(&copy);
  proto_reader r;
  proto_field in;
  proto_reader_init_span(&r, fl->span);
  while (!rc && proto_reader_next(&r, &in) == 1)
    if (in.number == PROTO_MODULE_ADDRESS_SYMBOLS && in.wire_type == PROTO_WIRE_LEN)
      rc = proto_address_symbol(f->ctx, n, build_id, in.span);
  return rc;
}

/* method = name without the IPC hash suffix; tag = its interface, "::"
 * written ".", when the suffix was there, else the name. */
static int proto_mojo_names(trace_context *ctx, string_id symbol, string_id *method,
                            string_id *tag) {
  static const char *const suffixes[] = {"_Sym::IPCStableHash()", "_Sym::IPCStableHash"};
  const char *name = base_string_pool_get(&ctx->strings, symbol);
  size_t len = base_string_pool_len(&ctx->strings, symbol), cut = len;
  for (size_t i = 0; i < 2 && cut == len; i++) {
    size_t n = strlen(suffixes[i]);
    if (len >= n && memcmp(name + len - n, suffixes[i], n) == 0) cut = len - n;
  }
  if (cut == len) {
    *method = *tag = symbol;
    return WEFT_OK;
  }
  char buf[1024];
  size_t end = cut < sizeof buf ? cut : sizeof buf - 1, out = 0;
  int rc = ctx_intern(ctx, name, end, method);
  size_t last = end; /* where the last "::" component starts */
  for (size_t i = 0; i + 1 < end; i++)
    if (name[i] == ':' && name[i + 1] == ':') last = i;
  for (size_t i = 0; i < last && i < end; i++) {
    if (name[i] == ':' && i + 1 < last && name[i + 1] == ':') buf[out++] = '.', i++;
    else buf[out++] = name[i];
  }
  return rc ? rc : ctx_intern(ctx, buf, last < end ? out : end, tag);
}

/* "<parent>.<leaf>" where `key` is "<parent>.mojo_interface_method...". */
static int proto_mojo_key(trace_context *ctx, string_id key, const char *leaf, string_id *out) {
  static const char marker[] = ".mojo_interface_method.native_symbol.mapping_id";
  const char *k = base_string_pool_get(&ctx->strings, key);
  size_t len = base_string_pool_len(&ctx->strings, key), m = sizeof marker - 1;
  if (len < m || len - m > 900) return WEFT_EINVAL;
  char buf[1024];
  int n = snprintf(buf, sizeof buf, "%.*s.%s", (int)(len - m), k, leaf);
  return n > 0 ? ctx_intern(ctx, buf, (size_t)n, out) : WEFT_EINVAL;
}

static int proto_native_symbol_rename(import_file *f, proto_native_symbols *s, uint32_t row) {
  trace_context *ctx = f->ctx;
  const storage_table *args = ctx_table(ctx, TABLE_ARGS);
  const storage_table *maps = ctx_table(ctx, TABLE_STACK_PROFILE_MAPPING);
  if (row + 1 >= args->row_count || storage_get_i64(args, ARGS_arg_set_id, row) !=
                                        storage_get_i64(args, ARGS_arg_set_id, row + 1))
    return WEFT_OK;
  static const char pc_suffix[] = ".native_symbol.rel_pc";
  string_id pc_key = storage_get_str(args, ARGS_key, row + 1);
  size_t pc_len = base_string_pool_len(&ctx->strings, pc_key), n = sizeof pc_suffix - 1;
  if (pc_len < n || memcmp(base_string_pool_get(&ctx->strings, pc_key) + pc_len - n, pc_suffix,
                           n) != 0)
    return WEFT_OK;
  int64_t mapping = storage_get_i64_or(args, ARGS_int_value, row, -1);
  int64_t rel_pc = storage_get_i64_or(args, ARGS_int_value, row + 1, 0);
  if (mapping < 0 || (uint64_t)mapping >= maps->row_count) return WEFT_OK;
  string_id build_id = storage_get_str(maps, STACK_PROFILE_MAPPING_build_id, (size_t)mapping);
  uint64_t *symbol = base_map_find(&s->name_of, proto_symbol_key(build_id, (uint64_t)rel_pc));
  if (!symbol) return WEFT_OK;
  string_id method, tag, method_key, tag_key;
  int rc = proto_mojo_names(ctx, (string_id)*symbol, &method, &tag);
  string_id key = storage_get_str(args, ARGS_key, row);
  if (!rc) rc = proto_mojo_key(ctx, key, "mojo_method_name", &method_key);
  if (!rc) rc = proto_mojo_key(ctx, key, "mojo_interface_tag", &tag_key);
  if (rc) return rc == WEFT_EINVAL ? WEFT_OK : rc;
  rc = model_arg_row_set_string(ctx, row, method_key, method);
  return rc ? rc : model_arg_row_set_string(ctx, row + 1, tag_key, tag);
}

static int proto_class_pair(trace_context *ctx, proto_native_symbols *s, proto_span msg) {
  proto_field from = {0}, to = {0};
  if (!proto_find_last(msg.data, msg.len, 1, &from) || from.wire_type != PROTO_WIRE_LEN ||
      !proto_find_last(msg.data, msg.len, 2, &to) || to.wire_type != PROTO_WIRE_LEN)
    return WEFT_OK;
  string_id a, b;
  uint64_t *slot;
  int rc = ctx_intern(ctx, (const char *)from.span.data, from.span.len, &a);
  if (!rc) rc = ctx_intern(ctx, (const char *)to.span.data, to.span.len, &b);
  if (rc || base_map_insert(&s->class_of, a, b, &slot) < 0) return rc ? rc : WEFT_ENOMEM;
  *slot = b;
  return WEFT_OK;
}

int proto_native_symbols_classes(import_file *f, proto_native_symbols **s, const proto_field *fl) {
  enum { PROTO_DEOBFUSCATION_CLASSES = 3 };
  if (fl->wire_type != PROTO_WIRE_LEN) return WEFT_OK;
  proto_native_symbols *n = proto_native_symbols_get(s);
  if (!n) return WEFT_ENOMEM;
  proto_reader r;
  proto_field in;
  int rc = WEFT_OK;
  proto_reader_init_span(&r, fl->span);
  while (!rc && proto_reader_next(&r, &in) == 1)
    if (in.number == PROTO_DEOBFUSCATION_CLASSES && in.wire_type == PROTO_WIRE_LEN)
      rc = proto_class_pair(f->ctx, n, in.span);
  return rc;
}

static int proto_deobfuscate_class_args(trace_context *ctx, proto_native_symbols *s) {
  static const char key[] = "android_view_dump.activity.view.class_name";
  string_id flat;
  int rc = ctx_intern(ctx, key, sizeof key - 1, &flat);
  const storage_table *args = ctx_table(ctx, TABLE_ARGS);
  for (uint32_t row = 0; !rc && row < args->row_count; row++) {
    if (storage_get_str(args, ARGS_flat_key, row) != flat) continue;
    uint64_t *to = base_map_find(&s->class_of, storage_get_str(args, ARGS_string_value, row));
    if (to) rc = model_arg_row_set_string_value(ctx, row, (string_id)*to);
  }
  return rc;
}

int proto_native_symbols_end(import_file *f, proto_native_symbols *s) {
  if (!s) return WEFT_OK;
  int rc = s->class_of.count ? proto_deobfuscate_class_args(f->ctx, s) : WEFT_OK;
  if (rc || !s->name_of.count || !s->mapping_keys.count) return rc;
  const storage_table *args = ctx_table(f->ctx, TABLE_ARGS);
  for (uint32_t row = 0; !rc && row < args->row_count; row++)
    if (base_map_find(&s->mapping_keys, storage_get_str(args, ARGS_key, row)))
      rc = proto_native_symbol_rename(f, s, row);
  return rc;
}

/* ---- the frames of the modules ---- */

#define PROTO_MAX_SYMBOL_LINES 4096 /* lines of one address that are kept */

typedef VEC(stack_profile_symbol_line) proto_symbol_lines;

static int proto_symbol_line(trace_context *ctx, proto_span msg, proto_symbol_lines *lines) {
  stack_profile_symbol_line l = {STRING_NULL, STRING_NULL, -1};
  proto_reader r;
  proto_field fl;
  int rc = WEFT_OK;
  proto_reader_init_span(&r, msg);
  while (!rc && proto_reader_next(&r, &fl) == 1) {
    int text = fl.wire_type == PROTO_WIRE_LEN;
    if (fl.number == PROTO_LINE_FUNCTION_NAME && text)
      rc = ctx_intern(ctx, (const char *)fl.span.data, fl.span.len, &l.function);
    if (fl.number == PROTO_LINE_SOURCE_FILE && text && fl.span.len)
      rc = ctx_intern(ctx, (const char *)fl.span.data, fl.span.len, &l.file);
    if (fl.number == PROTO_LINE_SOURCE_FILE && text && !fl.span.len) l.file = STRING_NULL;
    if (fl.number == PROTO_LINE_NUMBER && fl.wire_type == PROTO_WIRE_VARINT)
      l.line = (int64_t)(uint32_t)fl.value;
  }
  if (!rc && lines->len < PROTO_MAX_SYMBOL_LINES && VEC_PUSH(*lines, l)) rc = WEFT_ENOMEM;
  return rc;
}

static int proto_symbolize_address(import_file *f, stack_profile_symbolizer *z, proto_span msg,
                                   proto_symbol_lines *lines) {
  proto_reader r;
  proto_field fl;
  int64_t address = 0;
  int rc = WEFT_OK;
  lines->len = 0;
  proto_reader_init_span(&r, msg);
  while (!rc && proto_reader_next(&r, &fl) == 1) {
    if (fl.number == PROTO_ADDRESS && fl.wire_type == PROTO_WIRE_VARINT) address = (int64_t)fl.value;
    if (fl.number == PROTO_ADDRESS_LINES && fl.wire_type == PROTO_WIRE_LEN)
      rc = proto_symbol_line(f->ctx, fl.span, lines);
  }
  size_t frames;
  if (!rc) rc = stack_profile_symbolize_address(f->ctx, z, address, lines->data, lines->len, &frames);
  if (!rc && lines->len && !frames) rc = import_stat(f, stat_stackprofile_invalid_frame_id, 1);
  return rc;
}

static int proto_symbolize_module(import_file *f, stack_profile_symbolizer *z, proto_span msg,
                                  proto_symbol_lines *lines) {
  proto_field path = {0}, id = {0};
  string_id path_id = STRING_NULL, build_id;
  if (proto_find_last(msg.data, msg.len, PROTO_MODULE_PATH, &path) == 1 &&
      path.wire_type == PROTO_WIRE_LEN)
    path_id = base_string_pool_find(&f->ctx->strings, (const char *)path.span.data, path.span.len);
  if (proto_find_last(msg.data, msg.len, PROTO_MODULE_BUILD_ID, &id) != 1) return WEFT_OK;
  int rc = proto_build_id_hex(f->ctx, id.span, &build_id);
  if (rc) return rc;
  if (!stack_profile_symbolize_module(f->ctx, z, path_id, build_id))
    return import_stat(f, stat_stackprofile_invalid_mapping_id, 1);
  proto_reader r;
  proto_field in;
  proto_reader_init_span(&r, msg);
  while (!rc && proto_reader_next(&r, &in) == 1)
    if (in.number == PROTO_MODULE_ADDRESS_SYMBOLS && in.wire_type == PROTO_WIRE_LEN)
      rc = proto_symbolize_address(f, z, in.span, lines);
  return rc;
}

int proto_native_symbols_frames(import_file *f, proto_native_symbols *s) {
  if (!s || !s->modules.len) return WEFT_OK;
  stack_profile_symbolizer *z = NULL;
  proto_symbol_lines lines = {0};
  int rc = stack_profile_symbolizer_new(f->ctx, &z);
  for (size_t i = 0; !rc && i < s->modules.len; i++) {
    proto_span msg = {(const uint8_t *)s->modules.data[i].data, s->modules.data[i].len};
    rc = proto_symbolize_module(f, z, msg, &lines);
  }
  stack_profile_symbolizer_free(z);
  VEC_FREE(lines);
  return rc;
}
