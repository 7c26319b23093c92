/* ART process metadata: OOME heap graphs, their details and the failing
 * thread's Java stack. See model/heap_graph.h. */
#include "model/heap_graph.h"
#include "model/stack_profile.h"

static int hgo_dump_row(trace_context *ctx, const heap_graph_art_metadata *m, uint32_t *row) {
  storage_table *t = ctx_table(ctx, TABLE_HEAP_GRAPH);
  string_id reason = STRING_NULL;
  int rc = m->is_oome ? ctx_intern(ctx, "OOME", 4, &reason) : WEFT_OK;
  if (!rc) rc = storage_table_append(t, row);
  if (rc) return rc;
  storage_set_i64(t, HEAP_GRAPH_ts, *row, m->ts);
  ctx_extend_bounds(ctx, m->ts);
  storage_set_i64(t, HEAP_GRAPH_upid, *row, m->upid);
  storage_set_str(t, HEAP_GRAPH_dump_reason, *row, reason);
  storage_set_i64(t, HEAP_GRAPH_truncated, *row, 0);
  return storage_table_status(t);
}

static int hgo_details_row(trace_context *ctx, const heap_graph_art_metadata *m,
                           uint32_t graph) {
  storage_table *t = ctx_table(ctx, TABLE_HEAP_GRAPH_JAVA_OOME_DETAILS);
  uint32_t row;
  int rc = storage_table_append(t, &row);
  if (rc) return rc;
  storage_set_i64(t, HEAP_GRAPH_JAVA_OOME_DETAILS_heap_graph_id, row, graph);
  storage_set_i64(t, HEAP_GRAPH_JAVA_OOME_DETAILS_allocation_size_bytes, row,
                  m->allocation_size);
  storage_set_i64(t, HEAP_GRAPH_JAVA_OOME_DETAILS_total_bytes_free, row, m->total_bytes_free);
  storage_set_i64(t, HEAP_GRAPH_JAVA_OOME_DETAILS_free_bytes_until_oom, row,
                  m->free_bytes_until_oom);
  storage_set_str(t, HEAP_GRAPH_JAVA_OOME_DETAILS_error_msg, row, m->error_msg);
  return storage_table_status(t);
}

/* The callsite of the stack's innermost frame (-1: no frames). */
static int hgo_stack(trace_context *ctx, const heap_graph_art_metadata *m, int64_t *callsite) {
  stack_profile_mapping_spec spec = {0};
  spec.end = -1;
  uint32_t mapping;
  int rc = ctx_intern(ctx, "", 0, &spec.build_id);
  if (!rc) rc = ctx_intern(ctx, "art_process_metadata", 20, &spec.name);
  if (!rc) rc = stack_profile_mapping(ctx, &spec, &mapping);
  *callsite = -1;
  for (size_t i = m->frame_count; !rc && i-- > 0;) {
    const heap_graph_java_frame *f = &m->frames[i];
    uint32_t frame, cs;
    rc = stack_profile_symbol_frame(ctx, mapping, f->method, f->file, f->line, &frame);
    if (!rc) rc = stack_profile_callsite(ctx, *callsite, frame, &cs);
    if (!rc) *callsite = cs;
  }
  return rc;
}

static int hgo_thread_callsite(trace_context *ctx, const heap_graph_art_metadata *m,
                               uint32_t graph) {
  int64_t callsite;
  int rc = hgo_stack(ctx, m, &callsite);
  storage_table *t = ctx_table(ctx, TABLE_HEAP_GRAPH_THREAD_CALLSITE);
  uint32_t row;
  if (!rc) rc = storage_table_append(t, &row);
  if (rc) return rc;
  storage_set_i64(t, HEAP_GRAPH_THREAD_CALLSITE_heap_graph_id, row, graph);
  storage_set_i64(t, HEAP_GRAPH_THREAD_CALLSITE_utid, row, m->utid);
  if (callsite >= 0) storage_set_i64(t, HEAP_GRAPH_THREAD_CALLSITE_callsite_id, row, callsite);
  return storage_table_status(t);
}

int model_heap_graph_art_metadata(trace_context *ctx, const heap_graph_art_metadata *m) {
  uint32_t graph;
  int rc = hgo_dump_row(ctx, m, &graph);
  if (rc || !m->is_oome) return rc;
  rc = hgo_details_row(ctx, m, graph);
  return rc || !m->has_stack ? rc : hgo_thread_callsite(ctx, m, graph);
}
