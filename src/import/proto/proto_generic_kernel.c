/* GenericKernel* packets. See proto_generic_kernel.h. */
#include "import/proto/proto_generic_kernel.h"

#include "model/context.h"
#include "model/gkernel.h"

/* GenericKernelTaskStateEvent */
#define PROTO_GK_TASK_CPU 1
#define PROTO_GK_TASK_COMM 2
#define PROTO_GK_TASK_TID 3
#define PROTO_GK_TASK_STATE 4
#define PROTO_GK_TASK_PRIO 5
/* GenericKernelTaskRenameEvent */
#define PROTO_GK_RENAME_TID 1
#define PROTO_GK_RENAME_COMM 2
/* GenericKernelCpuFrequencyEvent */
#define PROTO_GK_FREQ_CPU 1
#define PROTO_GK_FREQ_HZ 2
/* GenericKernelProcessTree and its Process / Thread */
#define PROTO_GK_TREE_PROCESSES 1
#define PROTO_GK_TREE_THREADS 2
#define PROTO_GK_PROCESS_PID 1
#define PROTO_GK_PROCESS_PPID 2
#define PROTO_GK_PROCESS_CMDLINE 3
#define PROTO_GK_THREAD_TID 1
#define PROTO_GK_THREAD_PID 2
#define PROTO_GK_THREAD_COMM 3
#define PROTO_GK_THREAD_IS_MAIN 4
#define PROTO_GK_THREAD_IS_IDLE 5

int proto_generic_kernel_wants_field(uint32_t number) {
  return number == PROTO_TRACE_PACKET_GENERIC_KERNEL_TASK_STATE_EVENT ||
         number == PROTO_TRACE_PACKET_GENERIC_KERNEL_CPU_FREQ_EVENT ||
         number == PROTO_TRACE_PACKET_GENERIC_KERNEL_TASK_RENAME_EVENT ||
         number == PROTO_TRACE_PACKET_GENERIC_KERNEL_PROCESS_TREE;
}

static int proto_gk_is_varint(const proto_field *fl) { return fl->wire_type == PROTO_WIRE_VARINT; }
static int proto_gk_is_len(const proto_field *fl) { return fl->wire_type == PROTO_WIRE_LEN; }

static int proto_gk_task_state(import_file *f, const kernel_scope *s, int64_t ts,
                               proto_span msg) {
  gkernel_task_event e = {.ts = ts};
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number == PROTO_GK_TASK_COMM && proto_gk_is_len(&fl)) {
      e.comm = (const char *)fl.span.data;
      e.comm_len = fl.span.len;
    } else if (!proto_gk_is_varint(&fl)) {
      continue;
    } else if (fl.number == PROTO_GK_TASK_CPU) {
      e.cpu = proto_field_int32(&fl);
    } else if (fl.number == PROTO_GK_TASK_TID) {
      e.tid = proto_field_int64(&fl);
    } else if (fl.number == PROTO_GK_TASK_STATE) {
      e.state = proto_field_int32(&fl);
    } else if (fl.number == PROTO_GK_TASK_PRIO) {
      e.prio = proto_field_int32(&fl);
    }
  }
  return gkernel_task_state(f->ctx, s, &e);
}

static int proto_gk_rename(import_file *f, const kernel_scope *s, proto_span msg) {
  int64_t tid = 0;
  proto_span comm = {NULL, 0};
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number == PROTO_GK_RENAME_TID && proto_gk_is_varint(&fl)) tid = proto_field_int64(&fl);
    if (fl.number == PROTO_GK_RENAME_COMM && proto_gk_is_len(&fl)) comm = fl.span;
  }
  return gkernel_task_rename(f->ctx, s, tid, (const char *)comm.data, comm.len);
}

static int proto_gk_cpu_freq(import_file *f, const kernel_scope *s, int64_t ts,
                             proto_span msg) {
  int64_t cpu = 0, hz = 0;
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    if (!proto_gk_is_varint(&fl)) continue;
    if (fl.number == PROTO_GK_FREQ_CPU) cpu = proto_field_int32(&fl);
    if (fl.number == PROTO_GK_FREQ_HZ) hz = proto_field_int64(&fl);
  }
  if (cpu < 0 || cpu >= SCHED_MAX_CPU) return WEFT_OK; /* no such cpu: dropped */
  return sched_cpu_counter(f->ctx, s, ts, (uint32_t)cpu, "cpufreq", "cpu_frequency",
                           (double)hz / 1000.0);
}

/* A Process of a tree; one without a cmdline says nothing. */
static int proto_gk_tree_process(import_file *f, const kernel_scope *s, proto_span msg) {
  int64_t pid = 0, ppid = 0;
  proto_span cmdline = {NULL, 0};
  int has_cmdline = 0;
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number == PROTO_GK_PROCESS_PID && proto_gk_is_varint(&fl)) pid = proto_field_int64(&fl);
    if (fl.number == PROTO_GK_PROCESS_PPID && proto_gk_is_varint(&fl)) ppid = proto_field_int64(&fl);
    if (fl.number == PROTO_GK_PROCESS_CMDLINE && proto_gk_is_len(&fl)) {
      cmdline = fl.span;
      has_cmdline = 1;
    }
  }
  if (!has_cmdline) return WEFT_OK;
  return gkernel_tree_process(f->ctx, s, pid, ppid, (const char *)cmdline.data, cmdline.len);
}

static int proto_gk_tree_thread(import_file *f, const kernel_scope *s, proto_span msg) {
  int64_t tid = 0, pid = 0;
  int is_main = 0, is_idle = 0;
  proto_span comm = {NULL, 0};
  int has_comm = 0;
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number == PROTO_GK_THREAD_COMM && proto_gk_is_len(&fl)) {
      comm = fl.span;
      has_comm = 1;
    }
    if (!proto_gk_is_varint(&fl)) continue;
    if (fl.number == PROTO_GK_THREAD_TID) tid = proto_field_int64(&fl);
    if (fl.number == PROTO_GK_THREAD_PID) pid = proto_field_int64(&fl);
    if (fl.number == PROTO_GK_THREAD_IS_MAIN) is_main = fl.value != 0;
    if (fl.number == PROTO_GK_THREAD_IS_IDLE) is_idle = fl.value != 0;
  }
  const char *name = has_comm ? (const char *)comm.data : NULL;
  if (name && !comm.len) name = NULL; /* an empty name names nothing */
  return gkernel_tree_thread(f->ctx, s, tid, pid, name, comm.len, is_main, is_idle);
}

/* The processes first, then the threads (a thread's process may come
 * later in the message). */
static int proto_gk_process_tree(import_file *f, const kernel_scope *s, proto_span msg) {
  proto_reader r;
  proto_field fl;
  int rc = WEFT_OK;
  proto_reader_init_span(&r, msg);
  while (!rc && proto_reader_next(&r, &fl) == 1)
    if (fl.number == PROTO_GK_TREE_PROCESSES && proto_gk_is_len(&fl))
      rc = proto_gk_tree_process(f, s, fl.span);
  proto_reader_init_span(&r, msg);
  while (!rc && proto_reader_next(&r, &fl) == 1)
    if (fl.number == PROTO_GK_TREE_THREADS && proto_gk_is_len(&fl))
      rc = proto_gk_tree_thread(f, s, fl.span);
  return rc;
}

int proto_generic_kernel_parse(import_file *f, uint32_t machine, int64_t ts,
                               const proto_field *field) {
  if (field->wire_type != PROTO_WIRE_LEN) return WEFT_OK;
  kernel_scope s = {machine, f->trace_id};
  switch (field->number) {
    case PROTO_TRACE_PACKET_GENERIC_KERNEL_TASK_STATE_EVENT:
      return proto_gk_task_state(f, &s, ts, field->span);
    case PROTO_TRACE_PACKET_GENERIC_KERNEL_TASK_RENAME_EVENT:
      return proto_gk_rename(f, &s, field->span);
    case PROTO_TRACE_PACKET_GENERIC_KERNEL_CPU_FREQ_EVENT:
      return proto_gk_cpu_freq(f, &s, ts, field->span);
    case PROTO_TRACE_PACKET_GENERIC_KERNEL_PROCESS_TREE:
      return proto_gk_process_tree(f, &s, field->span);
    default: return WEFT_OK;
  }
}
