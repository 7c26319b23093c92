/* ProcessTree packets. See proto_process_tree.h. */
#include "import/proto/proto_process_tree.h"

#include <stdio.h>

#include "model/columns.h"
#include "import/proto/proto_fields.h"
#include "import/proto/proto_import.h"

#define PROTO_PROCESS_TREE_PROCESS_IS_KTHREAD 8
#define PROTO_PROCESS_TREE_MAX_CMDLINE 4096

typedef struct proto_tree_proc {
  int64_t pid, ppid, uid, start_from_boot;
  int has_pid, has_ppid, has_uid, has_start, is_kthread, has_kthread, cmdline_is_comm;
  proto_span argv0;
  int has_cmdline, cmdline_count;
  base_buf cmdline; /* argv joined by spaces */
} proto_tree_proc;

/* The trace-time offset of BOOTTIME values in this packet (its trace time
 * minus its raw timestamp); 0 when the packet's clock is not BOOTTIME. */
static int proto_tree_boottime_offset(proto_span pkt, proto_span defaults, int64_t ts,
                                      int64_t *offset) {
  proto_field fl;
  uint64_t clock = PROTO_BUILTIN_CLOCK_BOOTTIME;
  if (defaults.data &&
      proto_find_last(defaults.data, defaults.len,
                      PROTO_TRACE_PACKET_DEFAULTS_TIMESTAMP_CLOCK_ID, &fl) == 1)
    clock = fl.value;
  if (proto_find_last(pkt.data, pkt.len, PROTO_TRACE_PACKET_TIMESTAMP_CLOCK_ID, &fl) == 1)
    clock = fl.value;
  if (clock != PROTO_BUILTIN_CLOCK_BOOTTIME ||
      proto_find_last(pkt.data, pkt.len, PROTO_TRACE_PACKET_TIMESTAMP, &fl) != 1)
    return 0;
  *offset = ts - (int64_t)fl.value;
  return 1;
}

static void proto_tree_proc_read(proto_span msg, proto_tree_proc *pr) {
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    int len = fl.wire_type == PROTO_WIRE_LEN;
    switch (fl.number) {
      case PROTO_PROCESS_TREE_PROCESS_PID: pr->pid = proto_field_int32(&fl); pr->has_pid = 1; break;
      case PROTO_PROCESS_TREE_PROCESS_PPID: pr->ppid = proto_field_int32(&fl); pr->has_ppid = 1; break;
      case PROTO_PROCESS_TREE_PROCESS_UID: pr->uid = proto_field_int32(&fl); pr->has_uid = 1; break;
      case PROTO_PROCESS_TREE_PROCESS_PROCESS_START_FROM_BOOT:
        pr->start_from_boot = (int64_t)fl.value;
        pr->has_start = 1;
        break;
      case PROTO_PROCESS_TREE_PROCESS_CMDLINE_IS_COMM: pr->cmdline_is_comm = fl.value != 0; break;
      case PROTO_PROCESS_TREE_PROCESS_IS_KTHREAD:
        pr->is_kthread = fl.value != 0;
        pr->has_kthread = 1;
        break;
      case PROTO_PROCESS_TREE_PROCESS_CMDLINE: {
        if (!len) break;
        const void *nul = memchr(fl.span.data, 0, fl.span.len);
        size_t n = nul ? (size_t)((const uint8_t *)nul - fl.span.data) : fl.span.len;
        if (!pr->has_cmdline) {
          pr->argv0.data = fl.span.data;
          pr->argv0.len = n;
        } else {
          base_buf_append(&pr->cmdline, " ", 1); /* over the cap: truncated */
        }
        base_buf_append(&pr->cmdline, fl.span.data, n);
        pr->has_cmdline = 1;
        pr->cmdline_count++;
        break;
      }
      default: break;
    }
  }
}

/* A kernel worker's comm without its workqueue suffix. */
static size_t proto_tree_kworker_len(const char *s, size_t len) {
  if (len < 8 || memcmp(s, "kworker/", 8) != 0) return len;
  const char *dash = memchr(s, '-', len);
  return dash ? (size_t)(dash - s) : len;
}

static int proto_tree_process_args(trace_context *ctx, uint32_t upid, int is_kthread) {
  int rc = model_arg_int(ctx, "is_kthread", 10, MODEL_ARG_BOOL, is_kthread);
  return rc ? rc : model_process_args_add(ctx, upid);
}

int proto_process_get(trace_context *ctx, uint32_t machine, int64_t pid, uint32_t *upid) {
  if (model_process_find(ctx, machine, pid, upid)) return WEFT_OK;
  uint32_t utid;
  int rc = model_process(ctx, machine, pid, upid);
  return rc ? rc : model_thread_in_process(ctx, machine, pid, pid, &utid);
}

/* A process's parent is the first one a tree gives (an absent ppid is 0);
 * a later, different one is counted, not applied. */
static int proto_tree_parent(import_file *f, uint32_t machine, const proto_tree_proc *pr,
                             uint32_t *upid) {
  trace_context *ctx = f->ctx;
  uint32_t parent;
  int rc = proto_process_get(ctx, machine, pr->has_ppid ? pr->ppid : 0, &parent);
  if (!rc) rc = proto_process_get(ctx, machine, pr->pid, upid);
  if (rc || parent == *upid) return rc;
  if (model_process_set_parent(ctx, *upid, parent))
    rc = import_stat(f, stat_process_tracker_parent_pid_changed, 1);
  return rc;
}

/* Remembers that the process's cmdline is its comm. */
static int proto_tree_mark_comm(import_file *f, uint32_t upid) {
  proto_misc_state *m = &((proto_import_state *)f->state)->misc;
  uint64_t *slot;
  int rc = base_map_insert(&m->comm_processes, upid, 1, &slot);
  return rc < 0 ? rc : WEFT_OK;
}

static int proto_tree_apply_process(import_file *f, uint32_t machine, const proto_tree_proc *pr,
                                    int has_offset, int64_t offset) {
  trace_context *ctx = f->ctx;
  uint32_t upid, utid;
  int rc = proto_tree_parent(f, machine, pr, &upid);
  if (rc) return rc;
  int kthread = pr->is_kthread || pr->cmdline_is_comm;
  if (pr->has_cmdline) {
    const char *name = (const char *)pr->argv0.data;
    size_t name_len = pr->argv0.len;
    /* a process that rewrote its cmdline with spaces as separators (one
     * element): its name ends at the first space, as in Perfetto */
    const char *space = pr->cmdline_count == 1 ? memchr(name, ' ', name_len) : NULL;
    if (space) name_len = (size_t)(space - name);
    const char *cmd = pr->cmdline.data ? pr->cmdline.data : "";
    size_t cmd_len = pr->cmdline.len;
    if (kthread) {
      name_len = proto_tree_kworker_len(name, name_len);
      cmd = name;
      cmd_len = name_len;
    }
    rc = model_process_set_name(ctx, upid, name, name_len);
    if (!rc) rc = model_process_set_cmdline(ctx, upid, cmd, cmd_len);
    if (!rc && pr->cmdline_is_comm) {
      rc = model_thread_in_process(ctx, machine, pr->pid, pr->pid, &utid);
      if (!rc) rc = model_thread_set_name(ctx, utid, name, name_len);
    }
  }
  if (!rc && pr->has_uid) model_process_set_uid(ctx, upid, pr->uid);
  if (!rc && pr->has_start && has_offset)
    model_process_set_start(ctx, upid, pr->start_from_boot + offset);
  if (!rc && pr->has_kthread) rc = proto_tree_process_args(ctx, upid, pr->is_kthread);
  if (!rc && pr->cmdline_is_comm) rc = proto_tree_mark_comm(f, upid);
  return rc;
}

static int proto_tree_process(import_file *f, uint32_t machine, proto_span msg,
                              int has_offset, int64_t offset) {
  proto_tree_proc pr;
  memset(&pr, 0, sizeof pr);
  base_buf_init(&pr.cmdline, PROTO_PROCESS_TREE_MAX_CMDLINE);
  proto_tree_proc_read(msg, &pr);
  /* An entry without a cmdline field is skipped whole, as Perfetto does:
   * a thread naming its pid makes the process then. */
  int rc = pr.has_pid && pr.has_cmdline ? proto_tree_apply_process(f, machine, &pr, has_offset,
                                                                   offset)
                                        : WEFT_OK;
  base_buf_free(&pr.cmdline);
  return rc;
}

/* 1 and the process's name if the live process `pid` was given with its
 * comm as cmdline (a kernel thread). */
static int proto_tree_is_kthread(import_file *f, uint32_t machine, int64_t pid,
                                 string_id *name) {
  const proto_misc_state *m = &((proto_import_state *)f->state)->misc;
  uint32_t upid;
  if (!model_process_find(f->ctx, machine, pid, &upid) ||
      !base_map_find(&m->comm_processes, upid))
    return 0;
  *name = model_process_name(f->ctx, upid);
  return 1;
}

static int proto_tree_thread(import_file *f, uint32_t machine, proto_span msg) {
  trace_context *ctx = f->ctx;
  proto_reader r;
  proto_field fl;
  int64_t tid = 0, tgid = 0; /* a thread without a tgid is in process 0 (the idle one) */
  int has_tid = 0, has_name = 0;
  proto_span name = {NULL, 0};
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number == PROTO_PROCESS_TREE_THREAD_TID) { tid = proto_field_int32(&fl); has_tid = 1; }
    if (fl.number == PROTO_PROCESS_TREE_THREAD_TGID) tgid = proto_field_int32(&fl);
    if (fl.number == PROTO_PROCESS_TREE_THREAD_NAME && fl.wire_type == PROTO_WIRE_LEN) {
      name = fl.span;
      has_name = 1;
    }
  }
  if (!has_tid) return WEFT_OK;
  uint32_t utid, upid;
  int rc = WEFT_OK;
  /* A process first named by one of its threads is made with its main
   * thread first (Perfetto's GetOrCreateProcess). */
  if (tid != tgid && model_process_find(ctx, machine, tgid, &upid) != 1) {
    rc = model_process(ctx, machine, tgid, &upid);
    if (!rc) rc = model_thread_in_process(ctx, machine, tgid, tgid, &utid);
  }
  if (!rc) rc = model_thread_in_process(ctx, machine, tid, tgid, &utid);
  if (rc || !has_name) return rc;
  string_id comm;
  if (tid == tgid && proto_tree_is_kthread(f, machine, tgid, &comm)) {
    model_thread_set_name_id(ctx, utid, comm);
    return WEFT_OK;
  }
  return model_thread_set_name(ctx, utid, (const char *)name.data, name.len);
}

int proto_process_tree_parse(import_file *f, uint32_t machine, int64_t ts,
                             proto_span pkt, proto_span defaults, proto_span tree) {
  int64_t offset = 0;
  int has_offset = proto_tree_boottime_offset(pkt, defaults, ts, &offset);
  for (uint32_t pass = 0; pass < 2; pass++) {
    uint32_t want = pass == 0 ? PROTO_PROCESS_TREE_PROCESSES : PROTO_PROCESS_TREE_THREADS;
    proto_reader r;
    proto_field fl;
    proto_reader_init_span(&r, tree);
    while (proto_reader_next(&r, &fl) == 1) {
      if (fl.wire_type != PROTO_WIRE_LEN || fl.number != want) continue;
      int rc = pass == 0 ? proto_tree_process(f, machine, fl.span, has_offset, offset)
                         : proto_tree_thread(f, machine, fl.span);
      if (rc) return rc;
    }
  }
  return WEFT_OK;
}
