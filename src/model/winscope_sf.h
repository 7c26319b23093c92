/* winscope_sf: the SurfaceFlinger winscope tables (transactions; layers
 * snapshots), one row per traced message or change; the message's fields
 * are its args (the importer commits them). */
#ifndef WEFT_MODEL_WINSCOPE_SF_H
#define WEFT_MODEL_WINSCOPE_SF_H

#include "model/context.h"
#include "model/model.h"

/* A TransactionTraceEntry at ts; *row its id. arg_set -1: none;
 * base64_proto STRING_NULL: none. */
int model_sf_transactions_add(trace_context *ctx, int64_t ts, int64_t arg_set,
                              string_id base64_proto, int64_t vsync_id, uint32_t *row);

/* Which optional columns of a transaction change are set. */
enum {
  MODEL_SF_HAS_TRANSACTION = 1, /* transaction_id, pid, uid */
  MODEL_SF_HAS_LAYER = 2,
  MODEL_SF_HAS_DISPLAY = 4,
  MODEL_SF_HAS_FLAGS = 8,
};

/* One change of entry `snapshot_id`. */
typedef struct model_sf_transaction {
  uint32_t snapshot_id;
  unsigned has; /* MODEL_SF_HAS_* */
  int64_t arg_set;         /* -1: none */
  string_id base64_proto;  /* STRING_NULL: none */
  string_id type;
  int64_t transaction_id, pid, uid, layer_id, display_id, flags_id;
} model_sf_transaction;

int model_sf_transaction_add(trace_context *ctx, const model_sf_transaction *t);
/* Flag `flag` is one of those of flags_id. */
int model_sf_transaction_flag_add(trace_context *ctx, int64_t flags_id, string_id flag);

#endif
