/* Process args accumulated over a load (model.h: model_process_args_*).
 * Each process's args form a chain through `next` in one vector, found by
 * the map; a key given again is updated in its chain, so adding costs the
 * length of one process's chain. */
#include "model/context.h"
#include "model/model.h"

#define PROCESS_ARGS_END UINT32_MAX

typedef struct process_arg {
  uint32_t upid, next; /* the next arg of the process, or PROCESS_ARGS_END */
  model_arg arg;
} process_arg;

typedef struct model_process_args {
  VEC(process_arg) args;
  base_map heads; /* upid -> index of its first arg */
  base_map tails; /* upid -> index of its last arg */
} model_process_args;

static model_process_args *process_args_state(model_state *m) {
  if (!m->process_args) m->process_args = base_calloc(1, sizeof *m->process_args);
  return m->process_args;
}

/* The arg of the process with this key, or NULL. */
static process_arg *process_args_find(model_process_args *p, uint32_t upid, string_id key) {
  uint64_t *head = base_map_find(&p->heads, upid);
  for (uint32_t i = head ? (uint32_t)*head : PROCESS_ARGS_END; i != PROCESS_ARGS_END;
       i = p->args.data[i].next)
    if (p->args.data[i].arg.key == key) return &p->args.data[i];
  return NULL;
}

static int process_args_append(model_process_args *p, uint32_t upid, const model_arg *a) {
  process_arg e = {upid, PROCESS_ARGS_END, *a};
  uint32_t index = (uint32_t)p->args.len;
  if (VEC_PUSH(p->args, e)) return WEFT_ENOMEM;
  uint64_t *slot;
  int inserted = base_map_insert(&p->tails, upid, index, &slot);
  if (inserted < 0) return inserted;
  if (!inserted) {
    p->args.data[*slot].next = index;
    *slot = index;
    return WEFT_OK;
  }
  inserted = base_map_insert(&p->heads, upid, index, &slot);
  return inserted < 0 ? inserted : WEFT_OK;
}

int model_process_args_add(trace_context *ctx, uint32_t upid) {
  model_state *m = &ctx->model;
  model_process_args *p = process_args_state(m);
  int rc = p ? WEFT_OK : WEFT_ENOMEM;
  for (size_t i = 0; !rc && i < m->pending_args.len; i++) {
    const model_arg *a = &m->pending_args.data[i];
    process_arg *known = process_args_find(p, upid, a->key);
    if (known) known->arg = *a;
    else rc = process_args_append(p, upid, a);
  }
  model_args_discard(ctx);
  return rc;
}

/* Gives the process its accumulated args as its arg set. */
static int process_args_write(trace_context *ctx, model_process_args *p, uint32_t upid,
                              uint32_t head) {
  model_state *m = &ctx->model;
  int rc = WEFT_OK;
  for (uint32_t i = head; !rc && i != PROCESS_ARGS_END; i = p->args.data[i].next)
    rc = VEC_PUSH(m->pending_args, p->args.data[i].arg);
  if (rc) {
    model_args_discard(ctx);
    return WEFT_ENOMEM;
  }
  int64_t set;
  rc = model_args_commit(ctx, &set);
  if (!rc) model_process_set_args(ctx, upid, set);
  return rc;
}

int model_process_args_flush(trace_context *ctx) {
  model_process_args *p = ctx->model.process_args;
  if (!p) return WEFT_OK;
  int rc = WEFT_OK;
  /* in the order the processes got their first arg */
  for (size_t i = 0; !rc && i < p->args.len; i++) {
    uint32_t upid = p->args.data[i].upid;
    uint64_t *head = base_map_find(&p->heads, upid);
    if (head && *head == i) rc = process_args_write(ctx, p, upid, (uint32_t)i);
  }
  model_process_args_free(&ctx->model);
  return rc;
}

void model_process_args_free(model_state *m) {
  model_process_args *p = m->process_args;
  if (!p) return;
  VEC_FREE(p->args);
  base_map_free(&p->heads);
  base_map_free(&p->tails);
  base_free(p);
  m->process_args = NULL;
}
