/* Kernel device and memory events. See kdev.h. */
#include "model/kdev.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "model/context.h"
#include "model/model.h"

typedef struct kdev_migration {
  uint64_t migrated, reclaimed, mapped;
} kdev_migration;

struct kdev_state {
  base_map migration_by_thread; /* hash(machine, tid) -> index + 1 into `migrations` */
  VEC(kdev_migration) migrations;
};

void kdev_state_free(kdev_state *k) {
  if (!k) return;
  base_map_free(&k->migration_by_thread);
  VEC_FREE(k->migrations);
  base_free(k);
}

static int kdev_get(trace_context *ctx, kdev_state **out) {
  if (!ctx->model.kdev) {
    ctx->model.kdev = base_calloc(1, sizeof(kdev_state));
    if (!ctx->model.kdev) return WEFT_ENOMEM;
  }
  *out = ctx->model.kdev;
  return WEFT_OK;
}

static int kdev_counter(trace_context *ctx, const model_track_spec *spec, int64_t ts,
                        double value, int64_t args) {
  uint32_t track;
  int rc = model_track(ctx, spec, &track);
  return rc ? rc : model_counter(ctx, track, ts, value, args);
}

/* ---- UFS ---- */

static const struct {
  uint8_t opcode;
  const char *name;
} kdev_scsi_ops[] = {
    {0, "TEST UNIT READY"},     {3, "REQUEST SENSE"},
    {4, "FORMAT UNIT"},         {8, "READ (6)"},
    {10, "WRITE (6)"},          {18, "INQUIRY"},
    {27, "START STOP UNIT"},    {29, "SEND DIAGNOSTIC"},
    {37, "READ CAPACITY (10)"}, {40, "READ (10)"},
    {42, "WRITE (10)"},         {47, "VERIFY"},
    {52, "PRE-FETCH (10)"},     {53, "SYNCHRONIZE CACHE (10)"},
    {59, "WRITE BUFFER"},       {60, "READ BUFFER"},
    {66, "UNMAP"},              {85, "MODE SELECT (10)"},
    {90, "MODE SENSE (10)"},    {136, "READ (16)"},
    {138, "WRITE (16)"},        {144, "PRE-FETCH (16)"},
    {145, "SYNCHRONIZE CACHE (16)"}, {158, "READ CAPACITY (16)"},
    {160, "REPORT LUNS"},       {162, "SECURITY PROTOCOL IN"},
    {181, "SECURITY PROTOCOL OUT"}};

static const char *kdev_scsi_name(uint64_t opcode) {
  for (size_t i = 0; i < sizeof kdev_scsi_ops / sizeof *kdev_scsi_ops; i++)
    if (kdev_scsi_ops[i].opcode == opcode) return kdev_scsi_ops[i].name;
  return "UNDEFINED";
}

static int kdev_ufs_tag(trace_context *ctx, const kernel_scope *s, const kdev_ufs_command_event *e,
                        int64_t ts) {
  char track_name[40];
  snprintf(track_name, sizeof track_name, "io.ufs.command.tag[%03" PRIu32 "]", e->tag);
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.name = track_name;
  spec.type = "ufs_command_tag";
  spec.machine = s->machine;
  spec.extra_key = e->tag;
  spec.dim_key = "ufs_tag";
  spec.dim_int = e->tag;
  uint32_t track, slice;
  int64_t ended;
  int rc = model_track(ctx, &spec, &track);
  if (rc || e->str_t != 0) return rc ? rc : model_slice_end(ctx, track, ts, &ended);
  char name[64];
  const char *op = kdev_scsi_name(e->opcode);
  if (e->group_id > 0)
    snprintf(name, sizeof name, "%s (GID=0x%" PRIx32 ")", op, (uint32_t)e->group_id);
  else
    snprintf(name, sizeof name, "%s", op);
  string_id name_id;
  rc = ctx_intern(ctx, name, strlen(name), &name_id);
  return rc ? rc : model_slice_begin(ctx, track, ts, STRING_NULL, name_id, -1, &slice);
}

int kdev_ufs_command(trace_context *ctx, const kernel_scope *s, int64_t ts,
                     const kdev_ufs_command_event *e) {
  int busy = e->doorbell ? __builtin_popcountll(e->doorbell) : e->str_t == 1 ? 0 : 1;
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.name = "io.ufs.command.count";
  spec.type = "ufs_command_count";
  spec.is_counter = 1;
  spec.machine = s->machine;
  int rc = kdev_counter(ctx, &spec, ts, (double)busy, -1);
  return rc ? rc : kdev_ufs_tag(ctx, s, e, ts);
}

int kdev_ufs_clk_gating(trace_context *ctx, const kernel_scope *s, int64_t ts, int64_t state) {
  int value = state == 1 ? 3 : state == 2 ? 1 : state == 3 ? 2 : 0;
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.name = "io.ufs.clkgating (OFF:0/REQ_OFF/REQ_ON/ON:3)";
  spec.type = "ufs_clkgating";
  spec.is_counter = 1;
  spec.machine = s->machine;
  return kdev_counter(ctx, &spec, ts, (double)value, -1);
}

/* ---- f2fs ---- */

int kdev_f2fs_counter(trace_context *ctx, const kernel_scope *s, int64_t ts, const char *event,
                      uint64_t dev, const char *key, double value) {
  char device[32], name[128];
  snprintf(device, sizeof device, "%u:%u", (unsigned)((dev & 0xFF00) >> 8),
           (unsigned)(dev & 0xFF));
  snprintf(name, sizeof name, "%s.[%s].%s", event, device, key);
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.name = name;
  spec.type = event;
  spec.is_counter = 1;
  spec.machine = s->machine;
  spec.dim_key = "linux_device";
  spec.dim_str = device;
  spec.dim2_key = "counter_key";
  spec.dim2_str = key;
  return kdev_counter(ctx, &spec, ts, value, -1);
}

/* ---- cros_ec ---- */

int kdev_cros_ec(trace_context *ctx, const kernel_scope *s, int64_t ts, const kdev_cros_ec_event *e) {
  char name[64];
  snprintf(name, sizeof name, "cros_ec.cros_ec_sensorhub_data.%" PRIu32, e->sensor);
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.name = name;
  spec.type = "cros_ec_sensorhub_data";
  spec.is_counter = 1;
  spec.machine = s->machine;
  spec.extra_key = e->sensor;
  spec.dim_key = "ec_sensor_num";
  spec.dim_int = e->sensor;
  /* the track (and its dimension set) comes before the sample's args */
  uint32_t track;
  int64_t args = -1;
  int rc = model_track(ctx, &spec, &track);
  if (rc) return rc;
  rc = model_arg_int(ctx, "ec_num", 6, MODEL_ARG_INT, e->sensor);
  if (!rc) rc = model_arg_int(ctx, "ec_delta", 8, MODEL_ARG_INT,
                              (int64_t)((uint64_t)e->fifo_timestamp -
                                        (uint64_t)e->current_timestamp));
  if (!rc) rc = model_arg_int(ctx, "sample_ts", 9, MODEL_ARG_INT, e->current_timestamp);
  if (!rc) rc = model_args_commit(ctx, &args);
  else model_args_discard(ctx);
  double value = (double)(int64_t)((uint64_t)e->current_time - (uint64_t)e->current_timestamp);
  return rc ? rc : model_counter(ctx, track, ts, value, args);
}

/* ---- CMA ---- */

/* The machine's kernel release as major * 1000 + minor; -1 if unknown. */
static int64_t kdev_kernel_version(trace_context *ctx, uint32_t machine) {
  storage_table *t = ctx_table(ctx, TABLE_MACHINE);
  if (machine >= t->row_count) return -1;
  const char *r = base_string_pool_get(&ctx->strings, storage_get_str(t, MACHINE_release, machine));
  int64_t major = 0, minor = 0;
  int digits = 0;
  for (; r && *r >= '0' && *r <= '9' && major < 100000; r++, digits++) major = major * 10 + (*r - '0');
  if (!r || !digits || *r++ != '.') return -1;
  for (digits = 0; *r >= '0' && *r <= '9' && minor < 1000; r++, digits++) minor = minor * 10 + (*r - '0');
  return digits ? major * 1000 + (minor > 999 ? 999 : minor) : -1;
}

static kdev_migration *kdev_migration_of(kdev_state *k, uint32_t machine, int64_t tid,
                                         int create) {
  uint64_t key = base_hash_u64((uint64_t)tid ^ base_hash_u64((uint64_t)machine + 1));
  uint64_t *slot = base_map_find(&k->migration_by_thread, key);
  if (slot) return &k->migrations.data[*slot - 1];
  if (!create || k->migrations.len >= KDEV_MAX_THREADS) return NULL;
  kdev_migration m = {0, 0, 0};
  if (VEC_PUSH(k->migrations, m)) return NULL;
  if (base_map_insert(&k->migration_by_thread, key, k->migrations.len, &slot) < 0) {
    k->migrations.len--;
    return NULL;
  }
  return &k->migrations.data[k->migrations.len - 1];
}

static int kdev_cma_args(trace_context *ctx, const kdev_cma_event *e, int with_failures) {
  static const char *const keys[] = {"cma_pfn", "cma_req_pages", "cma_nr_migrated",
                                     "cma_nr_reclaimed", "cma_nr_mapped", "cma_nr_isolate_fail",
                                     "cma_nr_migrate_fail", "cma_nr_test_fail"};
  const uint64_t values[] = {e->pfn,       e->count,   e->nr_migrated, e->nr_reclaimed,
                             e->nr_mapped, e->err_iso, e->err_mig,     e->err_test};
  int rc = model_arg_string(ctx, "cma_name", 8, e->name ? e->name : "",
                            e->name ? e->name_len : 0, MODEL_ARG_STRING);
  size_t n = with_failures ? 8 : 5;
  for (size_t i = 0; !rc && i < n; i++)
    rc = model_arg_int(ctx, keys[i], strlen(keys[i]), MODEL_ARG_UINT, (int64_t)values[i]);
  return rc;
}

static int kdev_cma_end(trace_context *ctx, uint32_t track, int64_t ts, const kdev_cma_event *e,
                        int with_failures) {
  int64_t ended, args = -1;
  int rc = model_slice_end(ctx, track, ts, &ended);
  if (rc || ended < 0) return rc;
  storage_table *t = ctx_table(ctx, TABLE_SLICE);
  rc = model_args_reopen(ctx, storage_get_i64_or(t, SLICE_arg_set_id, (size_t)ended, -1));
  if (!rc) rc = kdev_cma_args(ctx, e, with_failures);
  if (!rc) rc = model_args_commit(ctx, &args);
  else model_args_discard(ctx);
  if (!rc) model_slice_set_args(ctx, (uint32_t)ended, args);
  return rc;
}

int kdev_cma(trace_context *ctx, const kernel_scope *s, int64_t ts, int64_t tid,
             kdev_cma_kind kind, const kdev_cma_event *e) {
  int64_t version = kdev_kernel_version(ctx, s->machine);
  int is_new = version >= 6001;
  if (version < 5010 || (kind == KDEV_CMA_INFO && is_new) ||
      ((kind == KDEV_CMA_FINISH || kind == KDEV_CMA_MIGRATE) && !is_new))
    return WEFT_OK;
  kdev_state *k;
  int rc = kdev_get(ctx, &k);
  if (rc) return rc;
  if (kind == KDEV_CMA_MIGRATE) {
    kdev_migration *m = kdev_migration_of(k, s->machine, tid, 1);
    if (m) *m = (kdev_migration){e->nr_migrated, e->nr_reclaimed, e->nr_mapped};
    return WEFT_OK;
  }
  uint32_t utid, track, slice;
  rc = sched_thread(ctx, s->machine, tid, NULL, 0, &utid);
  if (!rc) rc = model_thread_track(ctx, utid, &track);
  if (rc) return rc;
  if (kind == KDEV_CMA_START) { /* counts from before the allocation do not count */
    kdev_migration *m = kdev_migration_of(k, s->machine, tid, 0);
    if (m) *m = (kdev_migration){0, 0, 0};
    string_id name;
    rc = ctx_intern(ctx, "mm_cma_alloc", 12, &name);
    return rc ? rc : model_slice_begin(ctx, track, ts, STRING_NULL, name, -1, &slice);
  }
  if (kind == KDEV_CMA_INFO) return kdev_cma_end(ctx, track, ts, e, 1);
  kdev_cma_event finish = *e;
  kdev_migration *m = kdev_migration_of(k, s->machine, tid, 0);
  if (m) {
    finish.nr_migrated = m->migrated;
    finish.nr_reclaimed = m->reclaimed;
    finish.nr_mapped = m->mapped;
    *m = (kdev_migration){0, 0, 0};
  }
  return kdev_cma_end(ctx, track, ts, &finish, 0);
}
