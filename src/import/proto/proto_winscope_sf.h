/* proto_winscope_sf: the SurfaceFlinger winscope packets.
 *
 * Rules:
 *  - surfaceflinger_transactions (TransactionTraceEntry): a row of
 *    surfaceflinger_transactions at the packet's time with vsync_id (0 when
 *    absent), the entry's fields as args and its base64. Then, in this
 *    order, a row of __intrinsic_surfaceflinger_transaction
 *    (android_surfaceflinger_transaction) per change, with snapshot_id the
 *    entry's row:
 *     - each TransactionState: a LAYER_CHANGED row per layer_changes, then a
 *       DISPLAY_CHANGED row per display_changes, each with the
 *       transaction's transaction_id, pid and uid (absent: 0), layer_id
 *       (resp. display_id from `id`, absent 0), the change's base64, and as
 *       args its fields plus the transaction's apply_token and
 *       transaction_barriers; a transaction with neither is one NOOP row
 *       (no args, no base64);
 *     - LAYER_ADDED per added_layers (layer_id, args, base64),
 *       LAYER_DESTROYED per destroyed_layers (layer_id), DISPLAY_ADDED per
 *       added_displays (display_id, args, base64), DISPLAY_REMOVED per
 *       removed_displays (display_id), LAYER_HANDLE_DESTROYED per
 *       destroyed_layer_handles (layer_id); those without a transaction
 *       leave transaction_id, pid and uid NULL.
 *    A change with `what` has a flags_id: the same for the same value among
 *    layer changes (resp. display changes); a new value takes the number of
 *    distinct values seen so far of both kinds, and writes one
 *    __intrinsic_surfaceflinger_transaction_flag row per set flag of its
 *    kind, named as in LayerState.ChangesLsb/ChangesMsb (low then high 32
 *    bits; the shadow radius bit listed twice) or DisplayState.Changes.
 * Malformed messages add what could be read. */
#ifndef WEFT_PROTO_WINSCOPE_SF_H
#define WEFT_PROTO_WINSCOPE_SF_H

#include "import/importer.h"
#include "import/proto/proto_import.h"

#define PROTO_TRACE_PACKET_SURFACEFLINGER_LAYERS 93
#define PROTO_TRACE_PACKET_SURFACEFLINGER_TRANSACTIONS 94

typedef struct proto_sf_state proto_sf_state;

/* A surfaceflinger_transactions field of packet `info` at ts; *state is
 * created on first use. */
int proto_sf_transactions_parse(import_file *f, proto_sf_state **state,
                                const proto_packet_info *info, int64_t ts, proto_span msg);
/* A surfaceflinger_layers_snapshot field (proto_winscope_sf_layers.c). */
int proto_sf_layers_parse(import_file *f, proto_sf_state **state, const proto_packet_info *info,
                          int64_t ts, proto_span msg);
void proto_sf_free(proto_sf_state *s);

/* Shared by the two files: creates *state on first use; the map from a
 * rect's value hash to its row in __intrinsic_winscope_rect. */
int proto_sf_state_get(import_file *f, proto_sf_state **state);
base_map *proto_sf_rects(proto_sf_state *s);

#endif
