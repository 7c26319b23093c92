/* Battery counters, power rails and energy breakdowns. See proto_power.h. */
#include "import/proto/proto_power.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/proto/proto_fields.h"
#include "model/import_log.h"
#include "model/context.h"
#include "model/model.h"

/* BatteryCounters */
#define PROTO_BATT_CHARGE_UAH 1
#define PROTO_BATT_CAPACITY_PCT 2
#define PROTO_BATT_CURRENT_UA 3
#define PROTO_BATT_CURRENT_AVG_UA 4
#define PROTO_BATT_NAME 5
#define PROTO_BATT_ENERGY_UWH 6
#define PROTO_BATT_VOLTAGE_UV 7
/* PowerRails, its RailDescriptor and EnergyData */
#define PROTO_RAILS_DESCRIPTOR 1
#define PROTO_RAILS_ENERGY_DATA 2
#define PROTO_RAILS_SESSION_UUID 3
#define PROTO_RAIL_INDEX 1
#define PROTO_RAIL_NAME 2
#define PROTO_RAIL_SUBSYS 3
#define PROTO_ENERGY_INDEX 1
#define PROTO_ENERGY_TIMESTAMP_MS 2
#define PROTO_ENERGY_VALUE 3
/* AndroidEnergyEstimationBreakdown, its descriptor and per-uid entries */
#define PROTO_BREAKDOWN_DESCRIPTOR 1
#define PROTO_BREAKDOWN_CONSUMER_ID 2
#define PROTO_BREAKDOWN_ENERGY_UWS 3
#define PROTO_BREAKDOWN_PER_UID 4
#define PROTO_CONSUMERS 1
#define PROTO_CONSUMER_ID 1
#define PROTO_CONSUMER_ORDINAL 2
#define PROTO_CONSUMER_TYPE 3
#define PROTO_CONSUMER_NAME 4
#define PROTO_UID_UID 1
#define PROTO_UID_ENERGY_UWS 2

typedef struct proto_power_consumer {
  string_id name, type;
  int64_t ordinal;
} proto_power_consumer;

struct proto_power_state {
  base_map rails;     /* hash(machine, session, index) -> track id */
  base_map consumers; /* consumer id -> index into consumer_list */
  VEC(proto_power_consumer) consumer_list;
};

void proto_power_free(proto_power_state *s) {
  if (!s) return;
  base_map_free(&s->rails);
  base_map_free(&s->consumers);
  VEC_FREE(s->consumer_list);
  base_free(s);
}

int proto_power_wants_field(uint32_t number) {
  return number == PROTO_TRACE_PACKET_BATTERY || number == PROTO_TRACE_PACKET_POWER_RAILS ||
         number == PROTO_TRACE_PACKET_ENERGY_ESTIMATION_BREAKDOWN;
}

/* ---- tracks with dimension and source args ---- */

typedef struct proto_power_arg {
  const char *key;
  int is_str;
  const char *str; /* a string arg: NULL for a NULL string */
  size_t str_len;
  int64_t value; /* an int arg */
} proto_power_arg;

#define PROTO_POWER_STR(k, s, n) {(k), 1, (s), (n), 0}
#define PROTO_POWER_INT(k, v) {(k), 0, NULL, 0, (v)}

static int proto_power_arg_add(trace_context *ctx, const proto_power_arg *a) {
  if (!a->is_str) return model_arg_int(ctx, a->key, strlen(a->key), MODEL_ARG_INT, a->value);
  return model_arg_string(ctx, a->key, strlen(a->key), a->str, a->str_len, MODEL_ARG_STRING);
}

static int proto_power_args(trace_context *ctx, const proto_power_arg *a, size_t n,
                            int64_t *set) {
  int rc = WEFT_OK;
  for (size_t i = 0; !rc && i < n; i++) rc = proto_power_arg_add(ctx, &a[i]);
  if (rc) {
    model_args_discard(ctx);
    return rc;
  }
  return model_args_commit(ctx, set);
}

/* A span's bytes as a string argument: "" when absent. */
static const char *proto_power_text(proto_span s) {
  return s.data ? (const char *)s.data : "";
}

/* The counter track of `spec`; a new one gets the dimension and source
 * args given. */
static int proto_power_track(trace_context *ctx, const model_track_spec *spec,
                             const proto_power_arg *dims, size_t n_dims,
                             const proto_power_arg *src, size_t n_src, uint32_t *track) {
  size_t before = ctx_table(ctx, TABLE_TRACK)->row_count;
  int rc = model_track(ctx, spec, track);
  if (rc || *track < before) return rc;
  int64_t d = -1, s = -1;
  rc = proto_power_args(ctx, dims, n_dims, &d);
  if (!rc && n_src) rc = proto_power_args(ctx, src, n_src, &s);
  if (!rc) model_track_set_arg_sets(ctx, *track, d, s);
  return rc;
}

/* ---- battery ---- */

typedef struct proto_battery {
  proto_span name;
  int64_t charge, current, current_avg, energy, voltage;
  double capacity;
  int has_charge, has_capacity, has_current, has_current_avg, has_energy, has_voltage;
} proto_battery;

static void proto_battery_read(proto_span msg, proto_battery *b) {
  proto_reader r;
  proto_field fl;
  memset(b, 0, sizeof *b);
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    int v = fl.wire_type == PROTO_WIRE_VARINT;
    switch (fl.number) {
      case PROTO_BATT_CHARGE_UAH: if (v) { b->charge = proto_field_int64(&fl); b->has_charge = 1; } break;
      case PROTO_BATT_CAPACITY_PCT:
        if (fl.wire_type == PROTO_WIRE_FIXED32) { b->capacity = proto_field_float(&fl); b->has_capacity = 1; }
        break;
      case PROTO_BATT_CURRENT_UA: if (v) { b->current = proto_field_int64(&fl); b->has_current = 1; } break;
      case PROTO_BATT_CURRENT_AVG_UA:
        if (v) { b->current_avg = proto_field_int64(&fl); b->has_current_avg = 1; }
        break;
      case PROTO_BATT_NAME: if (fl.wire_type == PROTO_WIRE_LEN) b->name = fl.span; break;
      case PROTO_BATT_ENERGY_UWH: if (v) { b->energy = proto_field_int64(&fl); b->has_energy = 1; } break;
      case PROTO_BATT_VOLTAGE_UV: if (v) { b->voltage = proto_field_int64(&fl); b->has_voltage = 1; } break;
      default: break;
    }
  }
}

/* A value on "batt.<counter>" or "batt.<name>.<counter>". */
static int proto_battery_counter(trace_context *ctx, uint32_t machine, int64_t ts,
                                 proto_span name, const char *counter, double value) {
  char track_name[320];
  if (name.len)
    snprintf(track_name, sizeof track_name, "batt.%.*s.%s", (int)(name.len > 256 ? 256 : name.len),
             proto_power_text(name), counter);
  else
    snprintf(track_name, sizeof track_name, "batt.%s", counter);
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.name = track_name;
  spec.type = "battery_counter";
  spec.is_counter = 1;
  spec.machine = machine;
  /* battery_name is a dimension even when absent (a NULL string) */
  proto_power_arg dims[2] = {PROTO_POWER_STR("battery_name", (const char *)name.data, name.len),
                             PROTO_POWER_STR("counter_name", counter, strlen(counter))};
  uint32_t track;
  int rc = proto_power_track(ctx, &spec, dims, 2, NULL, 0, &track);
  return rc ? rc : model_counter(ctx, track, ts, value, -1);
}

static int proto_battery_parse(trace_context *ctx, uint32_t machine, int64_t ts, proto_span msg) {
  proto_battery b;
  proto_battery_read(msg, &b);
  int rc = WEFT_OK;
  if (b.has_charge)
    rc = proto_battery_counter(ctx, machine, ts, b.name, "charge_uah", (double)b.charge);
  else if (b.has_energy && b.has_voltage && b.voltage > 0 && b.energy <= INT64_MAX / 1000000 &&
           b.energy >= INT64_MIN / 1000000)
    rc = proto_battery_counter(ctx, machine, ts, b.name, "charge_uah",
                               (double)(b.energy * 1000000 / b.voltage));
  if (!rc && b.has_capacity)
    rc = proto_battery_counter(ctx, machine, ts, b.name, "capacity_pct", b.capacity);
  if (!rc && b.has_current)
    rc = proto_battery_counter(ctx, machine, ts, b.name, "current_ua", (double)b.current);
  if (!rc && b.has_current_avg)
    rc = proto_battery_counter(ctx, machine, ts, b.name, "current.avg_ua", (double)b.current_avg);
  if (!rc && b.has_voltage)
    rc = proto_battery_counter(ctx, machine, ts, b.name, "voltage_uv", (double)b.voltage);
  if (!rc && b.has_current && b.has_voltage) {
    /* current * voltage / 10^9 in 64-bit integers (a product beyond them
     * wraps), as a magnitude (current < 0 while discharging) */
    int64_t product = (int64_t)((uint64_t)b.current * (uint64_t)b.voltage);
    rc = proto_battery_counter(ctx, machine, ts, b.name, "power_mw",
                               (double)llabs(product / 1000000000));
  }
  return rc;
}

/* ---- power rails ---- */

/* Well-known rails: a raw name ending in `suffix` is "power.rails.<name>"
 * (the first match in this order). */
static const struct { const char *suffix, *name; } proto_rail_names[] = {
    {"M_VDD_CPUCL0", "cpu.little"},       {"M_VDD_CPUCL0_M", "cpu.little.mem"},
    {"M_VDD_CPUCL1", "cpu.mid"},          {"M_VDD_CPUCL1_M", "cpu.mid.mem"},
    {"M_VDD_CPUCL2", "cpu.big"},          {"M_VDD_INT", "system.fabric"},
    {"M_VDD_TPU", "tpu"},                 {"VSYS_PWR_DISP", "display"},
    {"VSYS_PWR_DISPLAY", "display"},      {"M_DISP", "ldo.main.a.display"},
    {"VSYS_PWR_MODEM", "modem"},          {"M_VDD_MIF", "memory.interface"},
    {"VSYS_PWR_WLAN_BT", "wifi.bt"},      {"VSYS_PWR_MMWAVE", "mmwave"},
    {"S_VDD_AOC_RET", "aoc.memory"},      {"S_VDD_AOC", "aoc.logic"},
    {"S_VDDQ_MEM", "ddr.a"},              {"S_VDD2L", "ddr.b"},
    {"S_VDD2L_MEM", "ddr.b"},             {"S_VDD2H_MEM", "ddr.c"},
    {"S_VDD_G3D", "gpu"},                 {"S_VDD_G3D_L2", "gpu.l2"},
    {"S_GNSS_CORE", "gps"},               {"VSYS_PWR_RFFE", "radio.frontend"},
    {"VSYS_PWR_CAMERA", "camera"},        {"S_VDD_CAM", "multimedia"},
    {"S_UDFPS", "udfps"},                 {"S_PLL_MIPI_UFS", "ufs"},
    {"M_LLDO1", "ldo.main.a"},            {"M_LLDO2", "ldo.main.b"},
    {"S_LLDO1", "ldo.sub"},
};

static const char *proto_rail_friendly_name(proto_span raw) {
  for (size_t i = 0; i < sizeof proto_rail_names / sizeof *proto_rail_names; i++) {
    size_t n = strlen(proto_rail_names[i].suffix);
    if (raw.len >= n && memcmp(raw.data + raw.len - n, proto_rail_names[i].suffix, n) == 0)
      return proto_rail_names[i].name;
  }
  return NULL;
}

static uint64_t proto_rail_key(uint32_t machine, uint64_t session, int64_t index) {
  uint64_t k[3] = {machine, session, (uint64_t)index};
  return base_hash_bytes(k, sizeof k);
}

static int proto_rail_descriptor(trace_context *ctx, proto_power_state *st, uint32_t machine,
                                 uint64_t session, proto_span msg) {
  int64_t index = 0;
  proto_span name = {NULL, 0}, subsys = {NULL, 0};
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number == PROTO_RAIL_INDEX && fl.wire_type == PROTO_WIRE_VARINT)
      index = (int64_t)(uint32_t)fl.value;
    if (fl.number == PROTO_RAIL_NAME && fl.wire_type == PROTO_WIRE_LEN) name = fl.span;
    if (fl.number == PROTO_RAIL_SUBSYS && fl.wire_type == PROTO_WIRE_LEN) subsys = fl.span;
  }
  if (index > PROTO_POWER_MAX_RAIL_INDEX) return WEFT_OK; /* ignored */
  char track_name[320];
  int raw_len = (int)(name.len > 256 ? 256 : name.len);
  const char *friendly = proto_rail_friendly_name(name);
  if (friendly) snprintf(track_name, sizeof track_name, "power.rails.%s", friendly);
  else snprintf(track_name, sizeof track_name, "power.%.*s_uws", raw_len, proto_power_text(name));
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.name = track_name;
  spec.type = "power_rails";
  spec.is_counter = 1;
  spec.machine = machine;
  spec.extra_key = base_hash_bytes(name.data, name.len) ^ (session * 0x9e3779b97f4a7c15ULL);
  proto_power_arg dims[2] = {PROTO_POWER_STR("name", proto_power_text(name), name.len),
                             PROTO_POWER_INT("session_uuid", (int64_t)session)};
  proto_power_arg src[2] = {PROTO_POWER_STR("raw_name", proto_power_text(name), name.len),
                            PROTO_POWER_STR("subsystem_name", proto_power_text(subsys),
                                            subsys.len)};
  uint32_t track;
  int rc = proto_power_track(ctx, &spec, dims, 2, src, 2, &track);
  if (rc) return rc;
  uint64_t *slot;
  if (base_map_insert(&st->rails, proto_rail_key(machine, session, index), track, &slot) < 0)
    return WEFT_ENOMEM;
  *slot = track;
  return WEFT_OK;
}

/* The packet's own timestamp field (0 if none). */
static int64_t proto_packet_raw_ts(proto_span packet, int *has) {
  proto_field fl;
  *has = proto_find_last(packet.data, packet.len, PROTO_TRACE_PACKET_TIMESTAMP, &fl) == 1 &&
         fl.wire_type == PROTO_WIRE_VARINT;
  return *has ? (int64_t)fl.value : 0;
}

/* An energy sample: at timestamp_ms (on the packet's clock: shifted as the
 * packet's timestamp was) or else at the packet's time. */
static int proto_rail_energy(import_file *f, proto_power_state *st, uint32_t machine,
                             uint64_t session, int64_t ts, int64_t shift, proto_span msg) {
  int64_t index = 0, energy = 0, ms = 0;
  int has_ms = 0;
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.wire_type != PROTO_WIRE_VARINT) continue;
    if (fl.number == PROTO_ENERGY_INDEX) index = (int64_t)(uint32_t)fl.value;
    if (fl.number == PROTO_ENERGY_VALUE) energy = (int64_t)fl.value;
    if (fl.number == PROTO_ENERGY_TIMESTAMP_MS) {
      ms = (int64_t)fl.value;
      has_ms = 1;
    }
  }
  uint64_t *track = base_map_find(&st->rails, proto_rail_key(machine, session, index));
  if (!track) return import_stat(f, stat_power_rail_unknown_index, 1);
  int64_t at = ts;
  if (has_ms) /* in 64-bit integers: a time beyond them wraps */
    at = (int64_t)((uint64_t)ms * 1000000u + (uint64_t)shift);
  if (at < 0) return import_stat(f, stat_trace_sorter_negative_timestamp_dropped, 1);
  int64_t args = -1;
  int rc = model_arg_int(f->ctx, "packet_ts", 9, MODEL_ARG_UINT, ts);
  if (!rc) rc = model_args_commit(f->ctx, &args);
  return rc ? rc : model_counter(f->ctx, (uint32_t)*track, at, (double)energy, args);
}

static int proto_power_rails(import_file *f, proto_power_state *st, uint32_t machine,
                             int64_t ts, proto_span packet, proto_span msg) {
  uint64_t session = 0;
  int has_energy = 0, rc = WEFT_OK;
  proto_field fl;
  if (proto_find_last(msg.data, msg.len, PROTO_RAILS_SESSION_UUID, &fl) == 1 &&
      fl.wire_type == PROTO_WIRE_VARINT)
    session = fl.value;
  proto_reader r;
  int has_raw;
  int64_t raw = proto_packet_raw_ts(packet, &has_raw);
  int64_t shift = has_raw ? ts - raw : 0;
  proto_reader_init_span(&r, msg);
  while (!rc && proto_reader_next(&r, &fl) == 1) {
    if (fl.number != PROTO_RAILS_ENERGY_DATA || fl.wire_type != PROTO_WIRE_LEN) continue;
    has_energy = 1;
    rc = proto_rail_energy(f, st, machine, session, ts, shift, fl.span);
  }
  if (rc || has_energy) return rc;
  /* counted, and logged at the packet's time (an untimed packet's: the
   * latest its file reached), as Perfetto does */
  rc = import_stat(f, stat_power_rail_empty_packet, 1);
  return rc ? rc : model_import_log(f->ctx, f->trace_id, ts, stat_power_rail_empty_packet, -1);
}

/* ---- energy estimation breakdown ---- */

static int proto_energy_consumer(import_file *f, proto_power_state *st, proto_span msg) {
  int64_t id = 0, ordinal = 0;
  int has_id = 0;
  proto_span type = {NULL, 0}, name = {NULL, 0};
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    int v = fl.wire_type == PROTO_WIRE_VARINT, len = fl.wire_type == PROTO_WIRE_LEN;
    if (fl.number == PROTO_CONSUMER_ID && v) { id = proto_field_int32(&fl); has_id = 1; }
    if (fl.number == PROTO_CONSUMER_ORDINAL && v) ordinal = proto_field_int32(&fl);
    if (fl.number == PROTO_CONSUMER_TYPE && len) type = fl.span;
    if (fl.number == PROTO_CONSUMER_NAME && len) name = fl.span;
  }
  if (!has_id) return import_stat(f, stat_energy_descriptor_invalid, 1);
  uint64_t key = (uint64_t)id;
  if (base_map_find(&st->consumers, key)) return WEFT_OK; /* the first one stays */
  proto_power_consumer c = {STRING_NULL, STRING_NULL, ordinal};
  int rc = ctx_intern(f->ctx, (const char *)name.data, name.len, &c.name);
  if (!rc) rc = ctx_intern(f->ctx, (const char *)type.data, type.len, &c.type);
  if (!rc && VEC_PUSH(st->consumer_list, c)) rc = WEFT_ENOMEM;
  if (!rc && base_map_insert(&st->consumers, key, st->consumer_list.len - 1, NULL) < 0)
    rc = WEFT_ENOMEM;
  return rc;
}

static int proto_energy_descriptor(import_file *f, proto_power_state *st, proto_span msg) {
  proto_reader r;
  proto_field fl;
  int rc = WEFT_OK;
  proto_reader_init_span(&r, msg);
  while (!rc && proto_reader_next(&r, &fl) == 1)
    if (fl.number == PROTO_CONSUMERS && fl.wire_type == PROTO_WIRE_LEN)
      rc = proto_energy_consumer(f, st, fl.span);
  return rc;
}

static int proto_energy_uid(import_file *f, uint32_t machine, int64_t ts, int64_t consumer,
                            const proto_power_consumer *c, proto_span msg) {
  int64_t uid = 0, energy = 0;
  int has_uid = 0, has_energy = 0;
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.wire_type != PROTO_WIRE_VARINT) continue;
    if (fl.number == PROTO_UID_UID) { uid = proto_field_int32(&fl); has_uid = 1; }
    if (fl.number == PROTO_UID_ENERGY_UWS) { energy = proto_field_int64(&fl); has_energy = 1; }
  }
  if (!has_uid || !has_energy) return import_stat(f, stat_energy_uid_breakdown_missing_values, 1);
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.name = base_string_pool_get(&f->ctx->strings, c->name);
  spec.type = "android_energy_estimation_breakdown_per_uid";
  spec.is_counter = 1;
  spec.machine = machine;
  spec.extra_key = (uint64_t)consumer << 32 | (uint32_t)uid;
  proto_power_arg dims[2] = {PROTO_POWER_INT("energy_consumer_id", consumer),
                             PROTO_POWER_INT("uid", (int64_t)(uint32_t)uid)};
  uint32_t track;
  int rc = proto_power_track(f->ctx, &spec, dims, 2, NULL, 0, &track);
  return rc ? rc : model_counter(f->ctx, track, ts, (double)energy, -1);
}

static int proto_energy_breakdown(import_file *f, proto_power_state *st, uint32_t machine,
                                  int64_t ts, proto_span msg) {
  proto_field fl;
  if (proto_find_last(msg.data, msg.len, PROTO_BREAKDOWN_DESCRIPTOR, &fl) == 1 &&
      fl.wire_type == PROTO_WIRE_LEN)
    return WEFT_OK; /* a descriptor packet is only that (read at tokenize time) */
  int64_t consumer = 0, energy = 0;
  int has_consumer = 0, has_energy = 0;
  proto_reader r;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.wire_type != PROTO_WIRE_VARINT) continue;
    if (fl.number == PROTO_BREAKDOWN_CONSUMER_ID) { consumer = proto_field_int32(&fl); has_consumer = 1; }
    if (fl.number == PROTO_BREAKDOWN_ENERGY_UWS) { energy = proto_field_int64(&fl); has_energy = 1; }
  }
  uint64_t *idx = has_consumer ? base_map_find(&st->consumers, (uint64_t)consumer) : NULL;
  if (!has_energy || !idx) return import_stat(f, stat_energy_breakdown_missing_values, 1);
  proto_power_consumer c = st->consumer_list.data[*idx];
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.name = base_string_pool_get(&f->ctx->strings, c.name);
  spec.type = "android_energy_estimation_breakdown";
  spec.is_counter = 1;
  spec.machine = machine;
  spec.extra_key = (uint64_t)consumer;
  const char *type = base_string_pool_get(&f->ctx->strings, c.type);
  proto_power_arg dims[1] = {PROTO_POWER_INT("energy_consumer_id", consumer)};
  proto_power_arg src[2] = {
      PROTO_POWER_STR("consumer_type", type, base_string_pool_len(&f->ctx->strings, c.type)),
      PROTO_POWER_INT("ordinal", c.ordinal)};
  uint32_t track;
  int rc = proto_power_track(f->ctx, &spec, dims, 1, src, 2, &track);
  if (!rc) rc = model_counter(f->ctx, track, ts, (double)energy, -1);
  proto_reader_init_span(&r, msg);
  while (!rc && proto_reader_next(&r, &fl) == 1)
    if (fl.number == PROTO_BREAKDOWN_PER_UID && fl.wire_type == PROTO_WIRE_LEN)
      rc = proto_energy_uid(f, machine, ts, consumer, &c, fl.span);
  return rc;
}

static int proto_power_state_get(proto_power_state **state) {
  if (!*state) {
    *state = base_calloc(1, sizeof **state);
    if (!*state) return WEFT_ENOMEM;
  }
  return WEFT_OK;
}

static int proto_power_rail_descriptors(import_file *f, proto_power_state *st,
                                        uint32_t machine, proto_span msg) {
  uint64_t session = 0;
  proto_field fl;
  if (proto_find_last(msg.data, msg.len, PROTO_RAILS_SESSION_UUID, &fl) == 1 &&
      fl.wire_type == PROTO_WIRE_VARINT)
    session = fl.value;
  proto_reader r;
  int rc = WEFT_OK;
  proto_reader_init_span(&r, msg);
  while (!rc && proto_reader_next(&r, &fl) == 1)
    if (fl.number == PROTO_RAILS_DESCRIPTOR && fl.wire_type == PROTO_WIRE_LEN)
      rc = proto_rail_descriptor(f->ctx, st, machine, session, fl.span);
  return rc;
}

int proto_power_tokenize(import_file *f, proto_power_state **state, uint32_t machine,
                         proto_span packet) {
  proto_reader r;
  proto_field fl;
  int rc = WEFT_OK;
  proto_reader_init_span(&r, packet);
  while (!rc && proto_reader_next(&r, &fl) == 1) {
    if (fl.wire_type != PROTO_WIRE_LEN || !proto_power_wants_field(fl.number)) continue;
    rc = proto_power_state_get(state);
    if (rc) break;
    if (fl.number == PROTO_TRACE_PACKET_POWER_RAILS)
      rc = proto_power_rail_descriptors(f, *state, machine, fl.span);
    proto_field d;
    if (fl.number == PROTO_TRACE_PACKET_ENERGY_ESTIMATION_BREAKDOWN &&
        proto_find_last(fl.span.data, fl.span.len, PROTO_BREAKDOWN_DESCRIPTOR, &d) == 1 &&
        d.wire_type == PROTO_WIRE_LEN)
      rc = proto_energy_descriptor(f, *state, d.span);
  }
  return rc;
}

int proto_power_parse(import_file *f, proto_power_state **state, uint32_t machine,
                      int64_t ts, proto_span packet, const proto_field *field) {
  if (field->wire_type != PROTO_WIRE_LEN) return WEFT_OK;
  int rc = proto_power_state_get(state);
  if (rc) return rc;
  switch (field->number) {
    case PROTO_TRACE_PACKET_BATTERY: return proto_battery_parse(f->ctx, machine, ts, field->span);
    case PROTO_TRACE_PACKET_POWER_RAILS:
      return proto_power_rails(f, *state, machine, ts, packet, field->span);
    case PROTO_TRACE_PACKET_ENERGY_ESTIMATION_BREAKDOWN:
      return proto_energy_breakdown(f, *state, machine, ts, field->span);
    default: return WEFT_OK;
  }
}
