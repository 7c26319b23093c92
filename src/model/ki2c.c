/* i2c transfer slices. See ki2c.h. */
#include "model/ki2c.h"

#include <stdio.h>

#include "model/context.h"
#include "model/model.h"
#include "model/slice_stack.h"

typedef struct ki2c_op {
  uint64_t thread; /* machine << 32 | utid */
  uint32_t adapter_nr, nr_msgs;
} ki2c_op;

/* The in-flight transfers of all threads, each thread's in push order;
 * a thread's top is its last entry. */
struct ki2c_state {
  VEC(ki2c_op) ops;
};

void ki2c_state_free(ki2c_state *k) {
  if (!k) return;
  VEC_FREE(k->ops);
  base_free(k);
}

static ki2c_state *ki2c_get(trace_context *ctx) {
  if (!ctx->model.ki2c) ctx->model.ki2c = base_calloc(1, sizeof *ctx->model.ki2c);
  return ctx->model.ki2c;
}

/* The index of the thread's top transfer, or -1. */
static int64_t ki2c_top(const ki2c_state *k, uint64_t thread) {
  for (size_t i = k->ops.len; i-- > 0;)
    if (k->ops.data[i].thread == thread) return (int64_t)i;
  return -1;
}

static int ki2c_thread(trace_context *ctx, const kernel_scope *s, int64_t tid, uint32_t *utid,
                       uint32_t *track) {
  int rc = sched_thread(ctx, s->machine, tid, NULL, 0, utid);
  return rc ? rc : model_thread_track(ctx, *utid, track);
}

static int ki2c_name(trace_context *ctx, uint32_t adapter_nr, string_id *name) {
  char buf[24];
  int n = snprintf(buf, sizeof buf, "i2c-%u", adapter_nr);
  return ctx_intern(ctx, buf, (size_t)n, name);
}

int ki2c_enter(trace_context *ctx, const kernel_scope *s, int64_t ts, int64_t tid,
               uint32_t adapter_nr, uint32_t msg_nr) {
  if (adapter_nr >= KI2C_MAX_ADAPTERS) return WEFT_OK;
  ki2c_state *k = ki2c_get(ctx);
  if (!k) return WEFT_ENOMEM;
  uint32_t utid, track, slice;
  string_id name;
  int rc = ki2c_thread(ctx, s, tid, &utid, &track);
  if (rc) return rc;
  uint64_t thread = (uint64_t)s->machine << 32 | utid;
  uint32_t count = msg_nr == UINT32_MAX ? 0 : msg_nr + 1; /* uint32 arithmetic, as Perfetto */
  int64_t top = ki2c_top(k, thread);
  if (top >= 0) {
    ki2c_op *op = &k->ops.data[top];
    if (count > op->nr_msgs) op->nr_msgs = count;
    return WEFT_OK;
  }
  rc = ki2c_name(ctx, adapter_nr, &name);
  if (!rc) rc = model_slice_begin(ctx, track, ts, STRING_NULL, name, -1, &slice);
  ki2c_op op = {thread, adapter_nr, count};
  return rc ? rc : VEC_PUSH(k->ops, op) ? WEFT_ENOMEM : WEFT_OK;
}

int ki2c_exit(trace_context *ctx, const kernel_scope *s, int64_t ts, int64_t tid,
              uint32_t adapter_nr, uint32_t nr_msgs) {
  if (adapter_nr >= KI2C_MAX_ADAPTERS) return WEFT_OK;
  ki2c_state *k = ki2c_get(ctx);
  if (!k) return WEFT_ENOMEM;
  uint32_t utid, track;
  int rc = sched_thread(ctx, s->machine, tid, NULL, 0, &utid);
  if (rc) return rc;
  int64_t top = ki2c_top(k, (uint64_t)s->machine << 32 | utid);
  if (top < 0 || k->ops.data[top].adapter_nr != adapter_nr ||
      k->ops.data[top].nr_msgs != nr_msgs)
    return WEFT_OK;
  memmove(&k->ops.data[top], &k->ops.data[top + 1],
          (k->ops.len - (size_t)top - 1) * sizeof *k->ops.data);
  k->ops.len--;
  string_id name;
  int64_t ended;
  rc = model_thread_track(ctx, utid, &track);
  if (!rc) rc = ki2c_name(ctx, adapter_nr, &name);
  return rc ? rc : slice_stack_end_matching(ctx, track, ts, STRING_NULL, name, &ended);
}
