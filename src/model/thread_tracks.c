/* The tracks of threads and processes (see model.h): each made once per
 * trace file, then found through a memo by utid or upid. */
#include "model/model.h"

#include <string.h>

#include "model/context.h"

static uint32_t model_row_machine(trace_context *ctx, schema_table_id table,
                                  size_t col, uint32_t row) {
  int64_t m = storage_get_i64_or(ctx_table(ctx, table), col, row, 0);
  return (uint32_t)m;
}

/* utid/upid -> track memos (model.thread_tracks, process_tracks): tracks
 * are never removed and a thread's or process's machine never changes
 * while files are parsed, so a track found for the current file stays
 * right. */
static uint32_t model_memo_file(const trace_context *ctx) {
  return (uint32_t)ctx->model.scope_trace;
}

static int model_memo_find(const trace_context *ctx, const model_track_memo *memo, uint32_t id,
                           uint32_t *track) {
  if (id >= memo->len) return 0;
  uint64_t v = memo->data[id];
  if ((uint32_t)v == 0 || v >> 32 != model_memo_file(ctx)) return 0;
  *track = (uint32_t)v - 1;
  return 1;
}

static int model_memo_track(trace_context *ctx, model_track_memo *memo, uint32_t id,
                            const model_track_spec *s, uint32_t *track) {
  int rc = model_track(ctx, s, track);
  if (rc) return rc;
  if (*track == UINT32_MAX) return WEFT_OK; /* not memoized (never in practice) */
  if (id >= memo->len) {
    if (id == UINT32_MAX || VEC_RESERVE(*memo, (size_t)id + 1)) return WEFT_ENOMEM;
    memset(memo->data + memo->len, 0, ((size_t)id + 1 - memo->len) * sizeof *memo->data);
    memo->len = (size_t)id + 1;
  }
  memo->data[id] = (uint64_t)model_memo_file(ctx) << 32 | (*track + 1);
  return WEFT_OK;
}

int model_thread_track(trace_context *ctx, uint32_t utid, uint32_t *track) {
  if (model_memo_find(ctx, &ctx->model.thread_tracks, utid, track)) return WEFT_OK;
  model_track_spec s;
  model_track_spec_init(&s);
  s.type = "thread_execution";
  s.utid = utid;
  s.machine = model_row_machine(ctx, TABLE_THREAD, THREAD_machine_id, utid);
  return model_memo_track(ctx, &ctx->model.thread_tracks, utid, &s, track);
}

int model_process_track(trace_context *ctx, uint32_t upid, uint32_t *track) {
  if (model_memo_find(ctx, &ctx->model.process_tracks, upid, track)) return WEFT_OK;
  model_track_spec s;
  model_track_spec_init(&s);
  s.type = "process";
  s.upid = upid;
  s.machine = model_row_machine(ctx, TABLE_PROCESS, PROCESS_machine_id, upid);
  return model_memo_track(ctx, &ctx->model.process_tracks, upid, &s, track);
}
