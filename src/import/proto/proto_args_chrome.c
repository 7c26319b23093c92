/* Chrome's TrackEvent fields that are more than their value: interned mojo
 * methods (native symbols) and hashes a translation table names. See
 * proto_args_internal.h. */
#include "import/proto/proto_args_internal.h"

#include "import/proto/proto_native_symbols.h"
#include "import/proto/proto_profile.h"
#include "import/proto/proto_translation.h"

/* UnsymbolizedSourceLocation */
#define ARGS_UNSYMBOLIZED_MAPPING_ID 2
#define ARGS_UNSYMBOLIZED_REL_PC 3

/* ChromeMojoEventInfo.mojo_interface_method_iid: the interned unsymbolized
 * location becomes "<parent>.mojo_interface_method.native_symbol" args
 * (mapping_id: its stack_profile_mapping row, rel_pc), added after the
 * event's other args. An unknown location or mapping counts
 * interned_data_tokenizer_errors and leaves the raw iid (returns 0). */
int args_native_symbol_override(proto_args *a, const proto_desc_field *d,
                                       const proto_field *fl, int *rc) {
  static const char name[] = "mojo_interface_method_iid";
  if (d->repeated || fl->wire_type != PROTO_WIRE_VARINT ||
      strcmp(proto_descriptor_name(a->pool, d->name), name) != 0)
    return 0;
  proto_span msg;
  proto_field map_fl = {0}, pc_fl = {0};
  int64_t mapping = -1;
  if (proto_interned_message(a->st, a->info->seq, a->info->generation,
                             PROTO_INTERN_UNSYMBOLIZED_LOCATION, fl->value, &msg)) {
    proto_find_last(msg.data, msg.len, ARGS_UNSYMBOLIZED_MAPPING_ID, &map_fl);
    proto_find_last(msg.data, msg.len, ARGS_UNSYMBOLIZED_REL_PC, &pc_fl);
    *rc = proto_profile_mapping_row(a->f, a->info, map_fl.value, &mapping);
    if (*rc) return 1;
  }
  if (mapping < 0) {
    *rc = import_stat(a->f, stat_interned_data_tokenizer_errors, 1);
    return *rc != 0;
  }
  static const char suffix[] = ".mojo_interface_method.native_symbol";
  size_t need = a->len + sizeof suffix;
  if (a->n_symbols == ARGS_MAX_SYMBOLS || a->keys_len + need > sizeof a->keys) return 1;
  a->symbols[a->n_symbols].prefix = a->keys_len;
  a->symbols[a->n_symbols].mapping = mapping;
  a->symbols[a->n_symbols++].rel_pc = (int64_t)pc_fl.value;
  memcpy(a->keys + a->keys_len, a->key, a->len);
  memcpy(a->keys + a->keys_len + a->len, suffix, sizeof suffix);
  a->keys_len += need;
  return 1;
}

/* The native symbols put aside by args_native_symbol_override. */
int args_native_symbols(proto_args *a) {
  int rc = WEFT_OK;
  for (int i = 0; !rc && i < a->n_symbols; i++) {
    const char *prefix = a->keys + a->symbols[i].prefix;
    size_t saved;
    a->len = 0;
    if (!args_enter(a, prefix, strlen(prefix), &saved)) continue;
    size_t base = a->len;
    if (args_enter(a, "mapping_id", 10, &saved)) {
      rc = args_int(a, MODEL_ARG_INT, a->symbols[i].mapping);
      if (!rc) { /* named at the end if ModuleSymbols name it */
        proto_import_state *st = a->f->state;
        const model_state *m = &a->f->ctx->model;
        rc = proto_native_symbols_note_key(&st->native_symbols,
                                           m->pending_args.data[m->pending_args.len - 1].key);
      }
    }
    a->len = base;
    if (!rc && args_enter(a, "rel_pc", 6, &saved))
      rc = args_int(a, MODEL_ARG_INT, a->symbols[i].rel_pc);
  }
  a->len = 0;
  return rc;
}

/* A Chrome hash that a translation table names (proto_translation.h): after
 * chrome_histogram_sample.name_hash its ".name", after
 * chrome_user_event.action_hash its ".action", after
 * chrome_hashed_performance_mark.site_hash / mark_hash its ".site" /
 * ".mark". `parent` is the key's length before the field's name. */
int args_translated_hash(proto_args *a, const proto_desc_field *d, const proto_field *fl,
                                size_t parent) {
  static const struct { const char *message, *field, *name; int kind; } hashes[] = {
      {"chrome_histogram_sample", "name_hash", "name", PROTO_TRANSLATE_HISTOGRAM},
      {"chrome_user_event", "action_hash", "action", PROTO_TRANSLATE_USER_EVENT},
      {"chrome_hashed_performance_mark", "site_hash", "site", PROTO_TRANSLATE_MARK_SITE},
      {"chrome_hashed_performance_mark", "mark_hash", "mark", PROTO_TRANSLATE_MARK_NAME}};
  if (fl->wire_type != PROTO_WIRE_VARINT || !a->st->translation) return WEFT_OK;
  const char *field = proto_descriptor_name(a->pool, d->name);
  for (size_t i = 0; i < sizeof hashes / sizeof *hashes; i++) {
    size_t n = strlen(hashes[i].message);
    if (strcmp(field, hashes[i].field) != 0 || parent < n ||
        memcmp(a->key + parent - n, hashes[i].message, n) != 0)
      continue;
    string_id name = proto_translate(a->st->translation, hashes[i].kind, fl->value);
    if (name == STRING_NULL) return WEFT_OK;
    size_t here = a->len, saved;
    a->len = parent;
    int rc = args_enter(a, hashes[i].name, strlen(hashes[i].name), &saved) ? args_str_id(a, name)
                                                                        : WEFT_OK;
    a->len = here;
    return rc;
  }
  return WEFT_OK;
}

