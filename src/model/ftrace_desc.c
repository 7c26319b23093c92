/* The ftrace event descriptor table (field numbers and names are the
 * Perfetto ftrace protos'). */
#include "model/ftrace_desc.h"

#include <string.h>

#define I FTRACE_FIELD_INT
#define U FTRACE_FIELD_UINT
#define S FTRACE_FIELD_STR
#define FIELDS(name, ...) static const ftrace_field_desc name[] = {__VA_ARGS__};

FIELDS(f_print, {"ip", U}, {"buf", S})
FIELDS(f_sched_switch, {"prev_comm", S}, {"prev_pid", I}, {"prev_prio", I},
       {"prev_state", I}, {"next_comm", S}, {"next_pid", I}, {"next_prio", I})
FIELDS(f_cpu_frequency, {"state", U}, {"cpu_id", U})
FIELDS(f_cpu_frequency_limits, {"min_freq", U}, {"max_freq", U}, {"cpu_id", U})
FIELDS(f_cpu_idle, {"state", U}, {"cpu_id", U})
FIELDS(f_clock, {"name", S}, {"state", U}, {"cpu_id", U})
FIELDS(f_sched_wakeup, {"comm", S}, {"pid", I}, {"prio", I}, {"success", I},
       {"target_cpu", I})
FIELDS(f_sched_blocked_reason, {"pid", I}, {"caller", U}, {"iowait", U})
FIELDS(f_sched_cpu_hotplug, {"affected_cpu", I}, {"error", I}, {"status", I})
FIELDS(f_ipi_entry, {"reason", S})
FIELDS(f_ipi_raise, {"target_cpus", U}, {"reason", S})
FIELDS(f_softirq, {"vec", U})
FIELDS(f_lowmemory_kill, {"comm", S}, {"pid", I}, {"pagecache", I},
       {"cache_size", I}, {"cache_limit", I}, {"free", I})
FIELDS(f_irq_handler_entry, {"irq", I}, {"name", S}, {"handler", U})
FIELDS(f_irq_handler_exit, {"irq", I}, {"ret", I})
FIELDS(f_workqueue_activate_work, {"work", U})
FIELDS(f_workqueue_execute_end, {"work", U}, {"function", U})
FIELDS(f_workqueue_execute_start, {"work", U}, {"function", U})
FIELDS(f_workqueue_queue_work, {"work", U}, {"function", U}, {"workqueue", U},
       {"req_cpu", U}, {"cpu", U})
FIELDS(f_cgroup_attach_task, {"dst_root", I}, {"dst_id", I}, {"pid", I},
       {"comm", S}, {"cname", S}, {"dst_level", I}, {"dst_path", S})
FIELDS(f_tracing_mark_write, {"pid", I}, {"trace_name", S}, {"trace_begin", U})
FIELDS(f_task_newtask, {"pid", I}, {"comm", S}, {"clone_flags", U},
       {"oom_score_adj", I})
FIELDS(f_task_rename, {"pid", I}, {"oldcomm", S}, {"newcomm", S},
       {"oom_score_adj", I})
FIELDS(f_sched_process_exec, {"filename", S}, {"pid", I}, {"old_pid", I})
FIELDS(f_sched_process_exit, {"comm", S}, {"pid", I}, {"tgid", I}, {"prio", I})
FIELDS(f_sched_process_fork, {"parent_comm", S}, {"parent_pid", I},
       {"child_comm", S}, {"child_pid", I})
FIELDS(f_sched_process_free, {"comm", S}, {"pid", I}, {"prio", I})
FIELDS(f_kfree, {"call_site", U}, {"ptr", U})
FIELDS(f_kmalloc, {"bytes_alloc", U}, {"bytes_req", U}, {"call_site", U},
       {"gfp_flags", U}, {"ptr", U})
FIELDS(f_rss_stat, {"member", I}, {"size", I}, {"curr", U}, {"mm_id", U})
FIELDS(f_sde_tracing_mark_write, {"pid", I}, {"trace_name", S},
       {"trace_type", U}, {"value", I}, {"trace_begin", U})
FIELDS(f_ion_stat, {"buffer_id", U}, {"len", I}, {"total_allocated", U})
FIELDS(f_g2d_tracing_mark_write, {"pid", I}, {"unused2", U}, {"unused3", U},
       {"name", S}, {"type", U}, {"value", I})
FIELDS(f_funcgraph_entry, {"depth", I}, {"func", U})
FIELDS(f_funcgraph_exit, {"calltime", U}, {"depth", I}, {"func", U}, {"overrun", U},
       {"rettime", U})
FIELDS(f_zero, {"flag", I}, {"name", S}, {"pid", I}, {"value", I})

#define EV(id, name, f) {id, name, f, sizeof f / sizeof f[0]}
/* Sorted by id. */
static const ftrace_event_desc ftrace_events[] = {
    EV(3, "print", f_print),
    EV(4, "sched_switch", f_sched_switch),
    EV(11, "cpu_frequency", f_cpu_frequency),
    EV(12, "cpu_frequency_limits", f_cpu_frequency_limits),
    EV(13, "cpu_idle", f_cpu_idle),
    EV(14, "clock_enable", f_clock),
    EV(15, "clock_disable", f_clock),
    EV(16, "clock_set_rate", f_clock),
    EV(17, "sched_wakeup", f_sched_wakeup),
    EV(18, "sched_blocked_reason", f_sched_blocked_reason),
    EV(19, "sched_cpu_hotplug", f_sched_cpu_hotplug),
    EV(20, "sched_waking", f_sched_wakeup),
    EV(21, "ipi_entry", f_ipi_entry),
    EV(22, "ipi_exit", f_ipi_entry),
    EV(23, "ipi_raise", f_ipi_raise),
    EV(24, "softirq_entry", f_softirq),
    EV(25, "softirq_exit", f_softirq),
    EV(26, "softirq_raise", f_softirq),
    EV(35, "lowmemory_kill", f_lowmemory_kill),
    EV(36, "irq_handler_entry", f_irq_handler_entry),
    EV(37, "irq_handler_exit", f_irq_handler_exit),
    EV(56, "workqueue_activate_work", f_workqueue_activate_work),
    EV(57, "workqueue_execute_end", f_workqueue_execute_end),
    EV(58, "workqueue_execute_start", f_workqueue_execute_start),
    EV(59, "workqueue_queue_work", f_workqueue_queue_work),
    EV(67, "cgroup_attach_task", f_cgroup_attach_task),
    EV(80, "tracing_mark_write", f_tracing_mark_write),
    EV(114, "sched_wakeup_new", f_sched_wakeup),
    EV(235, "task_newtask", f_task_newtask),
    EV(236, "task_rename", f_task_rename),
    EV(237, "sched_process_exec", f_sched_process_exec),
    EV(238, "sched_process_exit", f_sched_process_exit),
    EV(239, "sched_process_fork", f_sched_process_fork),
    EV(240, "sched_process_free", f_sched_process_free),
    EV(298, "kfree", f_kfree),
    EV(299, "kmalloc", f_kmalloc),
    EV(313, "rss_stat", f_rss_stat),
    EV(326, "zero", f_zero),
    EV(333, "sde_tracing_mark_write", f_sde_tracing_mark_write),
    EV(335, "ion_stat", f_ion_stat),
    EV(349, "g2d_tracing_mark_write", f_g2d_tracing_mark_write),
    EV(437, "funcgraph_entry", f_funcgraph_entry),
    EV(438, "funcgraph_exit", f_funcgraph_exit),
};

const ftrace_event_desc *ftrace_desc_by_id(uint32_t id) {
  size_t lo = 0, hi = sizeof ftrace_events / sizeof ftrace_events[0];
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (ftrace_events[mid].id == id) return &ftrace_events[mid];
    if (ftrace_events[mid].id < id) lo = mid + 1;
    else hi = mid;
  }
  return NULL;
}

const ftrace_event_desc *ftrace_desc_by_name(const char *name, size_t len) {
  for (size_t i = 0; i < sizeof ftrace_events / sizeof ftrace_events[0]; i++) {
    const char *n = ftrace_events[i].name;
    if (strlen(n) == len && memcmp(n, name, len) == 0) return &ftrace_events[i];
  }
  return NULL;
}

const ftrace_field_desc *ftrace_desc_field(const ftrace_event_desc *d,
                                           const char *name, size_t len,
                                           uint32_t *number) {
  for (uint32_t i = 0; d && i < d->field_count; i++) {
    const char *n = d->fields[i].name;
    if (strlen(n) == len && memcmp(n, name, len) == 0) {
      if (number) *number = i + 1;
      return &d->fields[i];
    }
  }
  return NULL;
}
