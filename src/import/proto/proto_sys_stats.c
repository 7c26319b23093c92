/* SysStats and InitialDisplayState counters. See proto_sys_stats.h. */
#include "import/proto/proto_sys_stats.h"

#include <stdio.h>

#include "import/proto/proto_fields.h"
#include "model/android.h"
#include "model/context.h"
#include "model/model.h"
#include "model/gpu.h"
#include "model/kcounter.h"
#include "model/sched.h"

typedef struct proto_disk_sample {
  uint32_t machine;
  string_id name; /* STRING_NULL: a sample without a device name */
  int64_t v[10];  /* DiskStat fields 2..9 by number */
} proto_disk_sample;

struct proto_sys_stats_state {
  VEC(proto_disk_sample) disks;
  uint32_t page_size; /* the file's SystemInfo page size; 0 before any */
};

void proto_sys_stats_free(proto_sys_stats_state *s) {
  if (!s) return;
  VEC_FREE(s->disks);
  base_free(s);
}

static proto_sys_stats_state *proto_sys_stats_get(proto_sys_stats_state **state) {
  if (!*state) *state = base_calloc(1, sizeof **state);
  return *state;
}

int proto_sys_stats_system_info(proto_sys_stats_state **state, proto_span system_info) {
  proto_sys_stats_state *s = proto_sys_stats_get(state);
  if (!s) return WEFT_ENOMEM;
  proto_field fl;
  uint64_t page = 0;
  if (proto_find_last(system_info.data, system_info.len, PROTO_SYSTEM_INFO_PAGE_SIZE,
                      &fl) == 1 && fl.wire_type == PROTO_WIRE_VARINT)
    page = (uint32_t)fl.value;
  s->page_size = page ? (uint32_t)page : 4096;
  return WEFT_OK;
}

/* ---- machine-wide counter tracks told apart by their dimensions ---- */

/* One dimension arg of a track: a string (str NULL: a NULL string) or,
 * when !is_str, an int. */
typedef struct proto_sys_dim {
  const char *key;
  int is_str;
  const char *str;
  size_t len;
  int64_t num;
} proto_sys_dim;

static proto_sys_dim proto_sys_str(const char *key, proto_span v) {
  proto_sys_dim d = {key, 1, (const char *)v.data, v.len, 0};
  return d;
}

static proto_sys_dim proto_sys_cstr(const char *key, const char *v) {
  proto_sys_dim d = {key, 1, v, strlen(v), 0};
  return d;
}

static proto_sys_dim proto_sys_int(const char *key, int64_t v) {
  proto_sys_dim d = {key, 0, NULL, 0, v};
  return d;
}

static uint64_t proto_sys_dims_key(const proto_sys_dim *dims, size_t n) {
  uint64_t h = 0x5157u;
  for (size_t i = 0; i < n; i++) {
    /* an absent string and "" are the same dimension (Perfetto hashes the
     * bytes); the track keeps the first one's arg */
    h = base_hash_u64(h ^ (uint64_t)dims[i].is_str);
    h = base_hash_u64(h ^ (dims[i].is_str ? base_hash_bytes(dims[i].str, dims[i].len)
                                          : (uint64_t)dims[i].num));
  }
  return h;
}

static int proto_sys_dims_commit(trace_context *ctx, const proto_sys_dim *dims, size_t n,
                                 int64_t *arg_set) {
  int rc = WEFT_OK;
  for (size_t i = 0; !rc && i < n; i++) {
    size_t klen = strlen(dims[i].key);
    rc = dims[i].is_str
             ? model_arg_string(ctx, dims[i].key, klen, dims[i].str, dims[i].len,
                                MODEL_ARG_STRING)
             : model_arg_int(ctx, dims[i].key, klen, MODEL_ARG_INT, dims[i].num);
  }
  if (!rc) rc = model_args_commit(ctx, arg_set);
  return rc;
}

/* A counter on the machine's track (name, type, dims), made with its unit
 * (NULL: none) and dimension args when first used. */
static int proto_sys_counter(trace_context *ctx, uint32_t machine, int64_t ts,
                             const char *name, const char *type, const char *unit,
                             const proto_sys_dim *dims, size_t n, double value) {
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.name = name;
  spec.type = type;
  spec.is_counter = 1;
  spec.machine = machine;
  spec.unit = unit;
  spec.extra_key = proto_sys_dims_key(dims, n);
  size_t before = ctx_table(ctx, TABLE_TRACK)->row_count;
  uint32_t track;
  int rc = model_track(ctx, &spec, &track);
  if (!rc && track >= before && n) {
    int64_t arg_set = -1;
    rc = proto_sys_dims_commit(ctx, dims, n, &arg_set);
    if (!rc) model_track_set_arg_sets(ctx, track, arg_set, -1);
  }
  return rc ? rc : model_counter(ctx, track, ts, value, -1);
}

/* A string field's span, or {NULL, 0} when absent (a NULL dimension). */
static proto_span proto_sys_string(proto_span msg, uint32_t number) {
  proto_field fl;
  proto_span none = {NULL, 0};
  return proto_find_last(msg.data, msg.len, number, &fl) == 1 && fl.wire_type == PROTO_WIRE_LEN
             ? fl.span : none;
}

/* Copies a span into buf as a C string, cut at cap - 1 bytes. */
static const char *proto_sys_cstring(proto_span v, char *buf, size_t cap) {
  size_t n = v.len < cap - 1 ? v.len : cap - 1;
  if (n) memcpy(buf, v.data, n);
  buf[n] = '\0';
  return buf;
}

/* ---- meminfo, vmstat ---- */

/* A MeminfoValue or VmstatValue (key 1, value 2): a counter named by the
 * key's /proc name, meminfo in bytes (its values are kB). */
static int proto_sys_keyed(import_file *f, uint32_t machine, int64_t ts, proto_span msg,
                           int meminfo) {
  uint64_t key = proto_last_varint(msg, 1, NULL);
  uint64_t value = proto_last_varint(msg, 2, NULL);
  size_t known = meminfo ? PROTO_SYS_STATS_MEMINFO_KEYS : PROTO_SYS_STATS_VMSTAT_KEYS;
  int32_t k = (int32_t)(uint32_t)key; /* an enum field: its int32 */
  if (k < 0 || (size_t)k >= known)
    return import_stat(f, meminfo ? stat_meminfo_unknown_keys : stat_vmstat_unknown_keys, 1);
  const char *name = (meminfo ? proto_sys_stats_meminfo_keys : proto_sys_stats_vmstat_keys)[k];
  proto_sys_dim dim = proto_sys_cstr(meminfo ? "meminfo_key" : "vmstat_key", name);
  return proto_sys_counter(f->ctx, machine, ts, name, meminfo ? "meminfo" : "vmstat",
                           meminfo ? "bytes" : NULL, &dim, 1,
                           meminfo ? (double)value * 1024 : (double)value);
}

/* ---- devfreq, cpufreq ---- */

static int proto_sys_devfreq(import_file *f, uint32_t machine, int64_t ts, proto_span msg) {
  proto_span key = proto_sys_string(msg, 1);
  uint64_t value = proto_last_varint(msg, 2, NULL);
  kernel_scope scope = {machine, f->trace_id};
  return kcounter_device(f->ctx, &scope, ts, KCOUNTER_CLOCK_FREQUENCY, (const char *)key.data,
                         key.len, (double)value);
}

/* cpufreq_khz: one value per cpu, in cpu order (packed or not). */
static int proto_sys_cpufreq(import_file *f, uint32_t machine, int64_t ts,
                             const proto_field *fl, uint32_t *cpu) {
  kernel_scope scope = {machine, f->trace_id};
  if (fl->wire_type == PROTO_WIRE_VARINT) {
    uint32_t c = (*cpu)++;
    if (c >= SCHED_MAX_CPU) return WEFT_OK;
    return sched_cpu_counter(f->ctx, &scope, ts, c, "cpufreq", "cpu_frequency",
                             (double)(uint32_t)fl->value);
  }
  if (fl->wire_type != PROTO_WIRE_LEN) return WEFT_OK;
  proto_packed_iter it;
  uint64_t v;
  proto_packed_init(&it, fl->span);
  while (proto_packed_next_varint(&it, &v) == 1) {
    uint32_t c = (*cpu)++;
    if (c >= SCHED_MAX_CPU) continue;
    int rc = sched_cpu_counter(f->ctx, &scope, ts, c, "cpufreq", "cpu_frequency",
                               (double)(uint32_t)v);
    if (rc) return rc;
  }
  return WEFT_OK;
}

/* ---- cpu_stat ---- */

static int proto_cpu_times(import_file *f, uint32_t machine, int64_t ts, proto_span msg) {
  static const char *const keys[] = {"user_ns", "user_nice_ns", "system_mode_ns", "idle_ns",
                                     "io_wait_ns", "irq_ns", "softirq_ns", "steal_ns"};
  uint64_t v[10] = {0};
  int has_cpu = 0;
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1)
    if (fl.wire_type == PROTO_WIRE_VARINT && fl.number >= 1 && fl.number <= 9) {
      v[fl.number] = fl.value;
      has_cpu |= fl.number == 1;
    }
  if (!has_cpu) return import_stat(f, stat_invalid_cpu_times, 1);
  uint32_t cpu = (uint32_t)v[1], ucpu, track;
  if (cpu >= SCHED_MAX_CPU) return WEFT_OK;
  int rc = sched_ucpu(f->ctx, machine, cpu, &ucpu);
  for (int i = 0; !rc && i < 8; i++) {
    char name[64];
    snprintf(name, sizeof name, "cpu.times.%s", keys[i]);
    model_track_spec spec;
    model_track_spec_init(&spec);
    spec.name = name;
    spec.type = "cpustat";
    spec.is_counter = 1;
    spec.machine = machine;
    spec.cpu = ucpu;
    spec.cpu_number = cpu;
    spec.dim_key = "cpustat_key";
    spec.dim_str = keys[i];
    rc = model_track(f->ctx, &spec, &track);
    if (!rc) rc = model_counter(f->ctx, track, ts, (double)v[i + 2], -1);
  }
  return rc;
}

/* ---- interrupts, forks ---- */

/* An InterruptCount (irq 1, count 2) of "num_irq" or "num_softirq". */
static int proto_sys_irq(import_file *f, uint32_t machine, int64_t ts, proto_span msg,
                         const char *type) {
  uint32_t irq = (uint32_t)proto_last_varint(msg, 1, NULL);
  uint64_t count = proto_last_varint(msg, 2, NULL);
  char name[64];
  snprintf(name, sizeof name, "%s (id: %u)", type, irq);
  proto_sys_dim dim = proto_sys_int("irq", irq);
  return proto_sys_counter(f->ctx, machine, ts, name, type, NULL, &dim, 1, (double)count);
}

/* num_forks, num_irq_total, num_softirq_total: a track of that name. */
static int proto_sys_total(import_file *f, uint32_t machine, int64_t ts, const proto_field *fl,
                           const char *name) {
  if (fl->wire_type != PROTO_WIRE_VARINT) return WEFT_OK;
  return proto_sys_counter(f->ctx, machine, ts, name, name, NULL, NULL, 0, (double)fl->value);
}

/* ---- buddyinfo ---- */

static int proto_sys_buddy_order(import_file *f, uint32_t machine, int64_t ts, proto_span node,
                                 proto_span zone, uint32_t page_size, uint32_t order,
                                 uint64_t pages) {
  uint32_t chunk_kb = order < 32 ? (uint32_t)(((uint64_t)1 << order) * page_size / 1024) : 0;
  char n[128], z[128], name[320];
  snprintf(name, sizeof name, "mem.buddyinfo[%s][%s][%u kB]",
           proto_sys_cstring(node, n, sizeof n), proto_sys_cstring(zone, z, sizeof z), chunk_kb);
  proto_sys_dim dims[3] = {proto_sys_str("buddyinfo_node", node),
                           proto_sys_str("buddyinfo_zone", zone),
                           proto_sys_int("buddyinfo_chunk_size_kb", chunk_kb)};
  return proto_sys_counter(f->ctx, machine, ts, name, "buddyinfo", NULL, dims, 3,
                           (double)(uint32_t)pages);
}

/* A BuddyInfo (node 1, zone 2, order_pages 3): a counter per order, of
 * free chunks of (2^order pages) kB. */
static int proto_sys_buddy(import_file *f, const proto_sys_stats_state *s, uint32_t machine,
                           int64_t ts, proto_span msg) {
  proto_span node = proto_sys_string(msg, 1), zone = proto_sys_string(msg, 2);
  uint32_t order = 0;
  proto_reader r;
  proto_field fl;
  int rc = WEFT_OK;
  proto_reader_init_span(&r, msg);
  while (!rc && proto_reader_next(&r, &fl) == 1) {
    if (fl.number != 3) continue;
    if (fl.wire_type == PROTO_WIRE_VARINT) {
      rc = proto_sys_buddy_order(f, machine, ts, node, zone, s->page_size, order++, fl.value);
    } else if (fl.wire_type == PROTO_WIRE_LEN) {
      proto_packed_iter it;
      uint64_t v;
      proto_packed_init(&it, fl.span);
      while (!rc && proto_packed_next_varint(&it, &v) == 1)
        rc = proto_sys_buddy_order(f, machine, ts, node, zone, s->page_size, order++, v);
    }
  }
  return rc;
}

/* ---- thermal zones, psi ---- */

/* A ThermalZone (temp 2, type 3): a counter in C named by the zone's type,
 * whose thermal_zone dimension is that type (NULL when absent). */
static int proto_thermal_zone(import_file *f, uint32_t machine, int64_t ts, proto_span msg) {
  uint64_t temp = proto_last_varint(msg, 2, NULL);
  proto_span type = proto_sys_string(msg, 3);
  char name[256];
  proto_sys_dim dim = proto_sys_str("thermal_zone", type);
  return proto_sys_counter(f->ctx, machine, ts, proto_sys_cstring(type, name, sizeof name),
                           "thermal_temperature_sys", "C", &dim, 1, (double)temp);
}

static const char *const proto_psi_resources[] = {"resource.unspecified", "cpu.some",
                                                  "cpu.full", "io.some", "io.full",
                                                  "mem.some", "mem.full"};

/* A PsiSample (resource 1, total_ns 2); *unknown: set for a resource
 * without a name, which ends the packet (as in Perfetto). */
static int proto_sys_psi(import_file *f, uint32_t machine, int64_t ts, proto_span msg,
                         int *unknown) {
  uint64_t resource = proto_last_varint(msg, 1, NULL);
  uint64_t total = proto_last_varint(msg, 2, NULL);
  if (resource >= sizeof proto_psi_resources / sizeof *proto_psi_resources) {
    *unknown = 1;
    return import_stat(f, stat_psi_unknown_resource, 1);
  }
  const char *key = proto_psi_resources[resource];
  char name[64];
  snprintf(name, sizeof name, "psi.%s", key);
  proto_sys_dim dim = proto_sys_cstr("psi_resource", key);
  return proto_sys_counter(f->ctx, machine, ts, name, "psi", NULL, &dim, 1, (double)total);
}

/* ---- disk stats ---- */

static proto_disk_sample *proto_disk_find(proto_sys_stats_state *s, uint32_t machine,
                                          string_id name) {
  for (size_t i = 0; i < s->disks.len; i++)
    if (s->disks.data[i].machine == machine && s->disks.data[i].name == name)
      return &s->disks.data[i];
  return NULL;
}

typedef struct proto_disk_metric {
  const char *metric, *unit;
  double value;
} proto_disk_metric;

static int proto_disk_counters(import_file *f, uint32_t machine, int64_t ts, proto_span dev,
                               const proto_disk_metric *m, size_t n) {
  char d[128], name[192];
  proto_sys_cstring(dev, d, sizeof d);
  int rc = WEFT_OK;
  for (size_t i = 0; !rc && i < n; i++) {
    snprintf(name, sizeof name, "diskstat.[%s].%s", d, m[i].metric);
    proto_sys_dim dims[2] = {proto_sys_str("device_name", dev),
                             proto_sys_cstr("counter_name", m[i].metric)};
    rc = proto_sys_counter(f->ctx, machine, ts, name, "diskstat", m[i].unit, dims, 2,
                           m[i].value);
  }
  return rc;
}

/* Amount (MB) of a sector change and its throughput (MB/s) over ms. */
static void proto_disk_rate(int64_t sectors, int64_t ms, double *mb, double *mbps) {
  *mb = (double)sectors / 2048.0;
  *mbps = ms ? *mb * 1000.0 / (double)ms : 0.0;
}

/* A DiskStat: counters of the change since the device's previous sample
 * (the first sample of a device only sets the base). */
static int proto_disk_stat(import_file *f, proto_sys_stats_state *s, uint32_t machine,
                           int64_t ts, proto_span msg) {
  proto_disk_sample cur;
  memset(&cur, 0, sizeof cur);
  cur.machine = machine;
  proto_span dev = proto_sys_string(msg, 1);
  int rc = ctx_intern(f->ctx, (const char *)dev.data, dev.len, &cur.name);
  if (rc) return rc;
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1)
    if (fl.number >= 2 && fl.number <= 9 && fl.wire_type == PROTO_WIRE_VARINT)
      cur.v[fl.number] = (int64_t)fl.value;
  proto_disk_sample *prev = proto_disk_find(s, machine, cur.name);
  if (!prev) {
    if (s->disks.len >= PROTO_SYS_STATS_MAX_DISKS) return import_stat(f, stat_disk_stats_dropped, 1);
    return VEC_PUSH(s->disks, cur) ? WEFT_ENOMEM : WEFT_OK;
  }
  int64_t d[10];
  for (int i = 2; i <= 9; i++) d[i] = (int64_t)((uint64_t)cur.v[i] - (uint64_t)prev->v[i]);
  *prev = cur;
  proto_disk_metric m[8];
  proto_disk_rate(d[2], d[3], &m[0].value, &m[1].value);
  proto_disk_rate(d[4], d[5], &m[2].value, &m[3].value);
  proto_disk_rate(d[6], d[7], &m[4].value, &m[5].value);
  m[0].metric = "read_amount", m[0].unit = "MB";
  m[1].metric = "read_throughput", m[1].unit = "MB/s";
  m[2].metric = "write_amount", m[2].unit = "MB";
  m[3].metric = "write_throughput", m[3].unit = "MB/s";
  m[4].metric = "discard_amount", m[4].unit = "MB";
  m[5].metric = "discard_throughput", m[5].unit = "MB/s";
  m[6].metric = "flush_amount", m[6].unit = "count", m[6].value = (double)d[8];
  m[7].metric = "flush_time", m[7].unit = "ms", m[7].value = (double)d[9];
  return proto_disk_counters(f, machine, ts, dev, m, 8);
}

/* ---- cpuidle states ---- */

/* One CpuIdleStateEntry (state 1, duration_us 2) of a cpu: a counter of the
 * time spent in that state on a cpu track "cpuidle<cpu>.<state>" whose
 * dimensions are the cpu and the state name ("" when absent). */
static int proto_cpuidle_entry(import_file *f, uint32_t machine, int64_t ts, uint32_t cpu,
                               proto_span msg) {
  proto_span state = proto_sys_string(msg, 1);
  uint64_t dur = proto_last_varint(msg, 2, NULL);
  char state_name[200], name[256];
  proto_sys_cstring(state, state_name, sizeof state_name);
  snprintf(name, sizeof name, "cpuidle%u.%s", cpu, state_name);
  uint32_t ucpu, track;
  int rc = sched_ucpu(f->ctx, machine, cpu, &ucpu);
  if (rc) return rc;
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.name = name;
  spec.type = "cpu_idle_state";
  spec.is_counter = 1;
  spec.machine = machine;
  spec.unit = "us";
  spec.cpu = ucpu;
  spec.cpu_number = cpu;
  spec.dim_key = "state";
  spec.dim_str = state_name;
  rc = model_track(f->ctx, &spec, &track);
  return rc ? rc : model_counter(f->ctx, track, ts, (double)dur, -1);
}

/* A CpuIdleState: cpu_id 1 (0 when absent), repeated cpuidle_state_entry 2. */
static int proto_cpuidle_state(import_file *f, uint32_t machine, int64_t ts, proto_span msg) {
  uint32_t cpu = (uint32_t)proto_last_varint(msg, 1, NULL);
  if (cpu >= SCHED_MAX_CPU) return WEFT_OK;
  proto_reader r;
  proto_field fl;
  int rc = WEFT_OK;
  proto_reader_init_span(&r, msg);
  while (!rc && proto_reader_next(&r, &fl) == 1)
    if (fl.number == 2 && fl.wire_type == PROTO_WIRE_LEN)
      rc = proto_cpuidle_entry(f, machine, ts, cpu, fl.span);
  return rc;
}

/* ---- gpufreq ---- */

/* gpufreq_mhz: every value on gpu 0's "gpufreq" track. */
static int proto_gpufreq(import_file *f, uint32_t machine, int64_t ts, const proto_field *fl) {
  if (fl->wire_type == PROTO_WIRE_VARINT)
    return gpu_counter(f->ctx, machine, 0, -1, "gpufreq", "gpu_frequency", "kHz", ts,
                       (double)fl->value);
  if (fl->wire_type != PROTO_WIRE_LEN) return WEFT_OK;
  proto_packed_iter it;
  uint64_t v;
  proto_packed_init(&it, fl->span);
  while (proto_packed_next_varint(&it, &v) == 1) {
    int rc = gpu_counter(f->ctx, machine, 0, -1, "gpufreq", "gpu_frequency", "kHz", ts,
                         (double)v);
    if (rc) return rc;
  }
  return WEFT_OK;
}

/* ---- dispatch ---- */

/* The SysStats fields in the order Perfetto reads them: each kind's
 * entries all before the next kind's, whatever their order on the wire. */
static const uint32_t proto_sys_stats_order[] = {1, 10, 11, 2, 3, 6, 8, 4, 5, 7, 12, 13, 14,
                                                 15, 16, 17};

/* Every field `number` of the message; *stop: the rest is not read. */
static int proto_sys_stats_kind(import_file *f, proto_sys_stats_state *s, uint32_t machine,
                                int64_t ts, proto_span msg, uint32_t number, int *stop) {
  proto_reader r;
  proto_field fl;
  uint32_t cpu = 0;
  int rc = WEFT_OK;
  proto_reader_init_span(&r, msg);
  while (!rc && !*stop && proto_reader_next(&r, &fl) == 1) {
    if (fl.number != number) continue;
    int len = fl.wire_type == PROTO_WIRE_LEN;
    switch (number) {
      case 1: case 2: if (len) rc = proto_sys_keyed(f, machine, ts, fl.span, number == 1); break;
      case 10: if (len) rc = proto_sys_devfreq(f, machine, ts, fl.span); break;
      case 11: rc = proto_sys_cpufreq(f, machine, ts, &fl, &cpu); break;
      case 3: if (len) rc = proto_cpu_times(f, machine, ts, fl.span); break;
      case 6: if (len) rc = proto_sys_irq(f, machine, ts, fl.span, "num_irq"); break;
      case 8: if (len) rc = proto_sys_irq(f, machine, ts, fl.span, "num_softirq"); break;
      case 4: rc = proto_sys_total(f, machine, ts, &fl, "num_forks"); break;
      case 5: rc = proto_sys_total(f, machine, ts, &fl, "num_irq_total"); break;
      case 7: rc = proto_sys_total(f, machine, ts, &fl, "num_softirq_total"); break;
      case 12: if (len) rc = proto_sys_buddy(f, s, machine, ts, fl.span); break;
      case 13: if (len) rc = proto_disk_stat(f, s, machine, ts, fl.span); break;
      case 14: if (len) rc = proto_sys_psi(f, machine, ts, fl.span, stop); break;
      case 15: if (len) rc = proto_thermal_zone(f, machine, ts, fl.span); break;
      case 16: if (len) rc = proto_cpuidle_state(f, machine, ts, fl.span); break;
      case 17: rc = proto_gpufreq(f, machine, ts, &fl); break;
      default: break;
    }
  }
  return rc;
}

int proto_sys_stats_parse(import_file *f, proto_sys_stats_state **state,
                          uint32_t machine, int64_t ts, proto_span msg) {
  proto_sys_stats_state *s = proto_sys_stats_get(state);
  if (!s) return WEFT_ENOMEM;
  int rc = WEFT_OK, stop = 0;
  size_t n = sizeof proto_sys_stats_order / sizeof *proto_sys_stats_order;
  for (size_t i = 0; !rc && !stop && i < n; i++)
    rc = proto_sys_stats_kind(f, s, machine, ts, msg, proto_sys_stats_order[i], &stop);
  return rc;
}

int proto_initial_display_state(import_file *f, uint32_t machine, int64_t ts,
                                 proto_span msg) {
  proto_field fl;
  if (proto_find_last(msg.data, msg.len, 1, &fl) != 1 || fl.wire_type != PROTO_WIRE_VARINT)
    return WEFT_OK;
  return model_android_screen_state(f->ctx, machine, ts, (double)(int32_t)(uint32_t)fl.value);
}
