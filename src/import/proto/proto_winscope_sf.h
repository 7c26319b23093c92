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
 *  - surfaceflinger_layers_snapshot (LayersSnapshotProto): a snapshot row
 *    (packet time, trusted_packet_sequence_id, has_invalid_elapsed_ts when
 *    elapsed_realtime_nanos is 0, base64, args of every field but layers);
 *    a display row per display with a trace rect (group = layer_stack,
 *    depth = index) on its layer stack space rect, or when empty its size
 *    (swapped by a 90/270 rotation); is_on unless layer_stack is
 *    0xffffffff (absent 0). Then the layers:
 *     - order, top to bottom: roots (no parent or parent -1, no z-order
 *       relative) by z then id, highest first; under each layer the layers
 *       z-order relative to it (else its children), those with z at or
 *       above its own z before it, the others after; unreached layers have
 *       no visibility and no rects;
 *     - visibility, top to bottom: not hidden by policy (flag 0x1, or id
 *       0x7ffffffd) nor by an ancestor's, color alpha > 0, a non-empty
 *       buffer or effects (shadow, valid color), a visible region (when
 *       excludes_composition_state, default true: non-empty bounds; else a
 *       non-empty visible_region rect); then occluded by each opaque layer
 *       above on the same layer stack that contains it (screen bounds
 *       cropped by the display's layer stack space rect; the occluder's
 *       invalid rotation excludes it) with a corner radius not above its
 *       own, partially by the other overlapping opaque ones, covered by
 *       overlapping translucent ones; args visibility_reason[i] (in a fixed
 *       order of checks), occluded_by[i], partially_occluded_by[i],
 *       covered_by[i];
 *     - rects, bottom to top, depth per layer stack from 1 where a display
 *       has it (else 0): a layer rect on its bounds for a layer with screen
 *       bounds, unless it is not visible and its screen bounds are ~equal
 *       to +-10x a display size (or the largest, as is or rotated) or
 *       +-50000 (opacity its color alpha, else 0 when visible; border when
 *       border_settings' stroke_width > 0); an input rect for a layer with
 *       input_window_info: its frame through the display transform
 *       (rotations moved by the layer stack space rect's size) and the
 *       layer transform's inverse, cropped to the display when empty, a
 *       wallpaper or ~invalid bounds; visible from `visible` or the
 *       computed visibility; spy from input_config; fill region: one empty
 *       rect when not touchable, else the touchable region's rects taken
 *       the same way. Rects and transforms are stored once per value.
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
base_map *proto_sf_transforms(proto_sf_state *s); /* the same for transforms */

#endif
