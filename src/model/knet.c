/* Kernel network events. See knet.h. */
#include "model/knet.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "model/context.h"
#include "model/model.h"

struct knet_state {
  base_map streams;  /* hash(machine, skaddr) -> stream number */
  base_map bytes;    /* hash(machine, direction, device) -> byte total */
  base_map kfree;    /* machine + 1 -> kfree_skb count */
  base_map next_stream; /* machine + 1 -> last stream number */
};

void knet_state_free(knet_state *k) {
  if (!k) return;
  base_map_free(&k->streams);
  base_map_free(&k->bytes);
  base_map_free(&k->kfree);
  base_map_free(&k->next_stream);
  base_free(k);
}

static int knet_get(trace_context *ctx, knet_state **out) {
  if (!ctx->model.knet) {
    ctx->model.knet = base_calloc(1, sizeof(knet_state));
    if (!ctx->model.knet) return WEFT_ENOMEM;
  }
  *out = ctx->model.knet;
  return WEFT_OK;
}

/* ---- TCP socket states ---- */

#define KNET_TCP_MAX_STATES 13
static const char *const knet_tcp_states[KNET_TCP_MAX_STATES] = {
    "TCP_UNKNOWN",   "TCP_ESTABLISHED", "TCP_SYN_SENT", "TCP_SYN_RECV",   "TCP_FIN_WAIT1",
    "TCP_FIN_WAIT2", "TCP_TIME_WAIT",   "TCP_CLOSE",    "TCP_CLOSE_WAIT", "TCP_LAST_ACK",
    "TCP_LISTEN",    "TCP_CLOSING",     "TCP_NEW_SYN_RECV"};
enum { KNET_TCP_ESTABLISHED = 1, KNET_TCP_SYN_SENT = 2 };

/* The stream number of a socket (a new one when first seen); 0 past the
 * bound. */
static int knet_stream(knet_state *k, uint32_t machine, uint64_t skaddr, uint64_t *stream) {
  uint64_t key = base_hash_u64(skaddr ^ base_hash_u64((uint64_t)machine + 1));
  uint64_t *slot = base_map_find(&k->streams, key);
  *stream = slot ? *slot : 0;
  if (slot || k->streams.count >= KNET_MAX_KEYS) return WEFT_OK;
  uint64_t *last;
  if (base_map_insert(&k->next_stream, (uint64_t)machine + 1, 0, &last) < 0) return WEFT_ENOMEM;
  *stream = ++*last;
  return base_map_insert(&k->streams, key, *stream, &slot) < 0 ? WEFT_ENOMEM : WEFT_OK;
}

static int knet_stream_track(trace_context *ctx, const kernel_scope *s, uint64_t stream,
                             uint32_t *track) {
  char name[40];
  snprintf(name, sizeof name, "TCP stream#%" PRIu64, stream);
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.name = name;
  spec.type = "net_socket_set_state";
  spec.machine = s->machine;
  spec.extra_key = stream;
  spec.dim_key = "tcp_stream_idx";
  spec.dim_int = (int64_t)stream;
  return model_track(ctx, &spec, track);
}

int knet_sock_set_state(trace_context *ctx, const kernel_scope *s, int64_t ts, int64_t pid,
                        const knet_sock_state *e) {
  if (e->protocol != 6 || (e->family != 2 && e->family != 10)) return WEFT_OK;
  if (e->newstate < 0 || e->newstate >= KNET_TCP_MAX_STATES || e->oldstate < 0 ||
      e->oldstate >= KNET_TCP_MAX_STATES)
    return WEFT_OK;
  knet_state *k;
  uint64_t stream;
  uint32_t track, slice;
  int rc = knet_get(ctx, &k);
  if (!rc) rc = knet_stream(k, s->machine, e->skaddr, &stream);
  if (rc || stream == 0) return rc;
  const char *state = knet_tcp_states[e->newstate];
  char name[96];
  if (e->newstate == KNET_TCP_SYN_SENT)
    snprintf(name, sizeof name, "%s(pid=%" PRIu32 ")", state, (uint32_t)pid);
  else if (e->newstate == KNET_TCP_ESTABLISHED)
    snprintf(name, sizeof name, "%s(sport=%" PRIu32 ",dport=%" PRIu32 ")", state, e->sport,
             e->dport);
  else
    snprintf(name, sizeof name, "%s", state);
  string_id name_id, category;
  int64_t ended;
  rc = knet_stream_track(ctx, s, stream, &track);
  if (!rc) rc = model_slice_end(ctx, track, ts, &ended);
  if (!rc) rc = ctx_intern(ctx, name, strlen(name), &name_id);
  if (!rc) rc = ctx_intern(ctx, "tcp_state", 9, &category);
  return rc ? rc : model_slice_begin(ctx, track, ts, category, name_id, -1, &slice);
}

int knet_tcp_retransmit(trace_context *ctx, const kernel_scope *s, int64_t ts,
                        uint32_t sport, uint32_t dport) {
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.name = "TCP Retransmit Skb";
  spec.type = "net_tcp_retransmit_skb";
  spec.machine = s->machine;
  char name[64];
  snprintf(name, sizeof name, "sport=%" PRIu32 ",dport=%" PRIu32, sport, dport);
  uint32_t track, slice;
  string_id name_id, category;
  int rc = model_track(ctx, &spec, &track);
  if (!rc) rc = ctx_intern(ctx, name, strlen(name), &name_id);
  if (!rc) rc = ctx_intern(ctx, "tcp_event", 9, &category);
  return rc ? rc : model_slice_complete(ctx, track, ts, 0, category, name_id, -1, &slice);
}

/* ---- NAPI GRO ---- */

static int knet_napi_track(trace_context *ctx, const kernel_scope *s, uint32_t cpu,
                           uint32_t *track) {
  uint32_t ucpu;
  int rc = sched_ucpu(ctx, s->machine, cpu, &ucpu);
  if (rc) return rc;
  char name[40];
  snprintf(name, sizeof name, "Napi Gro Cpu %" PRIu32, cpu);
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.name = name;
  spec.type = "cpu_napi_gro";
  spec.machine = s->machine;
  spec.cpu = ucpu;
  spec.cpu_number = cpu;
  return model_track(ctx, &spec, track);
}

/* Adds arg `key` = value to the args of the slice that just ended. */
static int knet_end_arg(trace_context *ctx, int64_t ended, const char *key, int64_t value) {
  if (ended < 0) return WEFT_OK;
  storage_table *t = ctx_table(ctx, TABLE_SLICE);
  int rc = model_args_reopen(ctx, storage_get_i64_or(t, SLICE_arg_set_id, (size_t)ended, -1));
  if (!rc) rc = model_arg_int(ctx, key, strlen(key), MODEL_ARG_INT, value);
  int64_t args = -1;
  if (!rc) rc = model_args_commit(ctx, &args);
  else model_args_discard(ctx);
  if (!rc) model_slice_set_args(ctx, (uint32_t)ended, args);
  return rc;
}

int knet_napi_gro(trace_context *ctx, const kernel_scope *s, int64_t ts, uint32_t cpu,
                  int is_entry, const char *name, size_t len, int64_t value) {
  uint32_t track, slice;
  int64_t ended, args = -1;
  int rc = knet_napi_track(ctx, s, cpu, &track);
  if (rc) return rc;
  if (!is_entry) {
    rc = model_slice_end(ctx, track, ts, &ended);
    return rc ? rc : knet_end_arg(ctx, ended, "ret", value);
  }
  string_id name_id, category;
  rc = ctx_intern(ctx, name ? name : "", name ? len : 0, &name_id);
  if (!rc) rc = ctx_intern(ctx, "napi_gro", 8, &category);
  if (!rc) rc = model_arg_int(ctx, "len", 3, MODEL_ARG_INT, value);
  if (!rc) rc = model_args_commit(ctx, &args);
  return rc ? rc : model_slice_begin(ctx, track, ts, category, name_id, args, &slice);
}

/* ---- device byte counters ---- */

#define KNET_MAX_DEVICE 1024
#define KNET_MAX_COUNTER_NAME 254 /* longer names are cut, as in Perfetto */

int knet_bytes(trace_context *ctx, const kernel_scope *s, int64_t ts, uint32_t cpu,
               int is_transmit, const char *dev, size_t len, uint64_t bytes) {
  knet_state *k;
  int rc = knet_get(ctx, &k);
  if (rc) return rc;
  if (len > KNET_MAX_DEVICE) len = KNET_MAX_DEVICE;
  char device[KNET_MAX_DEVICE + 1], name[KNET_MAX_COUNTER_NAME + 1];
  memcpy(device, dev ? dev : "", dev ? len : 0);
  device[dev ? len : 0] = '\0';
  uint64_t key = base_hash_bytes(device, strlen(device)) ^
                 base_hash_u64(((uint64_t)s->machine << 1 | (uint64_t)is_transmit) + 1);
  uint64_t *total = base_map_find(&k->bytes, key);
  if (!total && k->bytes.count >= KNET_MAX_KEYS) return WEFT_OK;
  if (!total && base_map_insert(&k->bytes, key, 0, &total) < 0) return WEFT_ENOMEM;
  *total += bytes;
  snprintf(name, sizeof name, "%s %s KB", device, is_transmit ? "Transmitted" : "Received");
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.name = name;
  spec.type = is_transmit ? "net_transmit" : "net_receive";
  spec.is_counter = 1;
  spec.machine = s->machine;
  spec.dim_key = "network_interface";
  spec.dim_str = device;
  uint32_t track;
  int64_t args = -1;
  rc = model_track(ctx, &spec, &track);
  if (!rc) rc = model_arg_int(ctx, "cpu", 3, MODEL_ARG_UINT, cpu);
  if (!rc) rc = model_arg_int(ctx, "len", 3, MODEL_ARG_UINT, (int64_t)bytes);
  if (!rc) rc = model_args_commit(ctx, &args);
  else model_args_discard(ctx);
  return rc ? rc : model_counter(ctx, track, ts, (double)(*total / 1024), args);
}

/* ---- kfree_skb ---- */

int knet_kfree_skb(trace_context *ctx, const kernel_scope *s, int64_t ts, uint64_t protocol) {
  if (protocol != 0x800 && protocol != 0x86DD) return WEFT_OK;
  knet_state *k;
  uint64_t *count;
  int rc = knet_get(ctx, &k);
  if (rc) return rc;
  if (base_map_insert(&k->kfree, (uint64_t)s->machine + 1, 0, &count) < 0) return WEFT_ENOMEM;
  *count += 1;
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.name = "Kfree Skb IP Prot";
  spec.type = "net_kfree_skb";
  spec.is_counter = 1;
  spec.machine = s->machine;
  uint32_t track;
  int64_t args = -1;
  const char *prot = protocol == 0x800 ? "IP" : "IPV6";
  rc = model_track(ctx, &spec, &track);
  if (!rc) rc = model_arg_string(ctx, "protocol", 8, prot, strlen(prot), MODEL_ARG_STRING);
  if (!rc) rc = model_args_commit(ctx, &args);
  else model_args_discard(ctx);
  return rc ? rc : model_counter(ctx, track, ts, (double)*count, args);
}
