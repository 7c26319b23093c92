/* Java deobfuscation of stack_profile_frame names. See
 * model/stack_profile.h.
 *
 * The rules:
 *  - Only frames whose name holds a '.' are Java frames. A frame's package
 *    is that of its mapping ("/data/app/<package>-<suffix>/...", or one of
 *    a few preinstalled apps), or "memfd" for a "/memfd:" mapping; an app
 *    path without "<package>-" counts deobfuscate_location_parse_error
 *    (once per frame, whether or not any mapping packet comes). A frame
 *    of neither takes the package of the first process (by android_appid in
 *    packages_list) whose samples reach it: heap allocations first, then
 *    perf, CPU-profile, Instruments and StackSample samples, then OOME
 *    thread stacks. A frame of no package is never renamed.
 *  - A mapping packet without a package renames no frame. One with a
 *    package renames the frames of that package and every memfd frame;
 *    packets apply in order, a later one renaming over an earlier one.
 *  - The renamings of a frame "c.m" in a packet are its methods m of the
 *    classes c, in the order listed; each is "<class>.<method>", or the
 *    method's name alone when that is already qualified (holds a '.').
 *  - When the frame's symbol has a line and some renamings' obfuscated
 *    line ranges hold it, those are the frame's inline chain: a new symbol
 *    set of one row each (source line, inlined but for the last) becomes
 *    the frame's, and the last names it. Otherwise the frame is named by
 *    the one distinct renaming, or all of them sorted and joined " | ". */
#include <stdlib.h>
#include <string.h>

#include "model/context.h"
#include "model/stack_profile_internal.h"

#define SPD_MEMFD ((string_id)UINT32_MAX) /* the package of a memfd frame */
#define SPD_UNKNOWN ((string_id)UINT32_MAX - 1) /* a Java frame to guess for */
#define SPD_UNNAMED ((string_id)UINT32_MAX - 2) /* a package no string names */

typedef struct spd_class {
  string_id package, obfuscated, deobfuscated;
  uint32_t packet; /* which DeobfuscationMapping packet */
  size_t first_method, method_count;
  size_t prev; /* index + 1 of the class before with the same obfuscated name */
} spd_class;

struct stack_profile_deobf {
  VEC(spd_class) classes;
  VEC(stack_profile_member) methods;
  base_map last_class; /* obfuscated name -> index + 1 of its last class */
  uint32_t packets;
  size_t frames_checked; /* frames counted by spd_count_unparsable */
};

typedef struct spd_hit {
  const spd_class *cls;
  const stack_profile_member *method;
} spd_hit;

typedef struct spd_name {
  const char *text;
  string_id id;
} spd_name;

typedef struct spd_scratch {
  VEC(size_t) classes; /* the classes of one obfuscated name, in order */
  VEC(spd_hit) hits;
  VEC(spd_name) names;
  base_buf text;
} spd_scratch;

void stack_profile_deobf_free(stack_profile_deobf *d) {
  if (!d) return;
  VEC_FREE(d->classes);
  VEC_FREE(d->methods);
  base_map_free(&d->last_class);
  base_free(d);
}

static stack_profile_deobf *spd_get(trace_context *ctx) {
  stack_profile_deobf **slot = stack_profile_deobf_slot(ctx);
  if (slot && !*slot) *slot = base_calloc(1, sizeof(stack_profile_deobf));
  return slot ? *slot : NULL;
}

int stack_profile_deobfuscation_mapping(trace_context *ctx) {
  stack_profile_deobf *d = spd_get(ctx);
  if (!d) return WEFT_ENOMEM;
  d->packets++;
  return WEFT_OK;
}

int stack_profile_add_class(trace_context *ctx, string_id package, string_id obfuscated,
                            string_id deobfuscated, const stack_profile_member *members,
                            size_t count) {
  stack_profile_deobf *d = spd_get(ctx);
  if (!d) return WEFT_ENOMEM;
  uint64_t *last;
  if (base_map_insert(&d->last_class, (uint64_t)obfuscated + 1, 0, &last) < 0)
    return WEFT_ENOMEM;
  spd_class c = {package, obfuscated, deobfuscated, d->packets, d->methods.len, count,
                 (size_t)*last};
  for (size_t i = 0; i < count; i++)
    if (VEC_PUSH(d->methods, members[i])) return WEFT_ENOMEM;
  if (VEC_PUSH(d->classes, c)) return WEFT_ENOMEM;
  *last = d->classes.len;
  return WEFT_OK;
}

/* ---- a frame's package ---- */

static int spd_starts(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The package of a preinstalled app that does not live under /data/app. */
static const char *spd_system_app_package(const char *s) {
  static const char *const apps[][2] = {
      {"/system_ext/priv-app/SystemUIGoogle/SystemUIGoogle.apk", "com.android.systemui"},
      {"/product/priv-app/Phonesky/Phonesky.apk", "com.android.vending"},
      {"/product/app/Maps/Maps.apk", "com.google.android.apps.maps"},
      {"/system_ext/priv-app/NexusLauncherRelease/NexusLauncherRelease.apk",
       "com.google.android.apps.nexuslauncher"},
      {"/product/app/Photos/Photos.apk", "com.google.android.apps.photos"},
      {"/product/priv-app/WellbeingPrebuilt/WellbeingPrebuilt.apk",
       "com.google.android.apps.wellbeing"},
      {"/product/app/PrebuiltGmail/PrebuiltGmail.apk", "com.google.android.gm"},
      {"/product/priv-app/PrebuiltGmsCore/PrebuiltGmsCore", "com.google.android.gms"},
      {"/product/priv-app/Velvet/Velvet.apk", "com.google.android.googlequicksearchbox"},
      {"/product/app/LatinIMEGooglePrebuilt/LatinIMEGooglePrebuilt.apk",
       "com.google.android.inputmethod.latin"},
      {"/product/app/PrebuiltBugle/PrebuiltBugle.apk", "com.google.android.apps.messaging"},
  };
  for (size_t i = 0; i < sizeof apps / sizeof apps[0]; i++)
    if (spd_starts(s, apps[i][0])) return apps[i][1];
  return strstr(s, "MatchMaker") ? "com.google.android.as" : NULL;
}

/* The package of a mapping: STRING_NULL (none known), SPD_MEMFD, or
 * SPD_UNNAMED (one that no mapping packet can name); *unparsable when an
 * app path ("/data/app/[~~<random>/]<package>-<suffix>/...") lacks its
 * package. */
static string_id spd_mapping_package(trace_context *ctx, string_id mapping_name,
                                     int *unparsable) {
  static const char prefix[] = "/data/app/";
  const char *s = base_string_pool_get(&ctx->strings, mapping_name);
  *unparsable = 0;
  if (!s) return STRING_NULL;
  const char *app = spd_system_app_package(s);
  string_id found;
  if (app) return (found = base_string_pool_find(&ctx->strings, app, strlen(app))) ? found
                                                                                   : SPD_UNNAMED;
  if (spd_starts(s, "/memfd:")) return SPD_MEMFD;
  if (!spd_starts(s, prefix)) return STRING_NULL;
  s += sizeof prefix - 1;
  if (s[0] == '~' && s[1] == '~') {
    const char *slash = strchr(s, '/');
    s = slash ? slash + 1 : s + strlen(s);
  }
  const char *end = strchr(s, '/');
  const char *dash = end ? memchr(s, '-', (size_t)(end - s)) : NULL;
  if (!dash) return *unparsable = 1, STRING_NULL;
  found = base_string_pool_find(&ctx->strings, s, (size_t)(dash - s));
  return found ? found : SPD_UNNAMED;
}

typedef struct spd_guess {
  string_id *package;     /* per frame */
  uint8_t *walked;        /* per callsite: its path to the root was walked */
  base_map app_package;   /* android_appid + 1 -> its first package name */
  size_t unknown;         /* frames still SPD_UNKNOWN */
} spd_guess;

static int spd_app_packages(trace_context *ctx, base_map *out) {
  const storage_table *t = ctx_table(ctx, TABLE_PACKAGE_LIST);
  for (size_t row = 0; row < t->row_count; row++) {
    if (storage_is_null(t, PACKAGE_LIST_uid, row)) continue;
    uint64_t *slot;
    uint64_t key = (uint64_t)storage_get_i64(t, PACKAGE_LIST_uid, row) + 1;
    if (base_map_insert(out, key, storage_get_str(t, PACKAGE_LIST_package_name, row), &slot) < 0)
      return WEFT_ENOMEM;
  }
  return WEFT_OK;
}

/* Gives the package of process `upid` to the unknown frames of the
 * callsite and its parents. A callsite walked before has had its path
 * given a package already, so the walk stops there. */
static void spd_guess_from(trace_context *ctx, spd_guess *g, int64_t upid, int64_t callsite) {
  const storage_table *procs = ctx_table(ctx, TABLE_PROCESS);
  const storage_table *cs = ctx_table(ctx, TABLE_STACK_PROFILE_CALLSITE);
  if (!g->unknown || upid < 0 || (size_t)upid >= procs->row_count ||
      storage_is_null(procs, PROCESS_android_appid, (size_t)upid))
    return;
  uint64_t *pkg = base_map_find(
      &g->app_package, (uint64_t)storage_get_i64(procs, PROCESS_android_appid, (size_t)upid) + 1);
  if (!pkg) return;
  while (callsite >= 0 && (size_t)callsite < cs->row_count && !g->walked[callsite]) {
    g->walked[callsite] = 1;
    int64_t frame = storage_get_i64(cs, STACK_PROFILE_CALLSITE_frame_id, (size_t)callsite);
    if (g->package[frame] == SPD_UNKNOWN) g->package[frame] = (string_id)*pkg, g->unknown--;
    callsite = storage_get_i64_or(cs, STACK_PROFILE_CALLSITE_parent_id, (size_t)callsite, -1);
  }
}

static int64_t spd_upid_of_thread(trace_context *ctx, int64_t utid) {
  const storage_table *threads = ctx_table(ctx, TABLE_THREAD);
  if (utid < 0 || (size_t)utid >= threads->row_count) return -1;
  return storage_get_i64_or(threads, THREAD_upid, (size_t)utid, -1);
}

static void spd_guess_packages(trace_context *ctx, spd_guess *g) {
  const storage_table *allocs = ctx_table(ctx, TABLE_HEAP_PROFILE_ALLOCATION);
  for (size_t row = 0; row < allocs->row_count && g->unknown; row++)
    spd_guess_from(ctx, g, storage_get_i64(allocs, HEAP_PROFILE_ALLOCATION_upid, row),
                   storage_get_i64(allocs, HEAP_PROFILE_ALLOCATION_callsite_id, row));
  const storage_table *samples = ctx_table(ctx, TABLE_STACK_SAMPLE);
  const storage_table *tasks = ctx_table(ctx, TABLE_STACK_SAMPLE_TASK_CONTEXT);
  for (size_t row = 0; row < samples->row_count && g->unknown; row++) {
    int64_t task = storage_get_i64_or(samples, STACK_SAMPLE_task_context_id, row, -1);
    if (task < 0 || (size_t)task >= tasks->row_count) continue;
    /* the process of the sample's thread, else that of its task context */
    int64_t utid = storage_get_i64_or(samples, STACK_SAMPLE_utid, row, -1);
    int64_t upid = utid >= 0 ? spd_upid_of_thread(ctx, utid)
                             : storage_get_i64_or(tasks, STACK_SAMPLE_TASK_CONTEXT_upid,
                                                  (size_t)task, -1);
    spd_guess_from(ctx, g, upid, storage_get_i64_or(samples, STACK_SAMPLE_callsite_id, row, -1));
  }
  const storage_table *oome = ctx_table(ctx, TABLE_HEAP_GRAPH_THREAD_CALLSITE);
  const storage_table *graphs = ctx_table(ctx, TABLE_HEAP_GRAPH);
  for (size_t row = 0; row < oome->row_count && g->unknown; row++) {
    int64_t graph = storage_get_i64(oome, HEAP_GRAPH_THREAD_CALLSITE_heap_graph_id, row);
    spd_guess_from(ctx, g, storage_get_i64(graphs, HEAP_GRAPH_upid, (size_t)graph),
                   storage_get_i64_or(oome, HEAP_GRAPH_THREAD_CALLSITE_callsite_id, row, -1));
  }
}

/* Fills g->package for every frame: its package, SPD_MEMFD, or
 * STRING_NULL (not a Java frame, or none known). */
static int spd_frame_packages(trace_context *ctx, spd_guess *g) {
  const storage_table *frames = ctx_table(ctx, TABLE_STACK_PROFILE_FRAME);
  const storage_table *maps = ctx_table(ctx, TABLE_STACK_PROFILE_MAPPING);
  g->package = base_calloc(frames->row_count + 1, sizeof(string_id));
  if (!g->package) return WEFT_ENOMEM;
  for (size_t row = 0; row < frames->row_count; row++) {
    const char *name =
        base_string_pool_get(&ctx->strings, storage_get_str(frames, STACK_PROFILE_FRAME_name, row));
    if (!name || !strchr(name, '.')) continue;
    int64_t mapping = storage_get_i64(frames, STACK_PROFILE_FRAME_mapping, row);
    int unparsable;
    string_id pkg = spd_mapping_package(
        ctx, storage_get_str(maps, STACK_PROFILE_MAPPING_name, (size_t)mapping), &unparsable);
    g->package[row] = pkg ? pkg : SPD_UNKNOWN;
    if (!pkg) g->unknown++;
  }
  if (!g->unknown) return WEFT_OK;
  const storage_table *cs = ctx_table(ctx, TABLE_STACK_PROFILE_CALLSITE);
  g->walked = base_calloc(cs->row_count + 1, 1);
  if (!g->walked || spd_app_packages(ctx, &g->app_package)) return WEFT_ENOMEM;
  spd_guess_packages(ctx, g);
  return WEFT_OK;
}

/* ---- renaming one frame ---- */

/* The line of the frame's symbol (its set's first row with one), or -1. */
static int64_t spd_frame_line(trace_context *ctx, size_t frame) {
  const storage_table *frames = ctx_table(ctx, TABLE_STACK_PROFILE_FRAME);
  const storage_table *sym = ctx_table(ctx, TABLE_STACK_PROFILE_SYMBOL);
  int64_t set = storage_get_i64_or(frames, STACK_PROFILE_FRAME_symbol_set_id, frame, -1);
  if (set < 0) return -1;
  for (size_t row = (size_t)set;
       row < sym->row_count && storage_get_i64(sym, STACK_PROFILE_SYMBOL_symbol_set_id, row) == set;
       row++)
    if (!storage_is_null(sym, STACK_PROFILE_SYMBOL_line_number, row))
      return storage_get_i64(sym, STACK_PROFILE_SYMBOL_line_number, row);
  return -1;
}

static int spd_line_in(const stack_profile_member *m, int64_t line) {
  return (m->obfuscated_line_start < 0 || line >= m->obfuscated_line_start) &&
         (m->obfuscated_line_end < 0 || line <= m->obfuscated_line_end);
}

/* "<class>.<method>", or the method's own name when already qualified. */
static int spd_full_name(trace_context *ctx, spd_scratch *s, const spd_hit *h, string_id *out) {
  const char *method = base_string_pool_get(&ctx->strings, h->method->deobfuscated);
  if (method && strchr(method, '.')) return *out = h->method->deobfuscated, WEFT_OK;
  const char *cls = base_string_pool_get(&ctx->strings, h->cls->deobfuscated);
  base_buf_reset(&s->text);
  int rc = base_buf_appendf(&s->text, "%s.%s", cls ? cls : "", method ? method : "");
  return rc ? rc : ctx_intern(ctx, s->text.data, s->text.len, out);
}

/* The inline chain of renamings holding `line`: a new symbol set. */
static int spd_inline_chain(trace_context *ctx, spd_scratch *s, size_t frame, int64_t line,
                            int *done) {
  storage_table *sym = ctx_table(ctx, TABLE_STACK_PROFILE_SYMBOL);
  size_t set = sym->row_count, last = 0, n = 0;
  for (size_t i = 0; i < s->hits.len; i++)
    if (spd_line_in(s->hits.data[i].method, line)) last = i, n++;
  *done = n > 0;
  string_id name = STRING_NULL;
  for (size_t i = 0; i < s->hits.len && n; i++) {
    const spd_hit *h = &s->hits.data[i];
    if (!spd_line_in(h->method, line)) continue;
    uint32_t row;
    int rc = spd_full_name(ctx, s, h, &name);
    if (!rc) rc = storage_table_append(sym, &row);
    if (rc) return rc;
    storage_set_i64(sym, STACK_PROFILE_SYMBOL_symbol_set_id, row, (int64_t)set);
    storage_set_str(sym, STACK_PROFILE_SYMBOL_name, row, name);
    if (h->method->source_line_start >= 0)
      storage_set_i64(sym, STACK_PROFILE_SYMBOL_line_number, row, h->method->source_line_start);
    storage_set_i64(sym, STACK_PROFILE_SYMBOL_inlined, row, i != last);
  }
  if (!n) return WEFT_OK;
  storage_table *frames = ctx_table(ctx, TABLE_STACK_PROFILE_FRAME);
  storage_set_i64(frames, STACK_PROFILE_FRAME_symbol_set_id, frame, (int64_t)set);
  storage_set_str(frames, STACK_PROFILE_FRAME_deobfuscated_name, frame, name);
  return storage_table_status(sym) ? storage_table_status(sym) : storage_table_status(frames);
}

static int spd_name_cmp(const void *a, const void *b) {
  return strcmp(((const spd_name *)a)->text, ((const spd_name *)b)->text);
}

/* The one distinct renaming, or all of them sorted, joined " | " (cut
 * short at the text buffer's bound). */
static int spd_name_without_line(trace_context *ctx, spd_scratch *s, size_t frame) {
  s->names.len = 0;
  for (size_t i = 0; i < s->hits.len; i++) {
    spd_name n;
    int rc = spd_full_name(ctx, s, &s->hits.data[i], &n.id);
    n.text = rc ? NULL : base_string_pool_get(&ctx->strings, n.id);
    if (rc || VEC_PUSH(s->names, n)) return rc ? rc : WEFT_ENOMEM;
  }
  qsort(s->names.data, s->names.len, sizeof(spd_name), spd_name_cmp);
  base_buf_reset(&s->text);
  size_t distinct = 0;
  for (size_t i = 0; i < s->names.len; i++) {
    if (i && s->names.data[i].id == s->names.data[i - 1].id) continue;
    const char *n = s->names.data[i].text;
    if ((distinct++ && base_buf_append(&s->text, " | ", 3)) ||
        base_buf_append(&s->text, n, strlen(n)))
      break;
  }
  string_id name = s->names.data[0].id;
  int rc = distinct > 1 ? ctx_intern(ctx, s->text.data, s->text.len, &name) : WEFT_OK;
  if (rc) return rc;
  storage_table *frames = ctx_table(ctx, TABLE_STACK_PROFILE_FRAME);
  storage_set_str(frames, STACK_PROFILE_FRAME_deobfuscated_name, frame, name);
  return storage_table_status(frames);
}

/* Renames the frame by the hits of one mapping packet. */
static int spd_apply(trace_context *ctx, spd_scratch *s, size_t frame) {
  if (!s->hits.len) return WEFT_OK;
  int64_t line = spd_frame_line(ctx, frame);
  int done = 0;
  int rc = line >= 0 ? spd_inline_chain(ctx, s, frame, line, &done) : WEFT_OK;
  if (!rc && !done) rc = spd_name_without_line(ctx, s, frame);
  s->hits.len = 0;
  return rc;
}

static int spd_class_matches(const spd_class *c, string_id package) {
  if (c->package == STRING_NULL || c->package == 1 /* "" */) return 0;
  return package == SPD_MEMFD || package == c->package;
}

static int spd_rename_frame(trace_context *ctx, const stack_profile_deobf *d, spd_scratch *s,
                            size_t frame, string_id package) {
  const storage_table *frames = ctx_table(ctx, TABLE_STACK_PROFILE_FRAME);
  const char *name =
      base_string_pool_get(&ctx->strings, storage_get_str(frames, STACK_PROFILE_FRAME_name, frame));
  const char *dot = strrchr(name, '.');
  string_id cls = base_string_pool_find(&ctx->strings, name, (size_t)(dot - name));
  string_id member = base_string_pool_find(&ctx->strings, dot + 1, strlen(dot + 1));
  const uint64_t *last = base_map_find(&d->last_class, (uint64_t)cls + 1);
  if (cls == STRING_NULL || member == STRING_NULL || !last) return WEFT_OK;
  s->classes.len = 0;
  for (size_t i = (size_t)*last; i; i = d->classes.data[i - 1].prev)
    if (VEC_PUSH(s->classes, i - 1)) return WEFT_ENOMEM;
  int rc = WEFT_OK;
  for (size_t k = s->classes.len; k-- > 0 && !rc;) { /* the chain runs backwards */
    const spd_class *c = &d->classes.data[s->classes.data[k]];
    for (size_t m = 0; spd_class_matches(c, package) && m < c->method_count && !rc; m++) {
      const stack_profile_member *mm = &d->methods.data[c->first_method + m];
      spd_hit h = {c, mm};
      if (mm->obfuscated == member && VEC_PUSH(s->hits, h)) rc = WEFT_ENOMEM;
    }
    int packet_ends = k == 0 || d->classes.data[s->classes.data[k - 1]].packet != c->packet;
    if (!rc && packet_ends) rc = spd_apply(ctx, s, frame);
  }
  return rc;
}

/* Counts deobfuscate_location_parse_error for each Java frame made since
 * the last call whose app mapping path lacks its package. */
static int spd_count_unparsable(trace_context *ctx, stack_profile_deobf *d) {
  const storage_table *frames = ctx_table(ctx, TABLE_STACK_PROFILE_FRAME);
  const storage_table *maps = ctx_table(ctx, TABLE_STACK_PROFILE_MAPPING);
  int64_t n = 0;
  for (size_t row = d->frames_checked; row < frames->row_count; row++) {
    const char *name =
        base_string_pool_get(&ctx->strings, storage_get_str(frames, STACK_PROFILE_FRAME_name, row));
    if (!name || !strchr(name, '.')) continue;
    int64_t mapping = storage_get_i64(frames, STACK_PROFILE_FRAME_mapping, row);
    int unparsable;
    spd_mapping_package(ctx, storage_get_str(maps, STACK_PROFILE_MAPPING_name, (size_t)mapping),
                        &unparsable);
    n += unparsable;
  }
  d->frames_checked = frames->row_count;
  return n ? stats_add(&ctx->stats, stat_deobfuscate_location_parse_error, -1, -1, -1, n)
           : WEFT_OK;
}

int stack_profile_deobfuscate_frames(trace_context *ctx) {
  stack_profile_deobf *d = ctx->model.stack_profile ? spd_get(ctx) : NULL;
  if (!d) return ctx->model.stack_profile ? WEFT_ENOMEM : WEFT_OK;
  int rc0 = spd_count_unparsable(ctx, d);
  if (rc0 || !d->classes.len) return rc0;
  spd_guess g = {0};
  spd_scratch s = {0};
  base_buf_init(&s.text, 1 << 20);
  int rc = spd_frame_packages(ctx, &g);
  size_t count = ctx_table(ctx, TABLE_STACK_PROFILE_FRAME)->row_count;
  for (size_t row = 0; !rc && row < count; row++)
    if (g.package[row] != STRING_NULL && g.package[row] != SPD_UNKNOWN)
      rc = spd_rename_frame(ctx, d, &s, row, g.package[row]);
  base_free(g.package);
  base_free(g.walked);
  base_map_free(&g.app_package);
  VEC_FREE(s.classes);
  VEC_FREE(s.hits);
  VEC_FREE(s.names);
  base_buf_free(&s.text);
  return rc;
}
