/* Wakelocks and suspend/resume slices. See kpower.h. */
#include "model/kpower.h"

#include <stdio.h>
#include <string.h>

#include "model/columns.h"
#include "model/context.h"
#include "model/model.h"
#include "model/track_compressor.h"

enum { KPOWER_INITIAL, KPOWER_ENTER, KPOWER_FREEZE };

typedef struct kpower_machine {
  uint32_t machine;
  int state;            /* KPOWER_* */
  int64_t enter_cookie; /* the suspend_enter slice's name id */
} kpower_machine;

struct kpower_state {
  base_map wakelocks; /* hash(machine, name) -> active count */
  track_compressor sets;
  VEC(kpower_machine) machines;
};

void kpower_state_free(kpower_state *k) {
  if (!k) return;
  base_map_free(&k->wakelocks);
  track_compressor_free(&k->sets);
  VEC_FREE(k->machines);
  base_free(k);
}

static int kpower_get(trace_context *ctx, kpower_state **out) {
  if (!ctx->model.kpower) {
    kpower_state *k = base_calloc(1, sizeof *k);
    if (!k) return WEFT_ENOMEM;
    ctx->model.kpower = k;
  }
  *out = ctx->model.kpower;
  return WEFT_OK;
}

/* ---- wakelocks ---- */

int kpower_wakelock(trace_context *ctx, const kernel_scope *s, int64_t ts,
                    const char *name, size_t len, int activate) {
  kpower_state *k;
  int rc = kpower_get(ctx, &k);
  if (rc) return rc;
  if (!name) { /* an event without its name field */
    name = "";
    len = 0;
  }
  uint64_t key = base_hash_bytes(name, len) ^ base_hash_u64(s->machine);
  uint64_t *count;
  if (base_map_insert(&k->wakelocks, key, 0, &count) < 0) return WEFT_ENOMEM;
  uint64_t was = *count;
  *count = activate ? was + 1 : (was ? was - 1 : 0);
  if (activate ? was != 0 : was != 1) return WEFT_OK;
  char slice_name[32];
  snprintf(slice_name, sizeof slice_name, "Wakelock(%.*s)", (int)(len > 64 ? 64 : len), name);
  char *dim = base_malloc(len + 1);
  if (!dim) return WEFT_ENOMEM;
  memcpy(dim, name, len);
  dim[len] = '\0';
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.name = slice_name;
  spec.type = "wakesource_wakelock";
  spec.machine = s->machine;
  spec.dim_key = "wakelock_event";
  spec.dim_str = dim;
  spec.extra_key = key;
  uint32_t track;
  rc = model_track(ctx, &spec, &track);
  base_free(dim);
  if (rc) return rc;
  if (!activate) {
    int64_t ended;
    return model_slice_end(ctx, track, ts, &ended);
  }
  string_id name_id;
  uint32_t slice;
  rc = ctx_intern(ctx, slice_name, strlen(slice_name), &name_id);
  return rc ? rc : model_slice_begin(ctx, track, ts, STRING_NULL, name_id, -1, &slice);
}

/* ---- suspend / resume ---- */

static kpower_machine *kpower_machine_of(kpower_state *k, uint32_t machine) {
  for (size_t i = 0; i < k->machines.len; i++)
    if (k->machines.data[i].machine == machine) return &k->machines.data[i];
  kpower_machine m = {machine, KPOWER_INITIAL, -1};
  if (VEC_PUSH(k->machines, m)) return NULL;
  return &k->machines.data[k->machines.len - 1];
}

/* The track of the set of `machine` for a begin or end of `cookie`. */
static int kpower_latency_track(trace_context *ctx, kpower_state *k, uint32_t machine,
                                int64_t cookie, track_compressor_event ev, uint32_t *track) {
  uint32_t set, idx;
  int rc = track_compressor_use(&k->sets, base_hash_u64(machine), cookie, ev, &set, &idx);
  if (rc) return rc;
  uint32_t *slot = track_compressor_track(&k->sets, set, idx);
  if (*slot == TRACK_COMPRESSOR_NO_TRACK) {
    model_track_spec spec;
    model_track_spec_init(&spec);
    spec.name = "Suspend/Resume Latency";
    spec.type = "suspend_resume";
    spec.machine = machine;
    spec.compressor_idx = idx;
    spec.group_key = model_track_group_key(&k->sets, set);
    rc = model_track(ctx, &spec, slot);
    if (rc) return rc;
  }
  *track = *slot;
  return WEFT_OK;
}

static int kpower_end(trace_context *ctx, kpower_state *k, uint32_t machine, int64_t ts,
                      int64_t cookie) {
  uint32_t track;
  int64_t ended;
  int rc = kpower_latency_track(ctx, k, machine, cookie, TRACK_COMPRESSOR_END, &track);
  return rc ? rc : model_slice_end(ctx, track, ts, &ended);
}

static int kpower_begin_args(trace_context *ctx, const kernel_scope *s,
                             uint32_t cpu, int64_t tid, int64_t *args) {
  static const char *const null_keys[3] = {"device_name", "driver_name", "callback_phase"};
  uint32_t utid;
  int rc = sched_thread(ctx, s->machine, tid, NULL, 0, &utid);
  if (!rc) rc = model_arg_int(ctx, "utid", 4, MODEL_ARG_UINT, utid);
  if (!rc) rc = model_arg_string(ctx, "event_type", 10, "Main Kernel Suspend Event", 25,
                                 MODEL_ARG_STRING);
  if (!rc) rc = model_arg_int(ctx, "cpu", 3, MODEL_ARG_UINT, cpu);
  for (int i = 0; !rc && i < 3; i++) {
    string_id key;
    rc = ctx_intern(ctx, null_keys[i], strlen(null_keys[i]), &key);
    if (!rc) rc = model_arg_string_id(ctx, key, STRING_NULL, MODEL_ARG_STRING);
  }
  if (rc) {
    model_args_discard(ctx);
    return rc;
  }
  return model_args_commit(ctx, args);
}

int kpower_suspend_resume(trace_context *ctx, const kernel_scope *s, int64_t ts,
                          uint32_t cpu, int64_t tid, const char *action,
                          size_t len, int64_t val, int start) {
  kpower_state *k;
  int rc = kpower_get(ctx, &k);
  if (rc) return rc;
  kpower_machine *m = kpower_machine_of(k, s->machine);
  if (!m) return WEFT_ENOMEM;
  if (!action) { /* an event without its action field */
    action = "";
    len = 0;
  }
#define KPOWER_IS(word) (len == sizeof(word) - 1 && memcmp(action, word, len) == 0)
  if (KPOWER_IS("timekeeping_freeze")) val = 0;
  char text[64];
  snprintf(text, sizeof text, "%.*s(%d)", (int)(len > 63 ? 63 : len), action, (int32_t)val);
  string_id name;
  rc = ctx_intern(ctx, text, strlen(text), &name);
  if (rc) return rc;
  int64_t cookie = (int64_t)name;
  if (!start) {
    rc = kpower_end(ctx, k, s->machine, ts, cookie);
    if (!rc && KPOWER_IS("suspend_enter")) m->state = KPOWER_INITIAL;
    else if (!rc && KPOWER_IS("thaw_processes") && m->state == KPOWER_FREEZE) {
      rc = kpower_end(ctx, k, s->machine, ts, m->enter_cookie);
      m->state = KPOWER_INITIAL;
    }
    return rc;
  }
  if (KPOWER_IS("suspend_enter")) {
    m->state = KPOWER_ENTER;
    m->enter_cookie = cookie;
  } else if (KPOWER_IS("freeze_processes") && m->state == KPOWER_ENTER) {
    m->state = KPOWER_FREEZE;
  }
#undef KPOWER_IS
  uint32_t track, slice;
  int64_t args = -1;
  rc = kpower_latency_track(ctx, k, s->machine, cookie, TRACK_COMPRESSOR_BEGIN, &track);
  if (!rc) rc = kpower_begin_args(ctx, s, cpu, tid, &args);
  return rc ? rc : model_slice_begin(ctx, track, ts, STRING_NULL, name, args, &slice);
}

int kpower_suspend_resume_minimal(trace_context *ctx, const kernel_scope *s, int64_t ts,
                                  int start) {
  uint32_t track, slice;
  int64_t ended;
  string_id name;
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.name = "Suspend/Resume Minimal";
  spec.type = "suspend_resume_minimal";
  spec.machine = s->machine;
  int rc = model_track(ctx, &spec, &track);
  if (rc || !start) return rc ? rc : model_slice_end(ctx, track, ts, &ended);
  rc = ctx_intern(ctx, "Suspended", 9, &name);
  return rc ? rc : model_slice_begin(ctx, track, ts, STRING_NULL, name, -1, &slice);
}

int kpower_rpm_status(trace_context *ctx, const kernel_scope *s, int64_t ts, const char *device,
                      size_t len, int64_t status) {
  char dev[256];
  size_t n = device ? (len < sizeof dev - 1 ? len : sizeof dev - 1) : 0;
  memcpy(dev, device ? device : "", n);
  dev[n] = '\0';
  uint32_t track, slice;
  int64_t ended;
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.type = "linux_rpm";
  spec.machine = s->machine;
  spec.extra_key = base_hash_bytes(dev, n) | 1;
  spec.dim_key = "linux_device";
  spec.dim_str = dev;
  spec.dim_null = device == NULL; /* an absent name: a NULL arg, the same track as "" */
  int rc = model_track(ctx, &spec, &track);
  if (!rc) rc = model_slice_end(ctx, track, ts, &ended); /* the previous status ends */
  if (rc || status == KPOWER_RPM_SUSPENDED) return rc;
  const char *name = status == 0 ? "Active" : status == 1 ? "Resuming"
                     : status == 3 ? "Suspending" : "Invalid State";
  string_id id;
  rc = ctx_intern(ctx, name, strlen(name), &id);
  return rc ? rc : model_slice_begin(ctx, track, ts, STRING_NULL, id, -1, &slice);
}
