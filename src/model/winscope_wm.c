/* winscope_wm: WindowManager winscope rows (model/winscope_wm.h). */
#include "model/winscope_wm.h"

/* Sets column col when `has`; keeps the first error in *rc. */
static void wm_put(storage_table *t, unsigned col, uint32_t row, int has, int64_t v, int *rc) {
  int r = has ? storage_set_i64(t, col, row, v) : WEFT_OK;
  if (!*rc) *rc = r;
}

static void wm_put_str(storage_table *t, unsigned col, uint32_t row, string_id v, int *rc) {
  int r = v != STRING_NULL ? storage_set_str(t, col, row, v) : WEFT_OK;
  if (!*rc) *rc = r;
}

int model_wm_snapshot_add(trace_context *ctx, const model_wm_snapshot *s, uint32_t *row) {
  storage_table *t = ctx_table(ctx, TABLE_WINDOWMANAGER);
  int rc = storage_table_append(t, row);
  if (rc) return rc;
  wm_put(t, WINDOWMANAGER_ts, *row, 1, s->ts, &rc);
  wm_put(t, WINDOWMANAGER_arg_set_id, *row, s->arg_set >= 0, s->arg_set, &rc);
  wm_put(t, WINDOWMANAGER_base64_proto_id, *row, s->base64_proto != STRING_NULL,
         (int64_t)s->base64_proto, &rc);
  wm_put(t, WINDOWMANAGER_focused_display_id, *row, 1, s->focused_display_id, &rc);
  wm_put(t, WINDOWMANAGER_has_invalid_elapsed_ts, *row, 1, s->has_invalid_elapsed_ts, &rc);
  return rc;
}

int model_wm_container_add(trace_context *ctx, const model_wm_container *c) {
  storage_table *t = ctx_table(ctx, TABLE_WINDOWMANAGER_WINDOWCONTAINER);
  uint32_t row;
  int rc = storage_table_append(t, &row);
  if (rc) return rc;
  wm_put(t, WINDOWMANAGER_WINDOWCONTAINER_snapshot_id, row, 1, c->snapshot_id, &rc);
  wm_put(t, WINDOWMANAGER_WINDOWCONTAINER_arg_set_id, row, c->arg_set >= 0, c->arg_set, &rc);
  wm_put(t, WINDOWMANAGER_WINDOWCONTAINER_base64_proto_id, row, c->base64_proto != STRING_NULL,
         (int64_t)c->base64_proto, &rc);
  wm_put_str(t, WINDOWMANAGER_WINDOWCONTAINER_title, row, c->title, &rc);
  wm_put(t, WINDOWMANAGER_WINDOWCONTAINER_token, row, 1, c->token, &rc);
  wm_put(t, WINDOWMANAGER_WINDOWCONTAINER_parent_token, row, c->has_parent, c->parent_token, &rc);
  wm_put(t, WINDOWMANAGER_WINDOWCONTAINER_child_index, row, c->has_parent, c->child_index, &rc);
  wm_put(t, WINDOWMANAGER_WINDOWCONTAINER_is_visible, row, 1, c->is_visible, &rc);
  wm_put(t, WINDOWMANAGER_WINDOWCONTAINER_window_rect_id, row, c->window_rect_id >= 0,
         c->window_rect_id, &rc);
  wm_put_str(t, WINDOWMANAGER_WINDOWCONTAINER_container_type, row, c->container_type, &rc);
  wm_put_str(t, WINDOWMANAGER_WINDOWCONTAINER_name_override, row, c->name_override, &rc);
  return rc;
}
