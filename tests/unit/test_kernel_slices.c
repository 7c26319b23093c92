/* Unit tests of the kernel-side additions, through the public API:
 * systemTraceEvents in Chrome JSON, JSON phase T, binder / irq / syscall
 * slices (model/kslice.h), SysStats counters, ftrace_latest_data_start_ns,
 * the syscall tables. Proto traces are encoded by hand
 * with proto_test_util.h. */
#include <stdlib.h>

#include "check.h"
#include "proto_test_util.h"
#include "model/syscall_table.h"
#include "weft/weft.h"

/* ---- running queries into a text buffer ---- */

typedef struct out_buf {
  char text[8192];
  size_t len;
} out_buf;

static void out_add(out_buf *o, const char *s) {
  size_t n = strlen(s), room = sizeof o->text - 1 - o->len; /* len < sizeof text */
  if (n > room) n = room;
  memcpy(o->text + o->len, s, n);
  o->len += n;
  o->text[o->len] = '\0';
}

static int out_row(void *user, int statement, int ncols, const weft_cell *cells) {
  out_buf *o = user;
  (void)statement;
  for (int i = 0; i < ncols; i++) {
    char cell[256];
    switch (cells[i].type) {
      case WEFT_CELL_INT: snprintf(cell, sizeof cell, "%" PRId64, cells[i].i); break;
      case WEFT_CELL_DOUBLE: snprintf(cell, sizeof cell, "%g", cells[i].d); break;
      case WEFT_CELL_STRING: snprintf(cell, sizeof cell, "%s", cells[i].s); break;
      default: snprintf(cell, sizeof cell, "NULL"); break;
    }
    if (i) out_add(o, ",");
    out_add(o, cell);
  }
  out_add(o, ";");
  return 0;
}

/* Loads one in-memory file and runs `sql`; the rows land in o as
 * "a,b;c,d;". Returns the load status. */
static int load_and_query(const char *name, const void *data, size_t len,
                          const char *sql, out_buf *o) {
  weft *w;
  memset(o, 0, sizeof *o);
  if (weft_open(&w, NULL)) return -1;
  int rc = weft_file_begin(w, name);
  if (!rc) rc = weft_file_write(w, data, len);
  if (!rc) rc = weft_file_end(w);
  if (!rc) rc = weft_load_finish(w);
  weft_query_callbacks cb = {NULL, out_row, o};
  if (!rc) rc = weft_query(w, sql, &cb);
  weft_close(w);
  return rc;
}

/* A Trace with one packet per message in `packets` (TracePacket bodies). */
static void pb_trace(pb *trace, const pb *packets, size_t n) {
  memset(trace, 0, sizeof *trace);
  for (size_t i = 0; i < n; i++) pb_msg(trace, 1, &packets[i]);
}

/* Loads a Trace of `packets` (as "t.pb") and runs `sql` into *o. */
static int load_packets_and_query(const pb *packets, size_t n, const char *sql, out_buf *o) {
  pb trace;
  pb_trace(&trace, packets, n);
  return load_and_query("t.pb", trace.b, trace.n, sql, o);
}

/* A TracePacket carrying an FtraceEventBundle, on sequence 1. */
static void pb_ftrace_packet(pb *packet, const pb *bundle) {
  pb_msg(packet, 1, bundle);
  pb_int(packet, 10, 1);
}

/* FtraceEvent {timestamp, pid, <event_field> {payload}} */
static void pb_ftrace_event(pb *bundle, uint64_t ts, uint32_t pid, uint32_t field,
                            const pb *payload) {
  pb ev = {{0}, 0};
  pb_int(&ev, 1, ts);
  pb_int(&ev, 2, pid);
  pb_msg(&ev, field, payload);
  pb_msg(bundle, 2, &ev);
}

/* ---- JSON: systemTraceEvents and phase T ---- */

static void test_json_system_trace_events(void) {
  const char *json =
      "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"js\",\"pid\":100,\"tid\":100,"
      "\"ts\":10000050,\"dur\":100}],\"systemTraceEvents\":\"# tracer: nop\\n"
      "cpus=8\\n"
      "  <idle>-0 (-----) [000] d..2 10.000000: sched_switch: prev_comm=swapper/0 "
      "prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=app next_pid=100 next_prio=120\\n"
      "  app-100 ( 100) [000] .... 10.000100: tracing_mark_write: B|100|draw\\n"
      "garbage line\\n"
      "  app-100 ( 100) [000] .... 10.000300: tracing_mark_write: E|100\\n\"}";
  out_buf o;
  CHECK_EQ_INT(load_and_query("t.json", json, strlen(json),
                              "select ts, dur, cpu from sched;"
                              "select name, ts, dur, depth from slice order by ts;"
                              "select value from stats where name = 'systrace_parse_failure'",
                              &o), 0);
  /* draw, open inside js when js ended, ends with it (Perfetto closes it on
   * the track's next event, its E). */
  CHECK_EQ_STR(o.text, "10000000000,-1,0;js,10000050000,100000,0;"
                       "draw,10000100000,50000,1;1;");
}

static void test_json_phase_t(void) {
  const char *json =
      "[{\"ph\":\"T\",\"name\":\"Running\",\"pid\":1,\"tid\":2,\"ts\":1,\"dur\":4,"
      "\"args\":{\"cpu\":3}},"
      "{\"ph\":\"T\",\"name\":\"D\",\"pid\":1,\"tid\":2,\"ts\":5,\"dur\":2,"
      "\"args\":{\"io_wait\":1}},"
      "{\"ph\":\"T\",\"name\":\"S\",\"pid\":1,\"tid\":2,\"ts\":9}]";
  out_buf o;
  CHECK_EQ_INT(load_and_query("t.json", json, strlen(json),
                              "select ts, dur, cpu from sched;"
                              "select ts, dur, state, cpu, io_wait from thread_state order by ts;"
                              "select value from stats where name = 'json_parser_failure'",
                              &o), 0);
  /* the sched slice is on cpu 3; thread states name no cpu (Perfetto's) */
  CHECK_EQ_STR(o.text, "1000,4000,3;1000,4000,Running,NULL,NULL;5000,2000,D,NULL,1;1;");
}

/* ---- systrace: binder ---- */

static void test_systrace_binder(void) {
  const char *text =
      "          c-10 [001] .... 1.000000: binder_transaction: transaction=7 dest_node=1 "
      "dest_proc=20 dest_thread=0 reply=0 flags=0x0 code=0x3\n"
      "          s-20 [002] .... 1.000010: binder_transaction_received: transaction=7\n"
      "          s-20 [002] .... 1.000030: binder_transaction: transaction=8 dest_node=0 "
      "dest_proc=10 dest_thread=10 reply=1 flags=0x0 code=0x3\n"
      "          c-10 [001] .... 1.000050: binder_transaction_received: transaction=8\n"
      "          c-10 [001] .... 1.000060: binder_transaction: transaction=9 dest_node=1 "
      "dest_proc=20 dest_thread=0 reply=0 flags=0x1 code=0x3\n"
      "          s-20 [002] .... 1.000070: binder_transaction_received: transaction=9\n"
      /* with the command traced, a failed reply ends the transaction */
      "          c-10 [001] .... 1.000075: binder_command: cmd=0x40406300 BC_TRANSACTION\n"
      "          c-10 [001] .... 1.000080: binder_transaction: transaction=11 dest_node=1 "
      "dest_proc=20 dest_thread=0 reply=0 flags=0x0 code=0x3\n"
      "          c-10 [001] .... 1.000090: binder_return: cmd=0x7211 BR_FAILED_REPLY\n";
  out_buf o;
  CHECK_EQ_INT(load_and_query("t.systrace", text, strlen(text),
                              "select s.name, s.ts, s.dur, t.tid from slice s join thread_track "
                              "tt on s.track_id = tt.id join thread t using (utid) order by s.ts",
                              &o), 0);
  CHECK_EQ_STR(o.text,
               "binder transaction,1000000000,50000,10;binder reply,1000010000,20000,20;"
               "binder transaction async,1000060000,0,10;binder async rcv,1000070000,0,20;"
               /* 1.000090 s reads as 1000089999 ns (through a double) */
               "binder transaction,1000080000,9999,10;");
}

/* ---- proto ftrace: syscalls + atrace, irq, latest data start ---- */

static void test_proto_syscalls_irq_latest(void) {
  pb packets[2];
  memset(packets, 0, sizeof packets);
  pb uts = {{0}, 0}, sysinfo = {{0}, 0};
  pb_str(&uts, 4, "aarch64");
  pb_msg(&sysinfo, 1, &uts);
  pb_msg(&packets[0], 45, &sysinfo);
  pb bundle = {{0}, 0};
  pb_int(&bundle, 1, 1); /* cpu */
  pb enter = {{0}, 0}, exit_ = {{0}, 0}, print = {{0}, 0}, irq = {{0}, 0}, irq_exit = {{0}, 0};
  pb_int(&enter, 1, 64);
  pb_int(&exit_, 1, 64);
  pb_str(&print, 2, "B|42|mark");
  pb_int(&irq, 1, 5);
  pb_str(&irq, 2, "timer");
  pb_int(&irq_exit, 1, 5);
  pb_ftrace_event(&bundle, 100, 42, 329, &enter);
  pb_ftrace_event(&bundle, 150, 42, 3, &print);
  pb_ftrace_event(&bundle, 200, 42, 330, &exit_);
  pb_ftrace_event(&bundle, 300, 42, 329, &enter);
  pb_ftrace_event(&bundle, 350, 42, 330, &exit_);
  pb_ftrace_event(&bundle, 400, 0, 36, &irq);
  pb_ftrace_event(&bundle, 450, 0, 37, &irq_exit);
  pb_int(&bundle, 9, 90); /* last_read_event_timestamp */
  pb_ftrace_packet(&packets[1], &bundle);
  out_buf o;
  CHECK_EQ_INT(load_packets_and_query(packets, 2,
                              "select name, ts, dur, depth from slice order by ts;"
                              "select name, cpu from cpu_track;"
                              "select int_value from metadata "
                              "where name = 'ftrace_latest_data_start_ns'",
                              &o), 0);
  CHECK_EQ_STR(o.text, "sys_write,100,50,0;mark,150,-1,0;sys_write,300,50,1;"
                       "IRQ (timer),400,50,0;Irq Cpu 1,1;90;");
}

/* ---- proto ftrace: adreno command batches ---- */

static void test_proto_adreno(void) {
  pb packets[1];
  memset(packets, 0, sizeof packets);
  pb bundle = {{0}, 0}, sync = {{0}, 0}, retired = {{0}, 0}, early = {{0}, 0};
  pb_int(&bundle, 1, 0);
  pb_int(&early, 1, 2);
  pb_int(&early, 6, 100);
  pb_int(&early, 7, 200);
  pb_int(&sync, 1, 1);
  pb_int(&sync, 3, 19200000);
  pb_int(&retired, 1, 1);
  pb_int(&retired, 6, 38400000);
  pb_int(&retired, 7, 57600000);
  pb_int(&retired, 8, 3);
  pb_ftrace_event(&bundle, 500000000, 77, 537, &early); /* no sync yet: dropped */
  pb_ftrace_event(&bundle, 1000000000, 77, 536, &sync);
  pb_ftrace_event(&bundle, 3100000000u, 77, 537, &retired);
  pb_ftrace_packet(&packets[0], &bundle);
  out_buf o;
  CHECK_EQ_INT(load_packets_and_query(packets, 1,
                              "select s.name, s.ts, s.dur, t.name from slice s join track t "
                              "on s.track_id = t.id where t.type = 'adreno_gpu_cmdbatch'",
                              &o), 0);
  CHECK_EQ_STR(o.text, "GPU,2000000000,1000000000,GPU 77 (Ctx=1, Prio=3);");
}

/* ---- proto: SysStats ---- */

static void pb_disk(pb *stats, const char *dev, uint64_t read_sectors, uint64_t read_ms,
                    uint64_t flushes) {
  pb d = {{0}, 0};
  pb_str(&d, 1, dev);
  pb_int(&d, 2, read_sectors);
  pb_int(&d, 3, read_ms);
  pb_int(&d, 8, flushes);
  pb_msg(stats, 13, &d);
}

static void test_proto_sys_stats(void) {
  pb packets[3];
  memset(packets, 0, sizeof packets);
  for (int i = 0; i < 2; i++) {
    pb stats = {{0}, 0}, cpu = {{0}, 0}, zone = {{0}, 0};
    pb_int(&cpu, 1, 1);
    pb_int(&cpu, 2, 1000u * (uint64_t)(i + 1));
    pb_msg(&stats, 3, &cpu);
    pb_disk(&stats, "sda", 2048u * (uint64_t)(i + 1), 500u * (uint64_t)(i + 1), 3u * (uint64_t)i);
    pb_str(&zone, 3, "soc");
    pb_int(&zone, 2, 40u + (uint64_t)i);
    pb_msg(&stats, 15, &zone);
    pb_int(&stats, 17, 300u + (uint64_t)i);
    pb_msg(&packets[i], 7, &stats);
    pb_int(&packets[i], 8, 1000u * (uint64_t)(i + 1));
    pb_int(&packets[i], 10, 1);
  }
  pb display = {{0}, 0};
  pb_int(&display, 1, 2);
  pb_msg(&packets[2], 70, &display);
  pb_int(&packets[2], 8, 5);
  out_buf o;
  CHECK_EQ_INT(load_packets_and_query(packets, 3,
                              "select t.name, c.ts, c.value from counter c join counter_track t "
                              "on c.track_id = t.id where t.name in ('cpu.times.user_ns', "
                              "'diskstat.[sda].read_amount', 'diskstat.[sda].read_throughput', "
                              "'diskstat.[sda].flush_amount', 'soc', 'gpufreq', 'ScreenState') "
                              "order by t.name, c.ts;"
                              "select extract_arg(dimension_arg_set_id, 'device_name') from "
                              "counter_track where name = 'diskstat.[sda].read_amount';"
                              "select cpu from cpu_counter_track where name = 'cpu.times.user_ns'",
                              &o), 0);
  CHECK_EQ_STR(o.text, "ScreenState,5,2;cpu.times.user_ns,1000,1000;cpu.times.user_ns,2000,2000;"
                       "diskstat.[sda].flush_amount,2000,3;diskstat.[sda].read_amount,2000,1;"
                       "diskstat.[sda].read_throughput,2000,2;gpufreq,1000,300;gpufreq,2000,301;"
                       "soc,1000,40;soc,2000,41;sda;1;");
}

/* ---- syscall tables ---- */

static void test_syscall_tables(void) {
  CHECK_EQ_STR(syscall_name(SYSCALL_ABI_ARM64, 64), "write");
  CHECK_EQ_STR(syscall_name(SYSCALL_ABI_X86_64, 1), "write");
  CHECK_EQ_STR(syscall_name(SYSCALL_ABI_I386, 4), "write");
  CHECK(syscall_name(SYSCALL_ABI_ARM64, -1) == NULL);
  CHECK(syscall_name(SYSCALL_ABI_ARM64, 1 << 20) == NULL);
  CHECK(syscall_name(SYSCALL_ABI_UNKNOWN, 64) == NULL);
  CHECK_EQ_INT(syscall_abi_from_machine("aarch64"), SYSCALL_ABI_ARM64);
  CHECK_EQ_INT(syscall_abi_from_machine(NULL), SYSCALL_ABI_UNKNOWN);
  CHECK_EQ_INT(syscall_abi_from_machine("arm64"), SYSCALL_ABI_UNKNOWN);
  CHECK_EQ_INT(syscall_abi_from_machine("x86_64"), SYSCALL_ABI_X86_64);
  CHECK_EQ_INT(syscall_abi_from_machine("i686"), SYSCALL_ABI_I386);
  CHECK_EQ_INT(syscall_abi_from_machine("armv7l"), SYSCALL_ABI_ARM);
  CHECK_EQ_INT(syscall_abi_from_machine("armv8l"), SYSCALL_ABI_ARM);
  CHECK_EQ_INT(syscall_abi_from_machine("armv6l"), SYSCALL_ABI_UNKNOWN);
  CHECK_EQ_STR(syscall_name(SYSCALL_ABI_ARM, 4), "write");
  CHECK(syscall_name(SYSCALL_ABI_ARM, 7) == NULL);
  CHECK_EQ_STR(syscall_name(SYSCALL_ABI_X86_64, 512), "rt_sigaction");
  CHECK(syscall_name(SYSCALL_ABI_ARM64, 457) == NULL);
}

/* ---- systrace: sched_switch comms ---- */

/* The comms of raw sched_switch rows and thread names are the switch's own
 * bytes, also for comms that share their first 16 bytes (what the model's
 * comm caches keep) and for a thread whose comm changes. */
static void test_systrace_switch_comms(void) {
  const char *text =
      "# tracer: nop\n"
      "  <idle>-0 [000] d..2 10.000000: sched_switch: prev_comm=swapper/0 prev_pid=0 "
      "prev_prio=120 prev_state=R ==> next_comm=long-thread-name-AAAA-1 next_pid=101 "
      "next_prio=120\n"
      "  x-101 [000] d..2 10.100000: sched_switch: prev_comm=long-thread-name-AAAA-1 "
      "prev_pid=101 prev_prio=120 prev_state=S ==> next_comm=long-thread-name-AAAA-2 "
      "next_pid=102 next_prio=120\n"
      "  x-102 [000] d..2 10.200000: sched_switch: prev_comm=long-thread-name-AAAA-2 "
      "prev_pid=102 prev_prio=120 prev_state=S ==> next_comm=long-thread-name-AAAA-3 "
      "next_pid=103 next_prio=120\n"
      "  x-103 [000] d..2 10.300000: sched_switch: prev_comm=renamed prev_pid=103 "
      "prev_prio=120 prev_state=S ==> next_comm=long-thread-name-AAAA-1 next_pid=101 "
      "next_prio=120\n";
  out_buf o;
  CHECK_EQ_INT(load_and_query("t.systrace", text, strlen(text),
                              "select e.ts, p.string_value, n.string_value from ftrace_event e "
                              "join args p on p.arg_set_id = e.arg_set_id and p.key = 'prev_comm' "
                              "join args n on n.arg_set_id = e.arg_set_id and n.key = 'next_comm' "
                              "order by e.ts;"
                              "select tid, name from thread where tid in (101, 102, 103) order by tid",
                              &o), 0);
  CHECK_EQ_STR(o.text, "10000000000,swapper/0,long-thread-name-AAAA-1;"
                       "10100000000,long-thread-name-AAAA-1,long-thread-name-AAAA-2;"
                       "10200000000,long-thread-name-AAAA-2,long-thread-name-AAAA-3;"
                       "10300000000,renamed,long-thread-name-AAAA-1;"
                       "101,long-thread-name-AAAA-1;102,long-thread-name-AAAA-2;103,renamed;");
}

/* SchedSwitchFtraceEvent {prev_comm, prev_pid, prev_prio, prev_state,
 * next_comm, next_pid, next_prio}. */
static void pb_sched_switch(pb *bundle, uint64_t ts, const char *prev_comm, uint32_t prev_pid,
                            const char *next_comm, uint32_t next_pid) {
  pb sw = {{0}, 0};
  pb_str(&sw, 1, prev_comm);
  pb_int(&sw, 2, prev_pid);
  pb_int(&sw, 3, 120);
  pb_int(&sw, 4, 1);
  pb_str(&sw, 5, next_comm);
  pb_int(&sw, 6, next_pid);
  pb_int(&sw, 7, 120);
  pb_ftrace_event(bundle, ts, prev_pid, 4, &sw);
}

/* A sched_switch comm names a thread that has no name or that ftrace named
 * before; a name from another source (here the process tree) stays. */
static void test_proto_switch_names(void) {
  pb packets[2];
  memset(packets, 0, sizeof packets);
  pb tree = {{0}, 0}, thread = {{0}, 0};
  pb_int(&thread, 1, 7); /* tid */
  pb_str(&thread, 2, "main-ui");
  pb_int(&thread, 3, 7); /* tgid */
  pb_msg(&tree, 2, &thread);
  pb_msg(&packets[0], 2, &tree); /* process_tree */
  pb_int(&packets[0], 8, 50);
  pb bundle = {{0}, 0};
  pb_int(&bundle, 1, 0); /* cpu */
  pb_sched_switch(&bundle, 100, "swapper/0", 0, "ui-from-ftrace", 7);
  pb_sched_switch(&bundle, 200, "ui-from-ftrace", 7, "worker", 8);
  pb_sched_switch(&bundle, 300, "worker", 8, "ui-from-ftrace", 7);
  pb_sched_switch(&bundle, 400, "ui-from-ftrace", 7, "worker-renamed", 8);
  pb_ftrace_packet(&packets[1], &bundle);
  out_buf o;
  CHECK_EQ_INT(load_packets_and_query(packets, 2,
                              "select tid, name from thread where tid in (7, 8) order by tid",
                              &o), 0);
  CHECK_EQ_STR(o.text, "7,main-ui;8,worker-renamed;");
}

int main(void) {
  RUN_TEST(test_json_system_trace_events);
  RUN_TEST(test_json_phase_t);
  RUN_TEST(test_systrace_binder);
  RUN_TEST(test_systrace_switch_comms);
  RUN_TEST(test_proto_switch_names);
  RUN_TEST(test_proto_syscalls_irq_latest);
  RUN_TEST(test_proto_sys_stats);
  RUN_TEST(test_proto_adreno);
  RUN_TEST(test_syscall_tables);
  return CHECK_SUMMARY();
}
