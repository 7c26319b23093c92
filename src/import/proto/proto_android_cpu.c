/* proto_android_cpu: CpuPerUidData, CPU time per (uid, cluster). See
 * proto_android.h for the rules. */
#include "import/proto/proto_android.h"

#include <stdio.h>
#include <string.h>

#include "model/android.h"
#include "model/model.h"

enum { CPU_CLUSTER_COUNT = 1, CPU_UID = 2, CPU_TOTAL_TIME_MS = 3 };

#define CPU_MAX_CLUSTERS 64

/* A counter written sparsely: a value equal to the last one written is
 * held back, and written only just before a different one. */
typedef struct cpu_sparse {
  double last, held;
  int64_t held_ts;
  int has_held;
} cpu_sparse;

/* A (uid, cluster) key's state. */
typedef struct cpu_key {
  uint64_t key;        /* uid << 32 | cluster */
  uint64_t value;      /* the counter's value (absolute, then summed) */
  uint64_t cumulative; /* the sum of its increases (grouped uids) */
  int64_t track;       /* its counter track, -1 until written */
  uint32_t row;        /* its __intrinsic_android_cpu_per_uid_track row */
} cpu_key;

struct proto_android_cpu_state {
  uint64_t cluster_count;
  base_map by_key; /* key -> index into keys (values: absolute per uid) */
  VEC(cpu_key) keys;
  base_map grouped; /* key of a uid group -> index into keys (cumulative) */
  VEC(uint32_t) grouped_order; /* the groups' keys in first-seen order */
  VEC(uint32_t) value_order; /* non-grouped keys in first-seen order */
  uint64_t system[CPU_MAX_CLUSTERS], apps[CPU_MAX_CLUSTERS];
  uint64_t has_system, has_apps; /* bit per cluster */
  int64_t totals_track[2][CPU_MAX_CLUSTERS]; /* +1; 0: none */
  base_map sparse_by_track; /* track -> index into sparse */
  VEC(cpu_sparse) sparse;
};

void proto_android_cpu_free(proto_android_cpu_state *s) {
  if (!s) return;
  base_map_free(&s->by_key);
  base_map_free(&s->grouped);
  base_map_free(&s->sparse_by_track);
  VEC_FREE(s->keys);
  VEC_FREE(s->grouped_order);
  VEC_FREE(s->value_order);
  VEC_FREE(s->sparse);
  base_free(s);
}

static uint32_t cpu_pkg_id(uint32_t uid) { return uid % 100000; }

static int cpu_is_grouped(uint32_t uid) {
  uint32_t pkg = cpu_pkg_id(uid);
  return (pkg >= 50000 && pkg < 60000) || (pkg >= 90000 && pkg < 100000);
}

static uint32_t cpu_grouped_uid(uint32_t uid) {
  return cpu_is_grouped(uid) ? uid - uid % 10000 : uid;
}

/* The index of key in keys (created at 0), via map `m`. */
static int cpu_key_index(proto_android_cpu_state *s, base_map *m, uint64_t key,
                         uint32_t *index, int *created) {
  uint64_t *slot;
  int ins = base_map_insert(m, key, s->keys.len, &slot);
  if (ins < 0) return WEFT_ENOMEM;
  *created = ins == 1;
  if (ins == 1 && VEC_PUSH(s->keys, ((cpu_key){key, 0, 0, -1, 0}))) return WEFT_ENOMEM;
  *index = (uint32_t)*slot;
  return WEFT_OK;
}

/* Writes value at ts on track, sparsely (cpu_sparse). */
static int cpu_push(import_file *f, proto_android_cpu_state *s, uint32_t track, int64_t ts,
                    double value) {
  uint64_t *slot;
  int ins = base_map_insert(&s->sparse_by_track, track, s->sparse.len, &slot);
  if (ins < 0 || (ins == 1 && VEC_PUSH(s->sparse, ((cpu_sparse){value, 0, 0, 0}))))
    return WEFT_ENOMEM;
  cpu_sparse *sp = &s->sparse.data[*slot];
  if (ins == 0 && value == sp->last) {
    sp->held = value, sp->held_ts = ts, sp->has_held = 1;
    return WEFT_OK;
  }
  int rc = sp->has_held ? model_counter(f->ctx, track, sp->held_ts, sp->held, -1) : WEFT_OK;
  sp->has_held = 0;
  sp->last = value;
  return rc ? rc : model_counter(f->ctx, track, ts, value, -1);
}

/* A counter track "CPU for <what> CL<cluster>" of `type`, dimensions
 * (dim_key: the string or int, cluster). */
static int cpu_track(import_file *f, uint32_t machine, const char *type, const char *dim_key,
                     const char *dim_str, int64_t dim_int, uint32_t cluster, uint32_t *track) {
  char name[96];
  if (dim_str) snprintf(name, sizeof name, "CPU for %s CL%u", dim_str, cluster);
  else snprintf(name, sizeof name, "CPU for UID %lld CL%u", (long long)dim_int, cluster);
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.name = name;
  spec.type = type;
  spec.is_counter = 1;
  spec.machine = machine;
  spec.unit = "ms";
  trace_context *ctx = f->ctx;
  int rc = model_track(ctx, &spec, track);
  if (!rc) rc = dim_str ? model_arg_string(ctx, dim_key, strlen(dim_key), dim_str,
                                           strlen(dim_str), MODEL_ARG_STRING)
                        : model_arg_int(ctx, dim_key, strlen(dim_key), MODEL_ARG_INT, dim_int);
  if (!rc) rc = model_arg_int(ctx, "cluster", 7, MODEL_ARG_INT, cluster);
  int64_t dims = -1;
  if (!rc) rc = model_args_commit(ctx, &dims);
  else model_args_discard(ctx);
  if (!rc) model_track_set_arg_sets(ctx, *track, dims, -1);
  return rc;
}

/* Writes key k's counter (its cumulative total if `cumulative`). */
static int cpu_emit_key(import_file *f, proto_android_cpu_state *s, uint32_t machine,
                        int64_t ts, uint32_t index, int cumulative) {
  cpu_key *k = &s->keys.data[index];
  uint32_t uid = (uint32_t)(k->key >> 32), cluster = (uint32_t)k->key;
  int rc = WEFT_OK;
  if (k->track < 0) {
    uint32_t track, row;
    rc = cpu_track(f, machine, "android_cpu_per_uid", "uid", NULL, uid, cluster, &track);
    if (!rc) rc = model_cpu_per_uid_track(f->ctx, track, uid, cluster, &row);
    if (rc) return rc;
    k = &s->keys.data[index];
    k->track = track;
    k->row = row;
    model_cpu_per_uid_total(f->ctx, row, (int64_t)k->cumulative);
  }
  return cpu_push(f, s, (uint32_t)k->track, ts, (double)(cumulative ? k->cumulative : k->value));
}

static int cpu_emit_totals(import_file *f, proto_android_cpu_state *s, uint32_t machine,
                           int64_t ts) {
  int rc = WEFT_OK;
  for (int apps = 0; apps < 2; apps++) {
    uint64_t mask = apps ? s->has_apps : s->has_system;
    for (uint32_t c = 0; !rc && c < CPU_MAX_CLUSTERS; c++) {
      if (!(mask >> c & 1)) continue;
      uint32_t track;
      if (s->totals_track[apps][c]) track = (uint32_t)(s->totals_track[apps][c] - 1);
      else if ((rc = cpu_track(f, machine, "android_cpu_per_uid_totals", "type",
                               apps ? "Apps" : "System", 0, c, &track)) == 0)
        s->totals_track[apps][c] = (int64_t)track + 1;
      if (!rc) rc = cpu_push(f, s, track, ts, (double)(apps ? s->apps[c] : s->system[c]));
    }
  }
  return rc;
}

/* One (uid, cluster, raw time) of the packet: the key's value (the first
 * time absolute, then increments), its increase into the totals. */
static int cpu_sample(import_file *f, proto_android_cpu_state *s, uint32_t uid, uint32_t cluster,
                      uint64_t raw) {
  uint32_t index, gindex;
  int created;
  int rc = cpu_key_index(s, &s->by_key, (uint64_t)uid << 32 | cluster, &index, &created);
  if (rc) return rc;
  if (created && !cpu_is_grouped(uid) && VEC_PUSH(s->value_order, index)) return WEFT_ENOMEM;
  uint64_t delta = created ? 0 : raw;
  s->keys.data[index].value = created ? raw : s->keys.data[index].value + raw;
  uint32_t grouped = cpu_grouped_uid(uid);
  gindex = index; /* a uid of no group is its own total */
  if (grouped != uid) {
    rc = cpu_key_index(s, &s->grouped, (uint64_t)grouped << 32 | cluster, &gindex, &created);
    if (rc) return rc;
    if (created && VEC_PUSH(s->grouped_order, gindex)) return WEFT_ENOMEM;
  }
  cpu_key *g = &s->keys.data[gindex];
  g->cumulative += delta;
  if (g->track >= 0) model_cpu_per_uid_total(f->ctx, g->row, (int64_t)g->cumulative);
  if (cpu_pkg_id(grouped) < 10000) s->system[cluster] += delta, s->has_system |= 1ull << cluster;
  else s->apps[cluster] += delta, s->has_apps |= 1ull << cluster;
  return WEFT_OK;
}

/* The packed varints of a field, read by the caller with proto_varint_decode. */
static int cpu_samples(import_file *f, proto_android_cpu_state *s, proto_span uids,
                       proto_span times) {
  if (!uids.data || !times.data) return WEFT_OK; /* an empty field: no samples */
  const uint8_t *u = uids.data, *ue = u + uids.len, *t = times.data, *te = t + times.len;
  uint64_t uid = 0, raw;
  uint32_t cluster = 0;
  int n = u < ue ? proto_varint_decode(u, ue, &uid) : 0;
  if (n <= 0) return WEFT_OK;
  u += n;
  while (t < te) {
    int m = proto_varint_decode(t, te, &raw);
    if (m <= 0) break;
    t += m;
    if (cluster < CPU_MAX_CLUSTERS) {
      int rc = cpu_sample(f, s, (uint32_t)uid, cluster, raw);
      if (rc) return rc;
    }
    if (++cluster >= s->cluster_count) {
      cluster = 0;
      if (u >= ue || (n = proto_varint_decode(u, ue, &uid)) <= 0) break;
      u += n;
    }
  }
  return WEFT_OK;
}

int proto_android_cpu_per_uid(import_file *f, proto_android_cpu_state **state, uint32_t machine,
                              int64_t ts, proto_span msg) {
  if (!*state && !(*state = base_calloc(1, sizeof **state))) return WEFT_ENOMEM;
  proto_android_cpu_state *s = *state;
  proto_span uids = {NULL, 0}, times = {NULL, 0};
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    int len = fl.wire_type == PROTO_WIRE_LEN;
    if (fl.number == CPU_CLUSTER_COUNT && !len) s->cluster_count = fl.value;
    else if (fl.number == CPU_UID && len) uids = fl.span;
    else if (fl.number == CPU_TOTAL_TIME_MS && len) times = fl.span;
  }
  int rc = cpu_samples(f, s, uids, times);
  if (!rc) rc = cpu_emit_totals(f, s, machine, ts);
  for (size_t i = 0; !rc && i < s->grouped_order.len; i++)
    rc = cpu_emit_key(f, s, machine, ts, s->grouped_order.data[i], 1);
  for (size_t i = 0; !rc && i < s->value_order.len; i++)
    rc = cpu_emit_key(f, s, machine, ts, s->value_order.data[i], 0);
  return rc;
}
