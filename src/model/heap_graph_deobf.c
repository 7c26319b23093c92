/* Deobfuscation of heap graph classes and fields, and the package a class
 * belongs to. See heap_graph.h. */
#include <string.h>

#include "model/heap_graph_internal.h"

/* Prebuilt system apps whose paths do not name their package. */
typedef struct hg_known_app {
  const char *path;
  int anywhere; /* 1: the path may appear anywhere in the location */
  const char *package;
} hg_known_app;

static const hg_known_app hg_known_apps[] = {
    {"/system_ext/priv-app/SystemUIGoogle/SystemUIGoogle.apk", 0, "com.android.systemui"},
    {"/product/priv-app/Phonesky/Phonesky.apk", 0, "com.android.vending"},
    {"/product/app/Maps/Maps.apk", 0, "com.google.android.apps.maps"},
    {"/system_ext/priv-app/NexusLauncherRelease/NexusLauncherRelease.apk", 0,
     "com.google.android.apps.nexuslauncher"},
    {"/product/app/Photos/Photos.apk", 0, "com.google.android.apps.photos"},
    {"/product/priv-app/WellbeingPrebuilt/WellbeingPrebuilt.apk", 0,
     "com.google.android.apps.wellbeing"},
    {"DevicePersonalizationPrebuilt", 1, "com.google.android.as"},
    {"MatchMaker", 1, "com.google.android.as"},
    {"DeviceIntelligenceNetworkPrebuilt", 1, "com.google.android.as.oss"},
    {"SettingsIntelligenceGooglePrebuilt", 1, "com.google.android.settings.intelligence"},
    {"/product/app/PrebuiltGmail/PrebuiltGmail.apk", 0, "com.google.android.gm"},
    {"PrebuiltGmsCore", 1, "com.google.android.gms"},
    {"com.google.android.gms", 1, "com.google.android.gms"},
    {"/product/priv-app/Velvet/Velvet.apk", 0, "com.google.android.googlequicksearchbox"},
    {"/product/app/LatinIMEGooglePrebuilt/LatinIMEGooglePrebuilt.apk", 0,
     "com.google.android.inputmethod.latin"},
    {"/product/app/PrebuiltBugle/PrebuiltBugle.apk", 0, "com.google.android.apps.messaging"},
};

static const char *hg_find(const char *s, size_t len, const char *needle) {
  size_t n = strlen(needle);
  for (size_t i = 0; n <= len && i <= len - n; i++)
    if (memcmp(s + i, needle, n) == 0) return s + i;
  return NULL;
}

/* "/data/app/[~~x/]pkg-y/..." -> "pkg"; -1 when the path has no package.
 * The segment searched for '-' runs from the package's start for as many
 * bytes as the offset of the slash that ends it (as Perfetto reads it). */
static int hg_package_from_app(const char *loc, size_t len, const char **pkg,
                               size_t *pkg_len) {
  const char *rel = loc + 10; /* after "/data/app/" */
  size_t rel_len = len - 10, start = 0;
  if (!rel_len) return -1;
  if (rel[0] == '~') {
    const char *slash = memchr(rel, '/', rel_len);
    if (!slash) return -1;
    start = (size_t)(slash - rel) + 1;
  }
  if (start + 1 >= rel_len) return -1;
  const char *stop = memchr(rel + start + 1, '/', rel_len - start - 1);
  if (!stop) return -1;
  size_t end = (size_t)(stop - rel);
  size_t seg_len = end < rel_len - start ? end : rel_len - start;
  const char *minus = memchr(rel + start, '-', seg_len);
  if (!minus) return -1;
  *pkg = rel + start;
  *pkg_len = (size_t)(minus - (rel + start));
  return 1;
}

int heap_graph_package_from_location(const char *loc, size_t len, const char **pkg,
                                     size_t *pkg_len) {
  for (size_t i = 0; i < sizeof hg_known_apps / sizeof *hg_known_apps; i++) {
    const hg_known_app *a = &hg_known_apps[i];
    size_t n = strlen(a->path);
    int hit = a->anywhere ? hg_find(loc, len, a->path) != NULL
                          : len >= n && memcmp(loc, a->path, n) == 0;
    if (!hit) continue;
    *pkg = a->package;
    *pkg_len = strlen(a->package);
    return 1;
  }
  static const char data_app[] = "/data/app/";
  static const char in_memory[] = "dex extracted in memory from /data/app/";
  size_t n = sizeof data_app - 1;
  if (len >= n && memcmp(loc, data_app, n) == 0)
    return hg_package_from_app(loc, len, pkg, pkg_len);
  const char *m = hg_find(loc, len, in_memory);
  if (!m) return 0;
  const char *path = m + sizeof in_memory - 1 - n;
  return hg_package_from_app(path, (size_t)(loc + len - path), pkg, pkg_len);
}

int hg_class_key_add(trace_context *ctx, uint32_t row, string_id name, string_id location) {
  heap_graph_state *s = ctx->model.heap_graph;
  hg_class_key key = {row, STRING_NULL, STRING_NULL};
  const char *str = base_string_pool_get(&ctx->strings, name);
  hg_normalized n = hg_normalize(str ? str : "", base_string_pool_len(&ctx->strings, name));
  int rc = ctx_intern(ctx, n.name, n.len, &key.normalized);
  const char *loc = base_string_pool_get(&ctx->strings, location);
  if (!rc && loc) {
    const char *pkg;
    size_t pkg_len;
    int found = heap_graph_package_from_location(
        loc, base_string_pool_len(&ctx->strings, location), &pkg, &pkg_len);
    if (found < 0)
      rc = stats_add(&ctx->stats, stat_deobfuscate_location_parse_error, -1, -1, -1, 1);
    else if (found)
      rc = ctx_intern(ctx, pkg, pkg_len, &key.package);
  }
  if (!rc) rc = VEC_PUSH(s->class_keys, key);
  return rc;
}

/* "java.lang.Class<" + name + "[]"*arrays + ">" as the normalized type was. */
static int hg_denormalize(trace_context *ctx, hg_normalized n, const char *name,
                          size_t len, string_id *out) {
  base_buf b;
  base_buf_init(&b, (size_t)1 << 20);
  int rc = n.is_static_class ? base_buf_append(&b, "java.lang.Class<", 16) : WEFT_OK;
  if (!rc) rc = base_buf_append(&b, name, len);
  for (size_t i = 0; !rc && i < n.arrays; i++) rc = base_buf_append(&b, "[]", 2);
  if (!rc && n.is_static_class) rc = base_buf_append(&b, ">", 1);
  if (!rc) rc = ctx_intern(ctx, (const char *)b.data, b.len, out);
  base_buf_free(&b);
  return rc;
}

/* Chains `value` (a class key index or a reference row) under `key`. */
static int hg_chain(base_map *heads, hg_rows *next, uint64_t key, uint32_t value) {
  uint64_t *head;
  if (base_map_insert(heads, key, 0, &head) < 0) return WEFT_ENOMEM;
  next->data[value] = (uint32_t)*head;
  *head = (uint64_t)value + 1;
  return WEFT_OK;
}

int model_heap_graph_deobfuscate_begin(trace_context *ctx) {
  heap_graph_state *s = ctx->model.heap_graph;
  if (!s) return WEFT_OK;
  model_heap_graph_deobfuscate_end_state(s);
  storage_table *refs = ctx_table(ctx, TABLE_HEAP_GRAPH_REFERENCE);
  if (VEC_RESERVE(s->deobf_class_next, s->class_keys.len + 1) ||
      VEC_RESERVE(s->deobf_field_next, refs->row_count + 1))
    return WEFT_ENOMEM;
  int rc = WEFT_OK;
  for (size_t i = s->class_keys.len; !rc && i-- > 0;)
    rc = hg_chain(&s->deobf_classes, &s->deobf_class_next,
                  s->class_keys.data[i].normalized, (uint32_t)i);
  for (size_t r = refs->row_count; !rc && r-- > 0;) {
    string_id f = storage_get_str(refs, HEAP_GRAPH_REFERENCE_field_name, r);
    if (f) rc = hg_chain(&s->deobf_fields, &s->deobf_field_next, f, (uint32_t)r);
  }
  return rc;
}

void model_heap_graph_deobfuscate_end(trace_context *ctx) {
  if (ctx->model.heap_graph) model_heap_graph_deobfuscate_end_state(ctx->model.heap_graph);
}

int model_heap_graph_deobfuscate_class(trace_context *ctx, const char *package,
                                       size_t package_len, const char *obfuscated,
                                       size_t obfuscated_len, const char *name,
                                       size_t name_len) {
  heap_graph_state *s = ctx->model.heap_graph;
  string_id obf = base_string_pool_find(&ctx->strings, obfuscated, obfuscated_len);
  uint64_t *head = s && obf ? base_map_find(&s->deobf_classes, obf) : NULL;
  if (!head) return WEFT_OK;
  string_id pkg = package_len ? base_string_pool_find(&ctx->strings, package, package_len)
                              : STRING_NULL;
  storage_table *t = ctx_table(ctx, TABLE_HEAP_GRAPH_CLASS);
  for (uint32_t i = (uint32_t)*head; i; i = s->deobf_class_next.data[i - 1]) {
    const hg_class_key *k = &s->class_keys.data[i - 1];
    if (k->package && k->package != pkg) continue;
    string_id cls = storage_get_str(t, HEAP_GRAPH_CLASS_name, k->row);
    const char *str = base_string_pool_get(&ctx->strings, cls);
    hg_normalized n = hg_normalize(str ? str : "", base_string_pool_len(&ctx->strings, cls));
    string_id out;
    int rc = hg_denormalize(ctx, n, name, name_len, &out);
    if (rc) return rc;
    storage_set_str(t, HEAP_GRAPH_CLASS_deobfuscated_name, k->row, out);
  }
  return storage_table_status(t);
}

int model_heap_graph_deobfuscate_field(trace_context *ctx, const char *obfuscated,
                                       size_t obfuscated_len, const char *name,
                                       size_t name_len) {
  heap_graph_state *s = ctx->model.heap_graph;
  string_id obf = base_string_pool_find(&ctx->strings, obfuscated, obfuscated_len);
  uint64_t *head = s && obf ? base_map_find(&s->deobf_fields, obf) : NULL;
  if (!head) return WEFT_OK;
  string_id out;
  int rc = ctx_intern(ctx, name, name_len, &out);
  if (rc) return rc;
  storage_table *t = ctx_table(ctx, TABLE_HEAP_GRAPH_REFERENCE);
  for (uint32_t r = (uint32_t)*head; r; r = s->deobf_field_next.data[r - 1])
    storage_set_str(t, HEAP_GRAPH_REFERENCE_deobfuscated_field_name, r - 1, out);
  return storage_table_status(t);
}
