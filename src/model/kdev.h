/* kdev: kernel device and memory events (Perfetto's rules), shared by the
 * ftrace importers. Owns each thread's last contiguous-range migration
 * counts (at most KDEV_MAX_THREADS threads; past it, new threads' counts
 * read as 0).
 * Rules:
 *  - ufshcd_command: "io.ufs.command.count" (type ufs_command_count) is the
 *    number of bits set in the doorbell, or without one 0 for a completion
 *    (str_t 1) and 1 otherwise. A send (str_t 0) begins a slice named after
 *    the SCSI opcode ("READ (10)", "UNDEFINED" when unknown; " (GID=0x<g>)"
 *    appended for a group id) on "io.ufs.command.tag[NNN]" (type
 *    ufs_command_tag, dimension ufs_tag); any other str_t ends it.
 *  - ufshcd_clk_gating: "io.ufs.clkgating (OFF:0/REQ_OFF/REQ_ON/ON:3)"
 *    (type ufs_clkgating): state 1 (ON) is 3, 2 (REQ_OFF) is 1, 3 (REQ_ON)
 *    is 2, anything else 0.
 *  - f2fs_iostat / f2fs_iostat_latency: one counter per field,
 *    "<event>.[<major>:<minor>].<key>" (type = the event, dimensions
 *    linux_device "<major>:<minor>" from bits 8-15 and 0-7 of dev, and
 *    counter_key).
 *  - cros_ec_sensorhub_data: "cros_ec.cros_ec_sensorhub_data.<sensor>" (type
 *    cros_ec_sensorhub_data, dimension ec_sensor_num), value current_time -
 *    current_timestamp, args ec_num, ec_delta (fifo_timestamp -
 *    current_timestamp) and sample_ts (current_timestamp).
 *  - CMA allocations, only on kernels 5.10 and later (the machine's release;
 *    unknown: none): cma_alloc_start begins "mm_cma_alloc" on the thread;
 *    before 6.1 cma_alloc_info ends it with the allocation's args, from 6.1
 *    cma_alloc_finish does, with the counts of the thread's last
 *    mm_alloc_contig_migrate_range_info since its cma_alloc_start (0
 *    without one). */
#ifndef WEFT_MODEL_KDEV_H
#define WEFT_MODEL_KDEV_H

#include "model/sched.h"

#define KDEV_MAX_THREADS 65536

typedef struct kdev_state kdev_state;
void kdev_state_free(kdev_state *k);

/* A ufshcd_command event. */
typedef struct kdev_ufs_command_event {
  uint64_t doorbell, str_t, opcode, group_id;
  uint32_t tag;
} kdev_ufs_command_event;

int kdev_ufs_command(trace_context *ctx, const kernel_scope *s, int64_t ts,
                     const kdev_ufs_command_event *e);
int kdev_ufs_clk_gating(trace_context *ctx, const kernel_scope *s, int64_t ts, int64_t state);

/* One counter of an f2fs_iostat(_latency) event: event "f2fs_iostat" or
 * "f2fs_iostat_latency", key e.g. "read_data_avg". */
int kdev_f2fs_counter(trace_context *ctx, const kernel_scope *s, int64_t ts, const char *event,
                      uint64_t dev, const char *key, double value);

/* A cros_ec_sensorhub_data event. */
typedef struct kdev_cros_ec_event {
  int64_t current_time, current_timestamp, fifo_timestamp;
  uint32_t sensor;
} kdev_cros_ec_event;

int kdev_cros_ec(trace_context *ctx, const kernel_scope *s, int64_t ts, const kdev_cros_ec_event *e);

/* The CMA events. */
typedef enum kdev_cma_kind {
  KDEV_CMA_START,
  KDEV_CMA_INFO,     /* cma_alloc_info */
  KDEV_CMA_FINISH,   /* cma_alloc_finish */
  KDEV_CMA_MIGRATE   /* mm_alloc_contig_migrate_range_info */
} kdev_cma_kind;

/* What a CMA event carries (the fields its kind has; others 0). */
typedef struct kdev_cma_event {
  const char *name;
  size_t name_len;
  uint64_t pfn, count, nr_migrated, nr_reclaimed, nr_mapped, err_iso, err_mig, err_test;
} kdev_cma_event;

int kdev_cma(trace_context *ctx, const kernel_scope *s, int64_t ts, int64_t tid,
             kdev_cma_kind kind, const kdev_cma_event *e);

#endif
