/* Network, device and memory ftrace events. See proto_ftrace_dev.h. */
#include "import/proto/proto_ftrace_dev.h"

#include "import/proto/proto_wire.h"
#include "import/proto/proto_fields.h"
#include "model/gpu.h"
#include "model/kcounter.h"
#include "model/ki2c.h"
#include "model/kpower.h"
#include "model/kslice.h"
#include "model/sched.h"
#include "model/kdev.h"
#include "model/kmem.h"
#include "model/knet.h"
#include "model/kv4l2.h"
#include "model/kvirtio.h"

/* FtraceEvent field numbers (ftrace_event.proto). */
enum {
  PROTO_FTRACE_NETIF_RECEIVE_SKB = 360,
  PROTO_FTRACE_NET_DEV_XMIT = 361,
  PROTO_FTRACE_INET_SOCK_SET_STATE = 362,
  PROTO_FTRACE_TCP_RETRANSMIT_SKB = 363,
  PROTO_FTRACE_CROS_EC_SENSORHUB_DATA = 364,
  PROTO_FTRACE_NAPI_GRO_RECEIVE_ENTRY = 365,
  PROTO_FTRACE_NAPI_GRO_RECEIVE_EXIT = 366,
  PROTO_FTRACE_KFREE_SKB = 367,
  PROTO_FTRACE_UFSHCD_COMMAND = 406,
  PROTO_FTRACE_UFSHCD_CLK_GATING = 407,
  PROTO_FTRACE_F2FS_IOSTAT = 419,
  PROTO_FTRACE_F2FS_IOSTAT_LATENCY = 420,
  PROTO_FTRACE_V4L2_QBUF = 422,
  PROTO_FTRACE_V4L2_DQBUF = 423,
  PROTO_FTRACE_VB2_V4L2_BUF_QUEUE = 424,
  PROTO_FTRACE_VB2_V4L2_BUF_DONE = 425,
  PROTO_FTRACE_VB2_V4L2_QBUF = 426,
  PROTO_FTRACE_VB2_V4L2_DQBUF = 427,
  PROTO_FTRACE_VIRTIO_VIDEO_CMD = 439,
  PROTO_FTRACE_VIRTIO_VIDEO_CMD_DONE = 440,
  PROTO_FTRACE_VIRTIO_VIDEO_RESOURCE_QUEUE = 441,
  PROTO_FTRACE_VIRTIO_VIDEO_RESOURCE_QUEUE_DONE = 442,
  PROTO_FTRACE_CMA_ALLOC_START = 465,
  PROTO_FTRACE_CMA_ALLOC_INFO = 466,
  PROTO_FTRACE_CMA_ALLOC_FINISH = 576,
  PROTO_FTRACE_MM_ALLOC_CONTIG_MIGRATE_RANGE_INFO = 577,
  PROTO_FTRACE_ION_HEAP_SHRINK = 314,
  PROTO_FTRACE_ION_HEAP_GROW = 315,
  PROTO_FTRACE_MM_EVENT_RECORD = 328
};

#define DEV_STR(fs, n) (const char *)(fs)->s[n].data, (fs)->s[n].len
#define DEV_I32(fs, n) ((int64_t)(int32_t)(uint32_t)(fs)->v[n])
#define DEV_U32(fs, n) ((uint32_t)(fs)->v[n])
#define HAS_DEV(fs, n) (((fs)->has >> (n)) & 1u)

/* The varint fields 1..PROTO_FTRACE_DEV_WIDE-1 of an event message, last
 * wins (the events wider than proto_ftrace_fields). */
#define PROTO_FTRACE_DEV_WIDE 32

static void proto_ftrace_dev_wide(proto_span msg, uint64_t *v) {
  memset(v, 0, PROTO_FTRACE_DEV_WIDE * sizeof *v);
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1)
    if (fl.number < PROTO_FTRACE_DEV_WIDE && fl.wire_type == PROTO_WIRE_VARINT)
      v[fl.number] = fl.value;
}

/* ---- network ---- */

static int proto_ftrace_dev_sock(trace_context *ctx, const kernel_scope *sc, int64_t ts,
                                 int64_t pid, const proto_ftrace_fields *fs) {
  knet_sock_state e;
  e.skaddr = fs->v[8];
  e.protocol = (int64_t)fs->v[6];
  e.family = (int64_t)fs->v[3];
  e.oldstate = DEV_I32(fs, 5);
  e.newstate = DEV_I32(fs, 4);
  e.sport = DEV_U32(fs, 9);
  e.dport = DEV_U32(fs, 2);
  return knet_sock_set_state(ctx, sc, ts, pid, &e);
}

static int proto_ftrace_dev_net(trace_context *ctx, const kernel_scope *sc, int64_t ts,
                                int64_t pid, uint32_t cpu, uint32_t id,
                                const proto_ftrace_fields *fs) {
  switch (id) {
    case PROTO_FTRACE_NETIF_RECEIVE_SKB:
      return knet_bytes(ctx, sc, ts, cpu, 0, DEV_STR(fs, 2), DEV_U32(fs, 1));
    case PROTO_FTRACE_NET_DEV_XMIT: /* only packets the driver took */
      return DEV_I32(fs, 3) ? WEFT_OK : knet_bytes(ctx, sc, ts, cpu, 1, DEV_STR(fs, 2),
                                                   DEV_U32(fs, 1));
    case PROTO_FTRACE_INET_SOCK_SET_STATE: return proto_ftrace_dev_sock(ctx, sc, ts, pid, fs);
    case PROTO_FTRACE_TCP_RETRANSMIT_SKB:
      return knet_tcp_retransmit(ctx, sc, ts, DEV_U32(fs, 6), DEV_U32(fs, 2));
    case PROTO_FTRACE_NAPI_GRO_RECEIVE_ENTRY:
      return knet_napi_gro(ctx, sc, ts, cpu, 1, DEV_STR(fs, 10), DEV_U32(fs, 7));
    case PROTO_FTRACE_NAPI_GRO_RECEIVE_EXIT:
      return knet_napi_gro(ctx, sc, ts, cpu, 0, NULL, 0, DEV_I32(fs, 1));
    case PROTO_FTRACE_KFREE_SKB: return knet_kfree_skb(ctx, sc, ts, DEV_U32(fs, 2));
    default: return WEFT_OK;
  }
}

/* ---- f2fs ---- */

typedef struct proto_ftrace_dev_counter {
  uint8_t field;
  const char *key;
} proto_ftrace_dev_counter;

static const proto_ftrace_dev_counter proto_ftrace_dev_iostat[] = {
    {8, "write_app_total"},   {3, "write_app_direct"},  {1, "write_app_buffered"},
    {5, "write_app_mapped"},  {14, "write_fs_data"},    {22, "write_fs_node"},
    {20, "write_fs_meta"},    {17, "write_gc_data"},    {18, "write_gc_node"},
    {11, "write_cp_data"},    {13, "write_cp_node"},    {12, "write_cp_meta"},
    {7, "read_app_total"},    {4, "read_app_direct"},   {2, "read_app_buffered"},
    {6, "read_app_mapped"},   {16, "read_fs_data"},     {19, "read_fs_gdata"},
    {10, "read_fs_cdata"},    {23, "read_fs_node"},     {21, "read_fs_meta"},
    {15, "other_fs_discard"}};
#define PROTO_FTRACE_DEV_IOSTAT_DEV 9

static const proto_ftrace_dev_counter proto_ftrace_dev_latency[] = {
    {3, "read_data_peak"},        {1, "read_data_avg"},         {2, "read_data_cnt"},
    {22, "read_node_peak"},       {20, "read_node_avg"},        {21, "read_node_cnt"},
    {13, "read_meta_peak"},       {11, "read_meta_avg"},        {12, "read_meta_cnt"},
    {9, "write_sync_data_peak"},  {7, "write_sync_data_avg"},   {8, "write_sync_data_cnt"},
    {28, "write_sync_node_peak"}, {26, "write_sync_node_avg"},  {27, "write_sync_node_cnt"},
    {19, "write_sync_meta_peak"}, {17, "write_sync_meta_avg"},  {18, "write_sync_meta_cnt"},
    {6, "write_async_data_peak"}, {4, "write_async_data_avg"},  {5, "write_async_data_cnt"},
    {25, "write_async_node_peak"}, {23, "write_async_node_avg"}, {24, "write_async_node_cnt"},
    {16, "write_async_meta_peak"}, {14, "write_async_meta_avg"}, {15, "write_async_meta_cnt"}};
#define PROTO_FTRACE_DEV_LATENCY_DEV 10

static int proto_ftrace_dev_f2fs(trace_context *ctx, const kernel_scope *sc, int64_t ts,
                                 int latency, proto_span payload) {
  uint64_t v[PROTO_FTRACE_DEV_WIDE];
  proto_ftrace_dev_wide(payload, v);
  const proto_ftrace_dev_counter *c = latency ? proto_ftrace_dev_latency : proto_ftrace_dev_iostat;
  size_t n = latency ? sizeof proto_ftrace_dev_latency / sizeof *c
                     : sizeof proto_ftrace_dev_iostat / sizeof *c;
  const char *event = latency ? "f2fs_iostat_latency" : "f2fs_iostat";
  uint64_t dev = v[latency ? PROTO_FTRACE_DEV_LATENCY_DEV : PROTO_FTRACE_DEV_IOSTAT_DEV];
  int rc = WEFT_OK;
  for (size_t i = 0; !rc && i < n; i++)
    rc = kdev_f2fs_counter(ctx, sc, ts, event, dev, c[i].key, (double)v[c[i].field]);
  return rc;
}

/* ---- V4L2 ---- */

/* The field numbers of a buffer event's fields (0: it has none). */
typedef struct proto_ftrace_dev_v4l2_layout {
  uint8_t index, type, bytesused, flags, field, minor, sequence, timestamp;
  uint8_t tc_type, tc_flags, tc_frames, tc_seconds, tc_minutes, tc_hours, tc_userbits0;
} proto_ftrace_dev_v4l2_layout;

static const proto_ftrace_dev_v4l2_layout proto_ftrace_dev_v4l2 = {
    4, 18, 1, 3, 2, 5, 6, 17, 12, 7, 8, 11, 10, 9, 13};
static const proto_ftrace_dev_v4l2_layout proto_ftrace_dev_vb2 = {
    0, 0, 0, 2, 1, 3, 4, 15, 10, 5, 6, 9, 8, 7, 11};

static int proto_ftrace_dev_buffer(trace_context *ctx, const kernel_scope *sc, int64_t ts,
                                   int64_t pid, uint32_t id, proto_span payload) {
  uint64_t v[PROTO_FTRACE_DEV_WIDE];
  proto_ftrace_dev_wide(payload, v);
  int is_v4l2 = id == PROTO_FTRACE_V4L2_QBUF || id == PROTO_FTRACE_V4L2_DQBUF;
  const proto_ftrace_dev_v4l2_layout *l = is_v4l2 ? &proto_ftrace_dev_v4l2 : &proto_ftrace_dev_vb2;
  kv4l2_buffer b;
  memset(&b, 0, sizeof b);
  b.minor = (int32_t)(uint32_t)v[l->minor];
  b.timestamp = (int64_t)v[l->timestamp];
  b.index = (uint32_t)v[l->index]; /* v[0] is 0 */
  b.type = (uint32_t)v[l->type];
  b.bytesused = (uint32_t)v[l->bytesused];
  b.flags = (uint32_t)v[l->flags];
  b.field = (uint32_t)v[l->field];
  b.sequence = (uint32_t)v[l->sequence];
  b.timecode_type = (uint32_t)v[l->tc_type];
  b.timecode_flags = (uint32_t)v[l->tc_flags];
  b.timecode_frames = (uint32_t)v[l->tc_frames];
  b.timecode_seconds = (uint32_t)v[l->tc_seconds];
  b.timecode_minutes = (uint32_t)v[l->tc_minutes];
  b.timecode_hours = (uint32_t)v[l->tc_hours];
  for (int i = 0; i < 4; i++) b.timecode_userbits[i] = (uint32_t)v[l->tc_userbits0 + i];
  kv4l2_kind kind = (kv4l2_kind)(id - PROTO_FTRACE_V4L2_QBUF);
  return kv4l2_event(ctx, sc, ts, pid, kind, &b);
}

/* ---- virtio-video ---- */

/* resource_queue(_done): data_size0..3 1-4, queue_type 5, resource_id 6,
 * stream_id 7, timestamp 8 */
static int proto_ftrace_dev_virtio_queue(trace_context *ctx, const kernel_scope *sc, int64_t ts,
                                         uint32_t id, const proto_ftrace_fields *fs) {
  kvirtio_queue_event e;
  e.done = id == PROTO_FTRACE_VIRTIO_VIDEO_RESOURCE_QUEUE_DONE;
  for (int i = 0; i < 4; i++) e.data_size[i] = DEV_U32(fs, 1 + i);
  e.queue_type = DEV_U32(fs, 5);
  e.resource_id = (int32_t)DEV_U32(fs, 6);
  e.stream_id = (int32_t)DEV_U32(fs, 7);
  e.timestamp = fs->v[8];
  return kvirtio_queue(ctx, sc, ts, &e);
}

/* ---- CMA ---- */

static int proto_ftrace_dev_cma(trace_context *ctx, const kernel_scope *sc, int64_t ts,
                                int64_t pid, uint32_t id, const proto_ftrace_fields *fs) {
  kdev_cma_event e;
  memset(&e, 0, sizeof e);
  switch (id) {
    case PROTO_FTRACE_CMA_ALLOC_START: return kdev_cma(ctx, sc, ts, pid, KDEV_CMA_START, &e);
    case PROTO_FTRACE_CMA_ALLOC_INFO:
      e.name = (const char *)fs->s[6].data;
      e.name_len = fs->s[6].len;
      e.count = fs->v[2];
      e.err_iso = fs->v[3];
      e.err_mig = fs->v[4];
      e.err_test = fs->v[5];
      e.nr_mapped = fs->v[7];
      e.nr_migrated = fs->v[8];
      e.nr_reclaimed = fs->v[9];
      e.pfn = fs->v[10];
      return kdev_cma(ctx, sc, ts, pid, KDEV_CMA_INFO, &e);
    case PROTO_FTRACE_CMA_ALLOC_FINISH:
      e.name = (const char *)fs->s[1].data;
      e.name_len = fs->s[1].len;
      e.pfn = fs->v[2];
      e.count = fs->v[4];
      return kdev_cma(ctx, sc, ts, pid, KDEV_CMA_FINISH, &e);
    case PROTO_FTRACE_MM_ALLOC_CONTIG_MIGRATE_RANGE_INFO:
      e.nr_migrated = fs->v[3];
      e.nr_reclaimed = fs->v[4];
      e.nr_mapped = fs->v[5];
      return kdev_cma(ctx, sc, ts, pid, KDEV_CMA_MIGRATE, &e);
    default: return WEFT_OK;
  }
}

int proto_ftrace_dev(trace_context *ctx, const kernel_scope *sc, int64_t ts, int64_t pid,
                     uint32_t cpu, uint32_t id, const proto_ftrace_fields *fs,
                     proto_span payload) {
  switch (id) {
    case PROTO_FTRACE_EVENT_DEVFREQ_FREQUENCY:
      return kcounter_device(ctx, sc, ts, KCOUNTER_DEVICE_FREQUENCY, DEV_STR(fs, 1),
                             (double)fs->v[2]);
    case PROTO_FTRACE_EVENT_KGSL_GPU_FREQUENCY:
      return gpu_counter(ctx, sc->machine, (uint32_t)fs->v[2], -1, "gpufreq", "gpu_frequency",
                         "kHz", ts, (double)(uint32_t)fs->v[1] * 1000.0);
    case PROTO_FTRACE_EVENT_LOCAL_TIMER_ENTRY:
    case PROTO_FTRACE_EVENT_LOCAL_TIMER_EXIT:
      return kslice_local_timer(ctx, sc, ts, cpu, id == PROTO_FTRACE_EVENT_LOCAL_TIMER_ENTRY);
    case PROTO_FTRACE_EVENT_HRTIMER_EXPIRE_ENTRY:
    case PROTO_FTRACE_EVENT_HRTIMER_EXPIRE_EXIT:
      return kslice_hrtimer(ctx, sc, ts, cpu, id == PROTO_FTRACE_EVENT_HRTIMER_EXPIRE_ENTRY,
                            fs->v[3]);
    case PROTO_FTRACE_EVENT_MM_VMSCAN_DIRECT_RECLAIM_BEGIN:
    case PROTO_FTRACE_EVENT_MM_VMSCAN_DIRECT_RECLAIM_END:
    case PROTO_FTRACE_EVENT_MM_VMSCAN_MEMCG_RECLAIM_BEGIN:
    case PROTO_FTRACE_EVENT_MM_VMSCAN_MEMCG_RECLAIM_END: {
      kslice_reclaim r = {id == PROTO_FTRACE_EVENT_MM_VMSCAN_DIRECT_RECLAIM_BEGIN ||
                              id == PROTO_FTRACE_EVENT_MM_VMSCAN_MEMCG_RECLAIM_BEGIN,
                          id == PROTO_FTRACE_EVENT_MM_VMSCAN_MEMCG_RECLAIM_BEGIN ||
                              id == PROTO_FTRACE_EVENT_MM_VMSCAN_MEMCG_RECLAIM_END,
                          DEV_I32(fs, 1), DEV_I32(fs, 2), fs->v[3], fs->v[1]};
      return kslice_reclaim_event(ctx, sc, ts, pid, &r);
    }
    case PROTO_FTRACE_EVENT_SCM_CALL_START: /* arginfo 1, x0 2, x5 3 */
    case PROTO_FTRACE_EVENT_SCM_CALL_END:
      return kslice_scm_call(ctx, sc, ts, pid, id == PROTO_FTRACE_EVENT_SCM_CALL_START, fs->v[2]);
    case PROTO_FTRACE_EVENT_RPM_STATUS:
      return kpower_rpm_status(ctx, sc, ts, DEV_STR(fs, 1), DEV_I32(fs, 2));
    case PROTO_FTRACE_EVENT_DCVSH_FREQ:
      return DEV_U32(fs, 1) >= SCHED_MAX_CPU
                 ? WEFT_OK
                 : sched_cpu_counter(ctx, sc, ts, DEV_U32(fs, 1), "cpufreq_throttle",
                                     "cpu_frequency_throttle", (double)fs->v[2]);
    case PROTO_FTRACE_EVENT_CPUHP_ENTER:
    case PROTO_FTRACE_EVENT_CPUHP_MULTI_ENTER: /* cpu 1, fun 2, idx 3, target 4 */
      return kslice_cpuhp(ctx, sc, ts, DEV_U32(fs, 1), cpu, 1, DEV_I32(fs, 3));
    case PROTO_FTRACE_EVENT_CPUHP_EXIT: /* cpu 1, idx 2, ret 3, state 4 */
      return kslice_cpuhp(ctx, sc, ts, DEV_U32(fs, 1), cpu, 0, DEV_I32(fs, 2));
    case PROTO_FTRACE_EVENT_RSS_STAT_THROTTLED: /* curr 1, member 2, mm_id 3, size 4 */
      return sched_rss_stat(ctx, sc, ts, pid, DEV_I32(fs, 2), (int64_t)fs->v[4],
                            HAS_DEV(fs, 1) ? (int64_t)(uint32_t)fs->v[1] : -1,
                            HAS_DEV(fs, 3) ? (int64_t)(uint32_t)fs->v[3] : -1);
    case PROTO_FTRACE_EVENT_I2C_READ:
    case PROTO_FTRACE_EVENT_I2C_WRITE:
      return ki2c_enter(ctx, sc, ts, pid, (uint32_t)fs->v[1], (uint32_t)fs->v[2]);
    case PROTO_FTRACE_EVENT_I2C_RESULT:
      return ki2c_exit(ctx, sc, ts, pid, (uint32_t)fs->v[1], (uint32_t)fs->v[2]);
    case PROTO_FTRACE_EVENT_SUSPEND_RESUME_MINIMAL:
      return kpower_suspend_resume_minimal(ctx, sc, ts, (uint32_t)fs->v[1] != 0);
    case PROTO_FTRACE_EVENT_DMABUF_RSS_STAT:
      return sched_dmabuf_rss(ctx, sc, ts, pid, (double)fs->v[1]);
    case PROTO_FTRACE_CROS_EC_SENSORHUB_DATA: {
      kdev_cros_ec_event e = {(int64_t)fs->v[1], (int64_t)fs->v[2], (int64_t)fs->v[6],
                        DEV_U32(fs, 5)};
      return kdev_cros_ec(ctx, sc, ts, &e);
    }
    case PROTO_FTRACE_UFSHCD_COMMAND: {
      kdev_ufs_command_event e = {fs->v[2], fs->v[10], fs->v[5], fs->v[9], DEV_U32(fs, 7)};
      return kdev_ufs_command(ctx, sc, ts, &e);
    }
    case PROTO_FTRACE_UFSHCD_CLK_GATING:
      return kdev_ufs_clk_gating(ctx, sc, ts, DEV_I32(fs, 2));
    case PROTO_FTRACE_F2FS_IOSTAT:
    case PROTO_FTRACE_F2FS_IOSTAT_LATENCY:
      return proto_ftrace_dev_f2fs(ctx, sc, ts, id == PROTO_FTRACE_F2FS_IOSTAT_LATENCY, payload);
    case PROTO_FTRACE_V4L2_QBUF:
    case PROTO_FTRACE_V4L2_DQBUF:
    case PROTO_FTRACE_VB2_V4L2_BUF_QUEUE:
    case PROTO_FTRACE_VB2_V4L2_BUF_DONE:
    case PROTO_FTRACE_VB2_V4L2_QBUF:
    case PROTO_FTRACE_VB2_V4L2_DQBUF:
      return proto_ftrace_dev_buffer(ctx, sc, ts, pid, id, payload);
    case PROTO_FTRACE_CMA_ALLOC_START:
    case PROTO_FTRACE_CMA_ALLOC_INFO:
    case PROTO_FTRACE_CMA_ALLOC_FINISH:
    case PROTO_FTRACE_MM_ALLOC_CONTIG_MIGRATE_RANGE_INFO:
      return proto_ftrace_dev_cma(ctx, sc, ts, pid, id, fs);
    case PROTO_FTRACE_VIRTIO_VIDEO_CMD: /* both: stream_id 1, type 2 */
    case PROTO_FTRACE_VIRTIO_VIDEO_CMD_DONE:
      return kvirtio_command(ctx, sc, ts, DEV_U32(fs, 1), DEV_U32(fs, 2),
                             id == PROTO_FTRACE_VIRTIO_VIDEO_CMD_DONE);
    case PROTO_FTRACE_VIRTIO_VIDEO_RESOURCE_QUEUE:
    case PROTO_FTRACE_VIRTIO_VIDEO_RESOURCE_QUEUE_DONE:
      return proto_ftrace_dev_virtio_queue(ctx, sc, ts, id, fs);
    case PROTO_FTRACE_EVENT_ION_STAT: /* both: buffer 1, len 2, total_allocated 3 */
    case PROTO_FTRACE_EVENT_DMA_HEAP_STAT:
      return kmem_heap_stat(ctx, sc, ts, pid,
                            id == PROTO_FTRACE_EVENT_ION_STAT ? KMEM_HEAP_ION : KMEM_HEAP_DMA,
                            fs->v[1], (int64_t)fs->v[2], fs->v[3]);
    case PROTO_FTRACE_ION_HEAP_GROW: /* both: heap_name 1, len 2, total_allocated 3 */
    case PROTO_FTRACE_ION_HEAP_SHRINK: {
      int64_t change = (int64_t)fs->v[2] * (id == PROTO_FTRACE_ION_HEAP_GROW ? 1 : -1);
      return kmem_ion_heap_change(ctx, sc, ts, pid, HAS_DEV(fs, 1) ? (const char *)fs->s[1].data : NULL,
                                  fs->s[1].len, change, (int64_t)fs->v[3]);
    }
    case PROTO_FTRACE_MM_EVENT_RECORD: /* avg_lat 1, count 2, max_lat 3, type 4 */
      return kcounter_mm_event(ctx, sc, ts, pid, DEV_U32(fs, 4), (double)DEV_U32(fs, 2),
                               (double)DEV_U32(fs, 3), (double)DEV_U32(fs, 1));
    case PROTO_FTRACE_EVENT_THERMAL_EXYNOS_ACPM_HIGH_OVERHEAD: /* tz_id is an int32 */
      return kcounter_acpm(ctx, sc, ts, (uint32_t)fs->v[1], (double)DEV_U32(fs, 2),
                           (double)DEV_U32(fs, 4));
    default: return proto_ftrace_dev_net(ctx, sc, ts, pid, cpu, id, fs);
  }
}

int proto_ftrace_acpm_time(proto_span event, int64_t *ts) {
  proto_reader r;
  proto_field fl, own;
  proto_reader_init_span(&r, event);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.wire_type != PROTO_WIRE_LEN) continue;
    if (fl.number != PROTO_FTRACE_EVENT_THERMAL_EXYNOS_ACPM_BULK) return 0;
    if (proto_find_last(fl.span.data, fl.span.len, PROTO_ACPM_BULK_TIMESTAMP, &own) != 1 ||
        own.wire_type != PROTO_WIRE_VARINT)
      return -1;
    *ts = (int64_t)own.value;
    return 1;
  }
  return 0;
}

int proto_ftrace_acpm_bulk(trace_context *ctx, const kernel_scope *sc, int64_t ts,
                           const proto_ftrace_fields *fs) {
  return kcounter_acpm(ctx, sc, ts, DEV_U32(fs, 1), (double)DEV_U32(fs, 2),
                       (double)DEV_U32(fs, 4));
}
