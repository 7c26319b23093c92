/* knet: kernel network events (Perfetto's rules), shared by the ftrace
 * importers. Owns the per-machine TCP stream numbers and the per-device byte
 * totals (at most KNET_MAX_KEYS of each: past it, events of new sockets or
 * devices are ignored, a bound against hostile input).
 * Rules:
 *  - inet_sock_set_state: only TCP (protocol 6) over IPv4/IPv6 (family 2 or
 *    10) with both states below TCP_MAX_STATES (13). Each socket address
 *    gets the next stream number of its machine (1, 2...) the first time it
 *    is seen; its states are slices (category "tcp_state") on "TCP
 *    stream#N" (type net_socket_set_state, dimension tcp_stream_idx = N):
 *    a new state ends the open one and begins itself. Names: the state
 *    ("TCP_UNKNOWN" for 0 ... "TCP_NEW_SYN_RECV"), with "(pid=P)" for
 *    TCP_SYN_SENT and "(sport=S,dport=D)" for TCP_ESTABLISHED.
 *  - tcp_retransmit_skb: an instant "sport=S,dport=D" (category tcp_event)
 *    on "TCP Retransmit Skb" (type net_tcp_retransmit_skb).
 *  - napi_gro_receive_entry / _exit: a slice named after the device
 *    (category napi_gro, arg len) on the cpu track "Napi Gro Cpu N" (type
 *    cpu_napi_gro); the exit ends it and adds arg ret.
 *  - netif_receive_skb / net_dev_xmit (rc 0 only): the device's running
 *    byte total in whole KiB on "<dev> Received KB" / "<dev> Transmitted KB"
 *    (cut at 254 bytes)
 *    (types net_receive / net_transmit, dimension network_interface), each
 *    value with args cpu and len.
 *  - kfree_skb of an IP / IPv6 packet (protocol 0x800 / 0x86DD): the
 *    machine's running count on "Kfree Skb IP Prot" (type net_kfree_skb)
 *    with arg protocol "IP" / "IPV6". */
#ifndef WEFT_MODEL_KNET_H
#define WEFT_MODEL_KNET_H

#include "model/sched.h"

#define KNET_MAX_KEYS 65536

typedef struct knet_state knet_state;
void knet_state_free(knet_state *k);

/* An inet_sock_set_state event. */
typedef struct knet_sock_state {
  uint64_t skaddr;
  int64_t protocol, family, oldstate, newstate;
  uint32_t sport, dport;
} knet_sock_state;

int knet_sock_set_state(trace_context *ctx, const kernel_scope *s, int64_t ts, int64_t pid,
                        const knet_sock_state *e);
int knet_tcp_retransmit(trace_context *ctx, const kernel_scope *s, int64_t ts,
                        uint32_t sport, uint32_t dport);
/* napi_gro_receive_entry (name, len) or _exit (ret: value). */
int knet_napi_gro(trace_context *ctx, const kernel_scope *s, int64_t ts, uint32_t cpu,
                  int is_entry, const char *name, size_t len, int64_t value);
/* netif_receive_skb (is_transmit 0) / net_dev_xmit (1) of `bytes`. */
int knet_bytes(trace_context *ctx, const kernel_scope *s, int64_t ts, uint32_t cpu,
               int is_transmit, const char *dev, size_t len, uint64_t bytes);
int knet_kfree_skb(trace_context *ctx, const kernel_scope *s, int64_t ts, uint64_t protocol);

#endif
