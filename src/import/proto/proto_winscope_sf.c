/* proto_winscope_sf: SurfaceFlinger winscope packets (proto_winscope_sf.h). */
#include "import/proto/proto_winscope_sf.h"

#include <string.h>

#include "base/base.h"
#include "import/proto/proto_args.h"
#include "import/proto/proto_winscope.h"
#include "model/winscope_sf.h"

#define SF_COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* TransactionTraceEntry, TransactionState, LayerState, DisplayState and
 * LayerCreationArgs fields read for columns. */
enum {
  ENTRY_VSYNC_ID = 2, ENTRY_TRANSACTIONS = 3, ENTRY_ADDED_LAYERS = 4,
  ENTRY_DESTROYED_LAYERS = 5, ENTRY_ADDED_DISPLAYS = 6, ENTRY_REMOVED_DISPLAYS = 7,
  ENTRY_DESTROYED_LAYER_HANDLES = 8,
};
enum {
  TX_PID = 1, TX_UID = 2, TX_TRANSACTION_ID = 6, TX_LAYER_CHANGES = 7,
  TX_DISPLAY_CHANGES = 8, TX_APPLY_TOKEN = 10, TX_BARRIERS = 11,
};
enum { LAYER_STATE_LAYER_ID = 1, LAYER_STATE_WHAT = 2 };
enum { DISPLAY_STATE_ID = 1, DISPLAY_STATE_WHAT = 2 };
enum { CREATION_LAYER_ID = 1 };

/* The transaction_type values. */
typedef enum sf_kind {
  SF_LAYER_CHANGED, SF_DISPLAY_CHANGED, SF_NOOP, SF_LAYER_ADDED, SF_LAYER_DESTROYED,
  SF_DISPLAY_ADDED, SF_DISPLAY_REMOVED, SF_LAYER_HANDLE_DESTROYED, SF_KIND_COUNT,
} sf_kind;
static const char *const sf_kind_names[SF_KIND_COUNT] = {
    "LAYER_CHANGED", "DISPLAY_CHANGED", "NOOP", "LAYER_ADDED", "LAYER_DESTROYED",
    "DISPLAY_ADDED", "DISPLAY_REMOVED", "LAYER_HANDLE_DESTROYED",
};

/* The flags_id given to each distinct `what` of layer and display changes,
 * and the interned transaction types. */
struct proto_sf_state {
  string_id kinds[SF_KIND_COUNT];
  base_map layer_flags, display_flags;
  uint64_t n_flag_ids;
  int has_max_layer_what; /* UINT64_MAX is no base_map key */
  uint64_t max_layer_what_id;
  base_map rects; /* rect value hash -> __intrinsic_winscope_rect row */
  base_map transforms; /* transform value hash -> __intrinsic_winscope_transform row */
};

base_map *proto_sf_rects(proto_sf_state *s) { return &s->rects; }
base_map *proto_sf_transforms(proto_sf_state *s) { return &s->transforms; }

void proto_sf_free(proto_sf_state *s) {
  if (!s) return;
  base_map_free(&s->layer_flags);
  base_map_free(&s->display_flags);
  base_map_free(&s->rects);
  base_map_free(&s->transforms);
  base_free(s);
}

typedef struct sf_flag_name {
  uint32_t mask;
  const char *name;
} sf_flag_name;

/* LayerState.ChangesLsb, in the order they are listed. */
static const sf_flag_name sf_layer_low[] = {
    {0x1, "ePositionChanged"}, {0x2, "eLayerChanged"}, {0x8, "eAlphaChanged"},
    {0x10, "eMatrixChanged"}, {0x20, "eTransparentRegionChanged"}, {0x40, "eFlagsChanged"},
    {0x80, "eLayerStackChanged"}, {0x400, "eReleaseBufferListenerChanged"},
    {0x800, "eShadowRadiusChanged"}, {0x800, "eShadowRadiusChanged"},
    {0x2000, "eBufferCropChanged"}, {0x4000, "eRelativeLayerChanged"}, {0x8000, "eReparent"},
    {0x10000, "eColorChanged"}, {0x40000, "eBufferTransformChanged"},
    {0x80000, "eTransformToDisplayInverseChanged"}, {0x100000, "eCropChanged"},
    {0x200000, "eBufferChanged"}, {0x400000, "eAcquireFenceChanged"},
    {0x800000, "eDataspaceChanged"}, {0x1000000, "eHdrMetadataChanged"},
    {0x2000000, "eSurfaceDamageRegionChanged"}, {0x4000000, "eApiChanged"},
    {0x8000000, "eSidebandStreamChanged"}, {0x10000000, "eColorTransformChanged"},
    {0x20000000, "eHasListenerCallbacksChanged"}, {0x40000000, "eInputInfoChanged"},
    {0x80000000u, "eCornerRadiusChanged"},
};
/* LayerState.ChangesMsb up to eDropInputModeChanged. */
static const sf_flag_name sf_layer_high[] = {
    {0x1, "eDestinationFrameChanged"}, {0x2, "eCachedBufferChanged"},
    {0x4, "eBackgroundColorChanged"}, {0x8, "eMetadataChanged"},
    {0x10, "eColorSpaceAgnosticChanged"}, {0x20, "eFrameRateSelectionPriority"},
    {0x40, "eFrameRateChanged"}, {0x80, "eBackgroundBlurRadiusChanged"},
    {0x100, "eProducerDisconnect"}, {0x200, "eFixedTransformHintChanged"},
    {0x400, "eFrameNumberChanged"}, {0x800, "eBlurRegionsChanged"},
    {0x1000, "eAutoRefreshChanged"}, {0x2000, "eStretchChanged"},
    {0x4000, "eTrustedOverlayChanged"}, {0x8000, "eDropInputModeChanged"},
};
/* DisplayState.Changes. */
static const sf_flag_name sf_display[] = {
    {0x1, "eSurfaceChanged"}, {0x2, "eLayerStackChanged"}, {0x4, "eDisplayProjectionChanged"},
    {0x8, "eDisplaySizeChanged"}, {0x10, "eFlagsChanged"},
};

static int sf_flag_rows(import_file *f, int64_t flags_id, uint32_t bits,
                        const sf_flag_name *names, size_t n) {
  int rc = WEFT_OK;
  for (size_t i = 0; !rc && i < n; i++) {
    if (!(bits & names[i].mask)) continue;
    string_id flag;
    rc = ctx_intern(f->ctx, names[i].name, strlen(names[i].name), &flag);
    if (!rc) rc = model_sf_transaction_flag_add(f->ctx, flags_id, flag);
  }
  return rc;
}

/* The flags_id of `what` of a layer (layer != 0) or display change; a new
 * one writes its flags. */
static int sf_flags_id(import_file *f, proto_sf_state *s, int layer, uint64_t what,
                       int64_t *id) {
  uint64_t *slot;
  int inserted;
  if (layer && what == UINT64_MAX) {
    inserted = !s->has_max_layer_what;
    if (inserted) s->max_layer_what_id = s->n_flag_ids;
    s->has_max_layer_what = 1;
    slot = &s->max_layer_what_id;
  } else {
    inserted = base_map_insert(layer ? &s->layer_flags : &s->display_flags, what,
                               s->n_flag_ids, &slot);
    if (inserted < 0) return WEFT_ENOMEM;
  }
  *id = (int64_t)*slot;
  if (!inserted) return WEFT_OK;
  s->n_flag_ids++;
  if (!layer) return sf_flag_rows(f, *id, (uint32_t)what, sf_display, SF_COUNT(sf_display));
  int rc = sf_flag_rows(f, *id, (uint32_t)what, sf_layer_low, SF_COUNT(sf_layer_low));
  if (!rc)
    rc = sf_flag_rows(f, *id, (uint32_t)(what >> 32), sf_layer_high, SF_COUNT(sf_layer_high));
  return rc;
}

/* Varint field `number` of msg into *out (0 when absent); 1 if present. */
static int sf_varint(proto_span msg, uint32_t number, uint64_t *out) {
  proto_field fl;
  *out = 0;
  if (proto_find_last(msg.data, msg.len, number, &fl) != 1 || fl.wire_type != PROTO_WIRE_VARINT)
    return 0;
  *out = fl.value;
  return 1;
}

/* Commits the pending args of `type` message msg (plus the apply token and
 * barriers of transaction tx when it has data) to x's arg set, and its
 * base64. */
static int sf_change_args(import_file *f, const proto_packet_info *info, const char *type,
                          proto_span msg, proto_span tx, model_sf_transaction *x) {
  static const uint32_t tx_fields[] = {TX_APPLY_TOKEN, TX_BARRIERS};
  int rc = proto_args_message(f, info, type, msg);
  if (!rc && tx.data)
    rc = proto_args_message_fields(f, info, ".perfetto.protos.TransactionState", tx, tx_fields,
                                   SF_COUNT(tx_fields));
  if (!rc) rc = model_args_commit(f->ctx, &x->arg_set);
  if (!rc) rc = proto_winscope_base64(f, msg, &x->base64_proto);
  return rc;
}

/* A LAYER_CHANGED (layer != 0) or DISPLAY_CHANGED / DISPLAY_ADDED change. */
static int sf_state_change(import_file *f, proto_sf_state *s, const proto_packet_info *info,
                           int layer, proto_span msg, proto_span tx, model_sf_transaction *x) {
  uint64_t v, what;
  sf_varint(msg, layer ? LAYER_STATE_LAYER_ID : DISPLAY_STATE_ID, &v);
  x->has &= ~(unsigned)(MODEL_SF_HAS_LAYER | MODEL_SF_HAS_DISPLAY | MODEL_SF_HAS_FLAGS);
  x->has |= layer ? MODEL_SF_HAS_LAYER : MODEL_SF_HAS_DISPLAY;
  if (layer) x->layer_id = (uint32_t)v;
  else x->display_id = (int32_t)v;
  int rc = WEFT_OK;
  if (sf_varint(msg, layer ? LAYER_STATE_WHAT : DISPLAY_STATE_WHAT, &what)) {
    x->has |= MODEL_SF_HAS_FLAGS;
    rc = sf_flags_id(f, s, layer, layer ? what : (uint32_t)what, &x->flags_id);
  }
  const char *type = layer ? ".perfetto.protos.LayerState" : ".perfetto.protos.DisplayState";
  if (!tx.data) x->type = s->kinds[SF_DISPLAY_ADDED];
  else x->type = s->kinds[layer ? SF_LAYER_CHANGED : SF_DISPLAY_CHANGED];
  if (!rc) rc = sf_change_args(f, info, type, msg, tx, x);
  if (!rc) rc = model_sf_transaction_add(f->ctx, x);
  return rc;
}

/* The LAYER_CHANGED rows, then the DISPLAY_CHANGED rows, of transaction tx;
 * or its NOOP row. */
static int sf_transaction(import_file *f, proto_sf_state *s, const proto_packet_info *info,
                          proto_span tx, model_sf_transaction *x) {
  uint64_t v;
  x->has = MODEL_SF_HAS_TRANSACTION;
  sf_varint(tx, TX_TRANSACTION_ID, &v);
  x->transaction_id = (int64_t)v;
  sf_varint(tx, TX_PID, &v);
  x->pid = (int32_t)v;
  sf_varint(tx, TX_UID, &v);
  x->uid = (int32_t)v;
  int any = 0, rc = WEFT_OK;
  for (int pass = 0; pass < 2 && !rc; pass++) {
    uint32_t number = pass == 0 ? TX_LAYER_CHANGES : TX_DISPLAY_CHANGES;
    proto_reader r;
    proto_field fl;
    proto_reader_init_span(&r, tx);
    while (!rc && proto_reader_next(&r, &fl) == 1) {
      if (fl.number != number || fl.wire_type != PROTO_WIRE_LEN) continue;
      any = 1;
      rc = sf_state_change(f, s, info, pass == 0, fl.span, tx, x);
    }
  }
  if (rc || any) return rc;
  x->has = MODEL_SF_HAS_TRANSACTION;
  x->arg_set = -1;
  x->base64_proto = STRING_NULL;
  x->type = s->kinds[SF_NOOP];
  return model_sf_transaction_add(f->ctx, x);
}

static int sf_added_layer(import_file *f, proto_sf_state *s, const proto_packet_info *info,
                          proto_span msg, model_sf_transaction *x) {
  uint64_t v;
  sf_varint(msg, CREATION_LAYER_ID, &v);
  x->has = MODEL_SF_HAS_LAYER;
  x->type = s->kinds[SF_LAYER_ADDED];
  x->layer_id = (uint32_t)v;
  proto_span none = {NULL, 0};
  int rc = sf_change_args(f, info, ".perfetto.protos.LayerCreationArgs", msg, none, x);
  return rc ? rc : model_sf_transaction_add(f->ctx, x);
}

/* A LAYER_DESTROYED, DISPLAY_REMOVED or LAYER_HANDLE_DESTROYED row: only an id. */
static int sf_id_row(import_file *f, uint32_t number, uint64_t id, model_sf_transaction *x) {
  x->arg_set = -1;
  x->base64_proto = STRING_NULL;
  if (number == ENTRY_REMOVED_DISPLAYS) {
    x->has = MODEL_SF_HAS_DISPLAY;
    x->display_id = (int32_t)id;
  } else {
    x->has = MODEL_SF_HAS_LAYER;
    x->layer_id = (uint32_t)id;
  }
  return model_sf_transaction_add(f->ctx, x);
}

/* A varint of a repeated id field as an id row (the fields are not packed:
 * other encodings are skipped). */
static int sf_id_rows(import_file *f, const proto_field *fl, model_sf_transaction *x) {
  if (fl->wire_type != PROTO_WIRE_VARINT) return WEFT_OK;
  return sf_id_row(f, fl->number, fl->value, x);
}

/* The row kind of a change listed by an entry's field. */
static sf_kind sf_entry_kind(uint32_t number) {
  switch (number) {
    case ENTRY_DESTROYED_LAYERS: return SF_LAYER_DESTROYED;
    case ENTRY_REMOVED_DISPLAYS: return SF_DISPLAY_REMOVED;
    default: return SF_LAYER_HANDLE_DESTROYED;
  }
}

/* The rows of the entry's field `number`, one per occurrence. */
static int sf_entry_rows(import_file *f, proto_sf_state *s, const proto_packet_info *info,
                         proto_span entry, uint32_t number, model_sf_transaction *x) {
  proto_reader r;
  proto_field fl;
  proto_span none = {NULL, 0};
  int rc = WEFT_OK;
  proto_reader_init_span(&r, entry);
  while (!rc && proto_reader_next(&r, &fl) == 1) {
    if (fl.number != number) continue;
    int len = fl.wire_type == PROTO_WIRE_LEN;
    if (number == ENTRY_TRANSACTIONS) {
      if (len) rc = sf_transaction(f, s, info, fl.span, x);
    } else if (number == ENTRY_ADDED_LAYERS) {
      if (len) rc = sf_added_layer(f, s, info, fl.span, x);
    } else if (number == ENTRY_ADDED_DISPLAYS) {
      x->has = 0;
      if (len) rc = sf_state_change(f, s, info, 0, fl.span, none, x);
    } else {
      x->type = s->kinds[sf_entry_kind(number)];
      rc = sf_id_rows(f, &fl, x);
    }
  }
  return rc;
}

int proto_sf_state_get(import_file *f, proto_sf_state **state) {
  if (*state) return WEFT_OK;
  proto_sf_state *s = base_calloc(1, sizeof *s);
  if (!s) return WEFT_ENOMEM;
  int rc = WEFT_OK;
  for (int k = 0; !rc && k < SF_KIND_COUNT; k++)
    rc = ctx_intern(f->ctx, sf_kind_names[k], strlen(sf_kind_names[k]), &s->kinds[k]);
  if (rc) {
    base_free(s);
    return rc;
  }
  *state = s;
  return WEFT_OK;
}

int proto_sf_transactions_parse(import_file *f, proto_sf_state **state,
                                const proto_packet_info *info, int64_t ts, proto_span msg) {
  static const uint32_t order[] = {ENTRY_TRANSACTIONS, ENTRY_ADDED_LAYERS,
                                   ENTRY_DESTROYED_LAYERS, ENTRY_ADDED_DISPLAYS,
                                   ENTRY_REMOVED_DISPLAYS, ENTRY_DESTROYED_LAYER_HANDLES};
  int rc = proto_sf_state_get(f, state);
  if (rc) return rc;
  uint64_t vsync;
  sf_varint(msg, ENTRY_VSYNC_ID, &vsync);
  int64_t arg_set;
  string_id base64;
  uint32_t row = 0;
  rc = proto_args_message(f, info, ".perfetto.protos.TransactionTraceEntry", msg);
  if (!rc) rc = model_args_commit(f->ctx, &arg_set);
  if (!rc) rc = proto_winscope_base64(f, msg, &base64);
  if (!rc) rc = model_sf_transactions_add(f->ctx, ts, arg_set, base64, (int64_t)vsync, &row);
  model_sf_transaction x;
  memset(&x, 0, sizeof x);
  x.snapshot_id = row;
  for (size_t i = 0; !rc && i < SF_COUNT(order); i++)
    rc = sf_entry_rows(f, *state, info, msg, order[i], &x);
  return rc;
}
