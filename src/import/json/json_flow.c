/* Chrome JSON flow events onto the flow tracker (model/flow.h).
 * v1: phases s (begin), t (step), f (end; "bp": "e" binds the enclosing
 * slice, otherwise the next slice to begin on the thread), keyed by
 * (id, cat, name). v2: "bind_id" with "flow_in"/"flow_out" on the slice the
 * event itself creates. */
#include "import/json/json_internal.h"
#include "model/flow.h"

static flow_scope json_flow_scope(const import_file *f) {
  flow_scope s = {f->machine, f->trace_id};
  return s;
}

int json_flow_v1(import_file *f, const json_event *e, uint32_t track,
                 string_id cat, string_id name) {
  if (!e->flow_v1_id.valid) return import_stat(f, stat_flow_invalid_id, 1);
  flow_scope scope = json_flow_scope(f);
  flow_id id;
  int rc = flow_v1_id(f->ctx, scope, e->flow_v1_id.value, cat, name, &id);
  if (rc) return rc;
  if (e->ph == 's') return flow_begin(f->ctx, scope, track, id);
  if (e->ph == 't') return flow_step(f->ctx, scope, track, id);
  int bind_enclosing = e->bp.ptr && e->bp.len == 1 && e->bp.ptr[0] == 'e';
  return flow_end(f->ctx, scope, track, id, bind_enclosing, 0);
}

int json_flow_v2(import_file *f, const json_event *e, uint32_t track) {
  if (!e->bind_id.present) return WEFT_OK;
  if (!e->bind_id.valid) return WEFT_OK;
  flow_scope scope = json_flow_scope(f);
  flow_id id = flow_id_v2(e->bind_id.value);
  if (e->flow_in && e->flow_out) return flow_step(f->ctx, scope, track, id);
  if (e->flow_out) return flow_begin(f->ctx, scope, track, id);
  if (e->flow_in) return flow_end(f->ctx, scope, track, id, 1, 0);
  return import_stat(f, stat_flow_without_direction, 1);
}
