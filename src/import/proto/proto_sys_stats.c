/* SysStats and InitialDisplayState counters. See proto_sys_stats.h. */
#include "import/proto/proto_sys_stats.h"

#include <stdio.h>

#include "model/android.h"
#include "model/context.h"
#include "model/model.h"
#include "model/sched.h"

typedef struct proto_disk_sample {
  uint32_t machine;
  char name[64];
  uint64_t v[10]; /* DiskStat fields 2..9 by number */
} proto_disk_sample;

struct proto_sys_stats_state {
  VEC(proto_disk_sample) disks;
};

void proto_sys_stats_free(proto_sys_stats_state *s) {
  if (!s) return;
  VEC_FREE(s->disks);
  base_free(s);
}

/* A counter on a machine-wide track (name, type); extra distinguishes
 * tracks of the same name (e.g. a gpu index). */
static int proto_sys_counter(trace_context *ctx, uint32_t machine, int64_t ts,
                             const char *name, const char *type, const char *unit,
                             uint64_t extra, int64_t dims, double value) {
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.name = name;
  spec.type = type;
  spec.is_counter = 1;
  spec.machine = machine;
  spec.unit = unit;
  spec.extra_key = extra;
  uint32_t track;
  int rc = model_track(ctx, &spec, &track);
  if (rc) return rc;
  model_track_set_arg_sets(ctx, track, dims, -1);
  return model_counter(ctx, track, ts, value, -1);
}

/* ---- cpu_stat ---- */

static int proto_cpu_times(import_file *f, uint32_t machine, int64_t ts, proto_span msg) {
  static const char *const names[] = {
      "cpu.times.user_ns", "cpu.times.user_nice_ns", "cpu.times.system_mode_ns",
      "cpu.times.idle_ns", "cpu.times.io_wait_ns", "cpu.times.irq_ns",
      "cpu.times.softirq_ns", "cpu.times.steal_ns"};
  uint64_t v[10] = {0};
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1)
    if (fl.wire_type == PROTO_WIRE_VARINT && fl.number >= 1 && fl.number <= 9)
      v[fl.number] = fl.value;
  if (v[1] >= SCHED_MAX_CPU) return WEFT_OK;
  kernel_scope scope = {machine, f->trace_id};
  for (int i = 0; i < 8; i++) {
    int rc = sched_cpu_counter(f->ctx, &scope, ts, (uint32_t)v[1], names[i], "cpu_times",
                               (double)v[i + 2]);
    if (rc) return rc;
  }
  return WEFT_OK;
}

/* ---- thermal zones ---- */

static int proto_thermal_zone(import_file *f, uint32_t machine, int64_t ts, proto_span msg) {
  proto_reader r;
  proto_field fl;
  proto_span type = {NULL, 0};
  uint64_t temp = 0;
  int has_temp = 0;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number == 2 && fl.wire_type == PROTO_WIRE_VARINT) { temp = fl.value; has_temp = 1; }
    else if (fl.number == 3 && fl.wire_type == PROTO_WIRE_LEN) type = fl.span;
  }
  if (!has_temp || !type.len || type.len >= 256) return WEFT_OK;
  char name[256];
  memcpy(name, type.data, type.len);
  name[type.len] = '\0';
  return proto_sys_counter(f->ctx, machine, ts, name, "thermal_temperature", NULL, 0, -1,
                           (double)temp);
}

/* ---- disk stats ---- */

static proto_disk_sample *proto_disk_find(proto_sys_stats_state *s, uint32_t machine,
                                          const char *name) {
  for (size_t i = 0; i < s->disks.len; i++)
    if (s->disks.data[i].machine == machine && strcmp(s->disks.data[i].name, name) == 0)
      return &s->disks.data[i];
  return NULL;
}

typedef struct proto_disk_metric {
  const char *metric, *unit;
  double value;
} proto_disk_metric;

static int proto_disk_counters(import_file *f, uint32_t machine, int64_t ts,
                               const char *dev, const proto_disk_metric *m, size_t n) {
  trace_context *ctx = f->ctx;
  int64_t dims = -1;
  int rc = model_arg_string(ctx, "device_name", 11, dev, strlen(dev), MODEL_ARG_STRING);
  if (!rc) rc = model_args_commit(ctx, &dims);
  for (size_t i = 0; !rc && i < n; i++) {
    char name[128];
    snprintf(name, sizeof name, "diskstat.[%s].%s", dev, m[i].metric);
    rc = proto_sys_counter(ctx, machine, ts, name, "diskstat", m[i].unit, 0, dims, m[i].value);
  }
  return rc;
}

/* Amount (MB) and throughput (MB/s) of a sector count and time delta. */
static void proto_disk_rate(uint64_t sectors, uint64_t ms, double *mb, double *mbps) {
  *mb = (double)sectors * 512.0 / (1024.0 * 1024.0);
  *mbps = ms ? *mb / ((double)ms / 1000.0) : 0.0;
}

static int proto_disk_stat(import_file *f, proto_sys_stats_state *s, uint32_t machine,
                           int64_t ts, proto_span msg) {
  proto_disk_sample cur;
  memset(&cur, 0, sizeof cur);
  cur.machine = machine;
  proto_reader r;
  proto_field fl;
  int has_name = 0;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number == 1 && fl.wire_type == PROTO_WIRE_LEN && fl.span.len < sizeof cur.name) {
      memcpy(cur.name, fl.span.data, fl.span.len);
      cur.name[fl.span.len] = '\0';
      has_name = fl.span.len > 0 && !memchr(cur.name, '\0', fl.span.len);
    } else if (fl.number >= 2 && fl.number <= 9 && fl.wire_type == PROTO_WIRE_VARINT) {
      cur.v[fl.number] = fl.value;
    }
  }
  if (!has_name) return WEFT_OK;
  proto_disk_sample *prev = proto_disk_find(s, machine, cur.name);
  if (!prev) {
    if (s->disks.len >= PROTO_SYS_STATS_MAX_DISKS) return WEFT_OK;
    return VEC_PUSH(s->disks, cur) ? WEFT_ENOMEM : WEFT_OK;
  }
  uint64_t d[10];
  for (int i = 2; i <= 9; i++) d[i] = cur.v[i] >= prev->v[i] ? cur.v[i] - prev->v[i] : 0;
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
  return proto_disk_counters(f, machine, ts, cur.name, m, 8);
}

/* ---- cpuidle states ---- */

/* One CpuIdleStateEntry (state 1, duration_us 2) of a cpu: a counter of the
 * time spent in that state on a cpu track "cpuidle<cpu>.<state>" whose
 * dimensions are the cpu and the state name. */
static int proto_cpuidle_entry(import_file *f, uint32_t machine, int64_t ts, uint32_t cpu,
                               proto_span msg) {
  proto_field state, dur;
  if (proto_find_last(msg.data, msg.len, 1, &state) != 1 || state.wire_type != PROTO_WIRE_LEN ||
      state.span.len >= 200)
    return WEFT_OK;
  if (proto_find_last(msg.data, msg.len, 2, &dur) != 1 || dur.wire_type != PROTO_WIRE_VARINT)
    return WEFT_OK;
  char state_name[200], name[256];
  memcpy(state_name, state.span.data, state.span.len);
  state_name[state.span.len] = '\0';
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
  return rc ? rc : model_counter(f->ctx, track, ts, (double)dur.value, -1);
}

/* A CpuIdleState: cpu_id 1, repeated cpuidle_state_entry 2. */
static int proto_cpuidle_state(import_file *f, uint32_t machine, int64_t ts, proto_span msg) {
  proto_field cpu;
  if (proto_find_last(msg.data, msg.len, 1, &cpu) != 1 || cpu.wire_type != PROTO_WIRE_VARINT ||
      cpu.value >= SCHED_MAX_CPU)
    return WEFT_OK;
  proto_reader r;
  proto_field fl;
  int rc = WEFT_OK;
  proto_reader_init_span(&r, msg);
  while (!rc && proto_reader_next(&r, &fl) == 1)
    if (fl.number == 2 && fl.wire_type == PROTO_WIRE_LEN)
      rc = proto_cpuidle_entry(f, machine, ts, (uint32_t)cpu.value, fl.span);
  return rc;
}

/* ---- dispatch ---- */

static int proto_gpufreq(import_file *f, uint32_t machine, int64_t ts,
                         const proto_field *fl, uint64_t *index) {
  if (fl->wire_type == PROTO_WIRE_VARINT)
    return proto_sys_counter(f->ctx, machine, ts, "gpufreq", "gpu_frequency", NULL,
                             (*index)++, -1, (double)fl->value);
  if (fl->wire_type != PROTO_WIRE_LEN) return WEFT_OK;
  proto_packed_iter it;
  uint64_t v;
  proto_packed_init(&it, fl->span);
  while (proto_packed_next_varint(&it, &v) == 1) {
    int rc = proto_sys_counter(f->ctx, machine, ts, "gpufreq", "gpu_frequency", NULL,
                               (*index)++, -1, (double)v);
    if (rc) return rc;
  }
  return WEFT_OK;
}

int proto_sys_stats_parse(import_file *f, proto_sys_stats_state **state,
                          uint32_t machine, int64_t ts, proto_span msg) {
  if (!*state && !(*state = base_calloc(1, sizeof **state))) return WEFT_ENOMEM;
  proto_reader r;
  proto_field fl;
  uint64_t gpu = 0;
  int rc = WEFT_OK;
  proto_reader_init_span(&r, msg);
  while (!rc && proto_reader_next(&r, &fl) == 1) {
    int is_len = fl.wire_type == PROTO_WIRE_LEN;
    switch (fl.number) {
      case 3: if (is_len) rc = proto_cpu_times(f, machine, ts, fl.span); break;
      case 13: if (is_len) rc = proto_disk_stat(f, *state, machine, ts, fl.span); break;
      case 15: if (is_len) rc = proto_thermal_zone(f, machine, ts, fl.span); break;
      case 16: if (is_len) rc = proto_cpuidle_state(f, machine, ts, fl.span); break;
      case 17: rc = proto_gpufreq(f, machine, ts, &fl, &gpu); break;
      default: break;
    }
  }
  return rc;
}

int proto_initial_display_state(import_file *f, uint32_t machine, int64_t ts,
                                 proto_span msg) {
  proto_field fl;
  if (proto_find_last(msg.data, msg.len, 1, &fl) != 1 || fl.wire_type != PROTO_WIRE_VARINT)
    return WEFT_OK;
  return model_android_screen_state(f->ctx, machine, ts, (double)(int32_t)(uint32_t)fl.value);
}
