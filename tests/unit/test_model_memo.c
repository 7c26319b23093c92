/* Unit tests: the memos of the model and sched hot paths give what the
 * lookups they stand for give: live-thread lookups across thread ends and
 * tid reuse, thread-in-process lookups, raw sched_switch arg sets and comm strings, task state strings
 * under a kernel release change, per-machine cpu states and comm names. */
#include "check.h"
#include "model/context.h"
#include "model/model.h"
#include "model/sched.h"

static trace_context ctx;

static void setup(void) {
  weft_options o;
  weft_options_default(&o);
  CHECK_EQ_INT(trace_context_init(&ctx, &o), 0);
}

static uint32_t thread_of(uint32_t machine, int64_t tid) {
  uint32_t utid = UINT32_MAX;
  CHECK_EQ_INT(model_thread(&ctx, machine, tid, &utid), 0);
  return utid;
}

static void test_thread_memo_follows_ends_and_reuse(void) {
  setup();
  uint32_t a = thread_of(0, 42);
  CHECK(thread_of(0, 42) == a);
  CHECK(thread_of(0, 42) == a);
  uint32_t other = thread_of(1, 42); /* another machine: another thread */
  CHECK(other != a);
  CHECK(thread_of(0, 42) == a);
  model_thread_end(&ctx, a, 100);
  uint32_t b = thread_of(0, 42); /* ended: a new thread */
  CHECK(b != a);
  CHECK(thread_of(0, 42) == b);
  CHECK(thread_of(1, 42) == other);
  /* The tid moves to another process: a new thread, found from then on. */
  uint32_t in_p1, in_p2;
  CHECK_EQ_INT(model_thread_in_process(&ctx, 0, 42, 7, &in_p1), 0);
  CHECK(thread_of(0, 42) == in_p1);
  CHECK_EQ_INT(model_thread_in_process(&ctx, 0, 42, 8, &in_p2), 0);
  CHECK(in_p2 != in_p1);
  CHECK(thread_of(0, 42) == in_p2);
  /* Many (machine, tid) pairs, more than the memo holds: each stays its own. */
  uint32_t utids[64][40];
  for (uint32_t m = 0; m < 64; m++)
    for (int64_t t = 1000; t < 1040; t++) utids[m][t - 1000] = thread_of(m, t);
  int same = 1;
  for (uint32_t m = 0; m < 64; m++)
    for (int64_t t = 1000; t < 1040; t++) same &= thread_of(m, t) == utids[m][t - 1000];
  CHECK(same);
  trace_context_free(&ctx);
}

static int64_t raw_args(uint32_t row) {
  return storage_get_i64_or(ctx_table(&ctx, TABLE_FTRACE_EVENT), FTRACE_EVENT_arg_set_id, row,
                            -1);
}

/* The string arg `key` of arg set `set` ("" if absent). */
static const char *arg_str(int64_t set, const char *key) {
  storage_table *t = ctx_table(&ctx, TABLE_ARGS);
  for (uint32_t r = 0; r < t->row_count; r++) {
    if (storage_get_i64(t, ARGS_arg_set_id, r) != set) continue;
    const char *k = base_string_pool_get(&ctx.strings, storage_get_str(t, ARGS_key, r));
    if (k && strcmp(k, key) == 0)
      return base_string_pool_get(&ctx.strings, storage_get_str(t, ARGS_string_value, r));
  }
  return "";
}

static void do_switch(int64_t ts, uint32_t cpu, int64_t prev, const char *prev_comm,
                      int64_t prev_state, int64_t next, const char *next_comm) {
  kernel_scope s = {0, 0};
  sched_switch_event e = {ts, cpu, prev, 120, prev_state, prev_comm, strlen(prev_comm),
                          next, 120, next_comm, strlen(next_comm)};
  CHECK_EQ_INT(sched_switch(&ctx, &s, &e), 0);
}

static void test_switch_args_and_comms(void) {
  setup();
  do_switch(10, 0, 0, "swapper/0", 0, 5, "a");
  do_switch(20, 0, 5, "a", 1, 0, "swapper/0");
  do_switch(30, 0, 0, "swapper/0", 0, 5, "a");  /* = the first */
  do_switch(40, 0, 5, "a2", 1, 0, "swapper/0"); /* renamed */
  do_switch(50, 1, 0, "swapper/1", 0, 6, "b");
  do_switch(60, 1, 6, "b", 1, 0, "swapper/1");
  do_switch(70, 1, 0, "swapper/1", 0, 5, "a2");
  do_switch(80, 0, 0, "swapper/0", 0, 5, "a");  /* = the first again */
  CHECK_EQ_INT(ctx_table(&ctx, TABLE_FTRACE_EVENT)->row_count, 8);
  CHECK(raw_args(0) >= 0);
  CHECK(raw_args(2) == raw_args(0));
  CHECK(raw_args(7) == raw_args(0));
  CHECK(raw_args(1) != raw_args(0));
  CHECK(raw_args(3) != raw_args(1));
  CHECK_EQ_STR(arg_str(raw_args(3), "prev_comm"), "a2");
  CHECK_EQ_STR(arg_str(raw_args(1), "prev_comm"), "a");
  CHECK_EQ_STR(arg_str(raw_args(4), "prev_comm"), "swapper/1");
  CHECK_EQ_STR(arg_str(raw_args(5), "next_comm"), "swapper/1");
  CHECK_EQ_STR(arg_str(raw_args(6), "next_comm"), "a2");
  CHECK_EQ_STR(arg_str(raw_args(7), "next_comm"), "a");
  /* An identical set committed by hand gets the same id (dedup by content). */
  storage_table *ev = ctx_table(&ctx, TABLE_FTRACE_EVENT);
  int64_t distinct = 0;
  for (uint32_t r = 0; r < ev->row_count; r++) {
    int seen = 0;
    for (uint32_t q = 0; q < r; q++) seen |= raw_args(q) == raw_args(r);
    distinct += !seen;
  }
  CHECK_EQ_INT(distinct, 6);
  trace_context_free(&ctx);
}

static const char *state_of(uint32_t row) {
  storage_table *t = ctx_table(&ctx, TABLE_SCHED);
  return base_string_pool_get(&ctx.strings, storage_get_str(t, SCHED_end_state, row));
}

static void test_state_memo_and_release(void) {
  setup();
  do_switch(10, 0, 0, "swapper/0", 0, 5, "a");
  do_switch(20, 0, 5, "a", 0x80, 0, "swapper/0"); /* 4.4 layout: K (wakekill) */
  do_switch(30, 0, 0, "swapper/0", 0, 5, "a");
  storage_table *m = ctx_table(&ctx, TABLE_MACHINE);
  uint32_t host;
  CHECK_EQ_INT(machine_host(&ctx.machines, &host), 0); /* made when first needed */
  CHECK_EQ_INT(host, 0);
  string_id rel;
  CHECK_EQ_INT(ctx_intern(&ctx, "5.10.0", 6, &rel), 0);
  storage_set_str(m, MACHINE_release, 0, rel);
  do_switch(40, 0, 5, "a", 0x80, 0, "swapper/0"); /* >= 4.14: I (idle) */
  do_switch(50, 0, 0, "swapper/0", 0, 5, "a");
  CHECK_EQ_STR(state_of(0), "K");
  CHECK_EQ_STR(state_of(2), "I");
  trace_context_free(&ctx);
}

/* Thread and process tracks come from memos after the first lookup: the
 * same track as the keyed lookup finds, one per thread or process and
 * machine, and a new thread (tid reuse) gets a new track. */
static void test_track_memos(void) {
  setup();
  uint32_t a = thread_of(0, 7), b = thread_of(1, 7), ta, ta2, tb, pa, pa2, pb;
  CHECK_EQ_INT(model_thread_track(&ctx, a, &ta), 0);
  CHECK_EQ_INT(model_thread_track(&ctx, a, &ta2), 0);
  CHECK_EQ_INT(model_thread_track(&ctx, b, &tb), 0);
  CHECK(ta == ta2 && ta != tb);
  model_track_spec s;
  model_track_spec_init(&s);
  s.type = "thread_execution";
  s.utid = a;
  uint32_t keyed;
  CHECK_EQ_INT(model_track(&ctx, &s, &keyed), 0);
  CHECK(keyed == ta);
  model_thread_end(&ctx, a, 10);
  uint32_t c = thread_of(0, 7), tc;
  CHECK_EQ_INT(model_thread_track(&ctx, c, &tc), 0);
  CHECK(c != a && tc != ta && tc != tb);
  uint32_t p0, p1;
  CHECK_EQ_INT(model_process(&ctx, 0, 50, &p0), 0);
  CHECK_EQ_INT(model_process(&ctx, 1, 50, &p1), 0);
  CHECK_EQ_INT(model_process_track(&ctx, p0, &pa), 0);
  CHECK_EQ_INT(model_process_track(&ctx, p0, &pa2), 0);
  CHECK_EQ_INT(model_process_track(&ctx, p1, &pb), 0);
  CHECK(pa == pa2 && pa != pb && pa != ta && pa != tc);
  storage_table *tracks = ctx_table(&ctx, TABLE_TRACK);
  CHECK_EQ_INT(storage_get_i64(tracks, TRACK_machine_id, tb), 1);
  CHECK_EQ_INT(storage_get_i64(tracks, TRACK_utid, tc), c);
  CHECK_EQ_INT(storage_get_i64(tracks, TRACK_upid, pb), p1);
  trace_context_free(&ctx);
}

static void switch_on(uint32_t machine, uint32_t cpu, int64_t ts, int64_t prev,
                      const char *prev_comm, int64_t next, const char *next_comm) {
  kernel_scope s = {machine, 0};
  sched_switch_event e = {ts, cpu, prev, 120, 1, prev_comm, strlen(prev_comm),
                          next, 120, next_comm, strlen(next_comm)};
  CHECK_EQ_INT(sched_switch(&ctx, &s, &e), 0);
}

static const char *thread_name(uint32_t utid) {
  storage_table *t = ctx_table(&ctx, TABLE_THREAD);
  const char *n = base_string_pool_get(&ctx.strings, storage_get_str(t, THREAD_name, utid));
  return n ? n : "";
}

/* Cpu states are per (machine, cpu), found without hashing: sparse machine
 * rows and cpus past the first few each keep their own open sched slice,
 * which the next switch on that cpu, and only it, closes; the cpu rows carry
 * Perfetto's ucpu. Thread names follow the comms (compared by string id). */
static void test_cpu_states_by_machine(void) {
  setup();
  static const uint32_t machines[] = {0, 3, 200};
  static const uint32_t cpus[] = {0, 7, 8, 63, 64, 1000, 4095};
  int64_t ts = 100;
  for (int round = 0; round < 2; round++)
    for (size_t m = 0; m < 3; m++)
      for (size_t c = 0; c < 7; c++) {
        int64_t tid = 1000 + (int64_t)(m * 10 + c);
        if (round == 0) switch_on(machines[m], cpus[c], ts++, 0, "swapper", tid, "w");
        else switch_on(machines[m], cpus[c], ts++, tid, "w", 0, "swapper");
      }
  storage_table *sched = ctx_table(&ctx, TABLE_SCHED);
  CHECK_EQ_INT(sched->row_count, 42);
  /* row i (first round) is closed by row i + 21, 21 ns later */
  int closed_by_own_cpu = 1;
  for (uint32_t r = 0; r < 21; r++) {
    closed_by_own_cpu &= storage_get_i64(sched, SCHED_dur, r) == 21;
    closed_by_own_cpu &= storage_get_i64(sched, SCHED_ucpu, r) ==
                         storage_get_i64(sched, SCHED_ucpu, r + 21);
  }
  CHECK(closed_by_own_cpu);
  CHECK_EQ_INT(storage_get_i64(sched, SCHED_ucpu, 20), 200 * 4096 + 4095);
  CHECK_EQ_INT(ctx_table(&ctx, TABLE_CPU)->row_count, 21);
  /* out of range: an error for a switch, a skipped compact waking */
  kernel_scope far = {3, 0};
  sched_switch_event bad = {ts, 4096, 0, 120, 0, "swapper", 7, 1, 120, "w", 1};
  CHECK_EQ_INT(sched_switch(&ctx, &far, &bad), WEFT_EINVAL);
  CHECK_EQ_INT(sched_waking_compact(&ctx, &far, ts, 5000, 1, 0, 120, "w", 1, -1, 0), 0);
  CHECK_EQ_INT(stats_total(&ctx.stats, stat_compact_sched_waking_skipped), 1);
  /* names: renamed by a later comm, kept when another source named it */
  uint32_t renamed = thread_of(3, 1010), named = thread_of(3, 2000);
  CHECK_EQ_STR(thread_name(renamed), "w");
  switch_on(3, 0, ts++, 0, "swapper", 1010, "w2");
  CHECK_EQ_STR(thread_name(renamed), "w2");
  CHECK_EQ_INT(model_thread_set_name(&ctx, named, "main", 4), 0);
  switch_on(3, 0, ts++, 1010, "w2", 2000, "w3");
  CHECK_EQ_STR(thread_name(named), "main");
  switch_on(3, 0, ts++, 2000, "w3", 1010, "w");
  CHECK_EQ_STR(thread_name(renamed), "w");
  trace_context_free(&ctx);
}

static uint32_t member_of(uint32_t machine, int64_t tid, int64_t pid) {
  uint32_t utid = UINT32_MAX;
  CHECK_EQ_INT(model_thread_in_process(&ctx, machine, tid, pid, &utid), 0);
  return utid;
}

static int64_t upid_of(uint32_t utid) {
  return storage_get_i64_or(ctx_table(&ctx, TABLE_THREAD), THREAD_upid, utid, -1);
}

/* model_thread_in_process repeated gives the same thread from its memo, and
 * what the lookups give once threads or processes change: a tid met in
 * another process gets a new thread, and back in the first process finds
 * its earlier thread again; a thread of an ended process gets a new thread
 * in the new process of that pid. */
static void test_membership_memo(void) {
  setup();
  uint32_t a = member_of(0, 42, 7);
  CHECK(member_of(0, 42, 7) == a);
  CHECK(member_of(1, 42, 7) != a); /* another machine */
  uint32_t b = member_of(0, 42, 8);
  CHECK(b != a && upid_of(b) != upid_of(a));
  /* back: the tid's earlier thread in process 7, still alive, again */
  uint32_t c = member_of(0, 42, 7);
  CHECK(c == a && upid_of(c) == upid_of(a));
  CHECK(member_of(0, 42, 8) == b);
  CHECK(member_of(0, 42, 7) == a);
  uint32_t t = member_of(0, 43, 7);
  int64_t old_upid = upid_of(t);
  model_process_end(&ctx, (uint32_t)old_upid, 50);
  uint32_t t2 = member_of(0, 43, 7);
  CHECK(t2 != t && upid_of(t2) >= 0 && upid_of(t2) != old_upid);
  CHECK(member_of(0, 43, 7) == t2);
  /* many triples, more than the memo holds: each stays its own */
  uint32_t utids[32][40];
  for (int64_t p = 0; p < 32; p++)
    for (int64_t t3 = 0; t3 < 40; t3++) utids[p][t3] = member_of(2, 1000 + p * 100 + t3, 1000 + p);
  int same = 1;
  for (int64_t p = 0; p < 32; p++)
    for (int64_t t3 = 0; t3 < 40; t3++)
      same &= member_of(2, 1000 + p * 100 + t3, 1000 + p) == utids[p][t3];
  CHECK(same);
  trace_context_free(&ctx);
}

int main(void) {
  RUN_TEST(test_thread_memo_follows_ends_and_reuse);
  RUN_TEST(test_switch_args_and_comms);
  RUN_TEST(test_state_memo_and_release);
  RUN_TEST(test_track_memos);
  RUN_TEST(test_cpu_states_by_machine);
  RUN_TEST(test_membership_memo);
  return CHECK_SUMMARY();
}
