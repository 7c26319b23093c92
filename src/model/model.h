/* model: the trackers importers write through — processes and threads
 * (upid/utid with pid/tid reuse), tracks, slice stacks, counters and args.
 *
 * Owns the lookup state (maps from pid/tid/track keys to rows, per-track
 * slice stacks); the rows themselves live in the context's tables.
 * Invariants: a (machine, tid) maps to at most one live utid, a (machine,
 * pid) to at most one live upid; upid 0 / utid 0 are the host's idle process
 * and swapper thread; every slice on a track nests inside the open slices of
 * that track's stack (depth = stack height, parent = top of stack). Events
 * must arrive in timestamp order (the sorter guarantees it). */
#ifndef WEFT_MODEL_H
#define WEFT_MODEL_H

#include "base/base.h"
#include "base/json_tokenizer.h"

typedef struct trace_context trace_context;

/* A recent live_threads lookup; valid while `generation` is the state's
 * thread_generation (bumped whenever live_threads changes). */
typedef struct model_thread_memo {
  int64_t tid;
  uint32_t machine, utid, generation;
} model_thread_memo;

#define MODEL_THREAD_MEMO 4096 /* entries, a power of two */

/* A recent model_thread_in_process(machine, tid, pid) that found `utid`;
 * valid while `generation` is the state's thread_generation (repeating the
 * call then changes nothing and finds the same thread). */
typedef struct model_membership_memo {
  int64_t tid, pid;
  uint32_t machine, utid, generation;
} model_membership_memo;

#define MODEL_MEMBERSHIP_MEMO 1024 /* entries, a power of two */

/* utid or upid -> trace file << 32 | its track's id + 1 in that file
 * (low half 0: none yet): dense, as the ids are, so a thread event finds
 * its track with one read. */
typedef VEC(uint64_t) model_track_memo;

typedef struct model_thread_pair {
  uint32_t a, b;
} model_thread_pair;

typedef struct model_state {
  base_map live_threads;   /* (machine, tid) -> utid */
  model_thread_memo *thread_memo; /* by (machine, tid); lazy, NULL if none */
  model_membership_memo *membership_memo; /* by (machine, tid, pid); lazy */
  /* >= 1; bumped whenever live_threads or live_processes changes */
  uint32_t thread_generation;
  base_map live_processes; /* (machine, pid) -> upid */
  /* utid -> the thread of the same (machine, tid) made before it, + 1 (0:
   * none): with live_threads, each tid's threads newest first, so that a
   * (tid, pid) lookup finds an older thread of that process */
  VEC(uint32_t) earlier_same_tid;
  VEC(uint32_t) idle_threads; /* machine row -> its idle thread's utid + 1 (0: not begun) */
  int idle_bound; /* a machine has begun: utid 0 is its idle thread */

  /* pairs of utids known to share a process that neither has yet (a
   * CLONE_THREAD from a thread of unknown process); resolved when one of
   * them is attached to a process */
  VEC(struct model_thread_pair) pending_joins;
  model_track_memo thread_tracks;  /* by utid */
  model_track_memo process_tracks; /* by upid */
  base_map keyed_tracks;   /* hash of a track's identity -> track id */
  VEC(uint32_t) stack_by_track; /* track id -> index into `stack_list` + 1, 0: none */
  VEC(struct model_stack) stack_list;
  base_map arg_sets;       /* hash of an arg set -> arg_set_id */
  VEC(int64_t) replaced_arg_sets; /* sets a slice stopped using (args_order.c) */
  /* The order in which Perfetto's args trackers would write the sets while
   * loading (args_order.c): the sets committed (their ids) and the slices
   * that left a stack (their ids | MODEL_ARGS_LOG_POP), in that order. */
  VEC(uint32_t) args_log;
  int args_log_overflow;   /* an id did not fit the log: no reordering */
  int args_end_noted;      /* model_args_note_end ran */
  int args_final;          /* model_args_finalize ran: sets are in place */
  base_map cpu_rows;       /* ucpu + 1 -> its __intrinsic_cpu row */
  base_map track_groups;   /* model_track_spec.group_key -> track_group_id */
  VEC(struct model_arg) pending_args;
  string_id arg_type_names[8]; /* value_type strings by model_arg_type, lazy */
  struct flow_state *flow; /* model/flow.h; NULL until the first flow */
  struct kernel_state *kernel; /* sched/ftrace model (model/sched.h), lazy */
  struct kslice_state *kslice; /* kernel slices (model/kslice.h), lazy */
  struct gkernel_state *gkernel; /* generic kernel (model/gkernel.h), lazy */
  struct kpower_state *kpower; /* wakelocks, suspend/resume (model/kpower.h), lazy */
  struct ki2c_state *ki2c; /* i2c transfers in flight (model/ki2c.h), lazy */
  struct kdrm_state *kdrm; /* DRM vblank/sched/fence slices (model/kdrm.h), lazy */
  struct knet_state *knet; /* network events (model/knet.h), lazy */
  struct kdev_state *kdev; /* ufs/f2fs/cros_ec/cma events (model/kdev.h), lazy */
  struct kv4l2_state *kv4l2; /* V4L2 buffer events (model/kv4l2.h), lazy */
  struct kvirtio_state *kvirtio; /* virtio-video events (model/kvirtio.h), lazy */
  struct gpu_state *gpu; /* gpus, GPU counters and tracks (model/gpu.h), lazy */
  struct android_fs_state *android_fs; /* android_fs reads (model/android.h), lazy */
  struct atrace_state *atrace; /* atrace async track sets (model/atrace.h), lazy */
  struct kmem_state *kmem; /* ion / dma heap buffer tracks (model/kmem.h), lazy */
  struct model_process_args *process_args; /* model_process_args_add; lazy */
  struct heap_graph_state *heap_graph; /* Java heap dumps (model/heap_graph.h), lazy */
  struct stack_profile_state *stack_profile; /* model/stack_profile.h; lazy */
  struct stack_sample_state *stack_sample; /* model/stack_sample.h; lazy */
  struct v8_profile_state *v8_profile; /* model/v8_profile.h; lazy */
  struct etw_state *etw; /* ETW file I/O (model/etw.h); lazy */
  struct frame_timeline_state *frame_timeline; /* model/frame_timeline.h; lazy */
  struct proto_content_state *proto_content; /* model/proto_content.h; lazy */
  /* the machine and trace file of the event being parsed: the scope of the
   * stats the model counts itself (misplaced_end_event); the file's tracks
   * are its own (model_track) */
  int64_t scope_machine, scope_trace;
} model_state;

/* A slice on a stack with its ts and dur (-1 while open), kept equal to its
 * row's: the stack is read on every slice event, the table rows are not. */
typedef struct model_stack_entry {
  int64_t ts, dur;
  uint32_t slice;
} model_stack_entry;

typedef struct model_stack {
  VEC(model_stack_entry) slices; /* bottom first */
} model_stack;

typedef enum model_arg_type {
  MODEL_ARG_INT, MODEL_ARG_UINT, MODEL_ARG_STRING, MODEL_ARG_REAL,
  MODEL_ARG_POINTER, MODEL_ARG_BOOL, MODEL_ARG_JSON, MODEL_ARG_NULL
} model_arg_type;

typedef struct model_arg {
  string_id key;
  string_id flat_key;
  model_arg_type type;
  int64_t int_value;
  double real_value;
  string_id string_value;
} model_arg;

int model_init(trace_context *ctx);
void model_free(model_state *m);

/* machine row -> the value of machine_id columns. The host is row 0, and
 * Perfetto's machine-scoped tables say 0 (not NULL) for it. */
static inline int64_t model_machine_column(uint32_t machine) {
  return (int64_t)machine;
}

/* ---- processes and threads ---- */
int model_process(trace_context *ctx, uint32_t machine, int64_t pid,
                  uint32_t *upid);
/* A new process for pid even if one is live (pid reuse / process start). */
int model_process_start(trace_context *ctx, uint32_t machine, int64_t pid,
                        int64_t ts, uint32_t *upid);
int model_thread(trace_context *ctx, uint32_t machine, int64_t tid,
                 uint32_t *utid);
/* 1 and *utid if a live thread has this tid, else 0 (nothing created). */
int model_thread_find(trace_context *ctx, uint32_t machine, int64_t tid,
                      uint32_t *utid);
/* A new thread for tid even if one is live (tid reuse); no process yet.
 * ts < 0 leaves start_ts NULL. */
int model_thread_start(trace_context *ctx, uint32_t machine, int64_t tid,
                       int64_t ts, uint32_t *utid);
/* Finds or creates the thread and attaches it to the process `pid`. */
int model_thread_in_process(trace_context *ctx, uint32_t machine, int64_t tid,
                            int64_t pid, uint32_t *utid);
/* Perfetto's UpdateThread: model_thread_in_process, but a process new to
 * the load first gets its main thread (tid = pid), before the thread. */
int model_thread_update(trace_context *ctx, uint32_t machine, int64_t tid, int64_t pid,
                        uint32_t *utid);
/* Perfetto's GetOrCreateProcess: the live process of pid, or a new one
 * with its main thread (tid = pid, model_thread_in_process). */
int model_process_and_main_thread(trace_context *ctx, uint32_t machine, int64_t pid,
                                  uint32_t *upid);
int model_thread_set_name(trace_context *ctx, uint32_t utid, const char *name,
                          size_t len);
int model_process_set_name(trace_context *ctx, uint32_t upid, const char *name,
                           size_t len);
/* Sets the process's start_ts if it has none. */
void model_process_set_start_if_unset(trace_context *ctx, uint32_t upid, int64_t ts);
/* Sets the process's arg set (-1: none). */
void model_process_set_args(trace_context *ctx, uint32_t upid, int64_t arg_set);
/* Process args that accumulate over a load: model_process_args_add moves
 * the pending args (model_arg_*) into the process's accumulated args (a key
 * it has already takes the new value in its place, new keys follow);
 * model_process_args_flush then makes them the arg set of each such
 * process (replacing one set otherwise), one arg set per process. */
int model_process_args_add(trace_context *ctx, uint32_t upid);
int model_process_args_flush(trace_context *ctx);
void model_process_args_free(model_state *m);
/* Attaches a thread to `upid` (its main thread if its tid is the pid),
 * then every thread waiting to join it (model_threads_join), transitively. */
void model_thread_attach(trace_context *ctx, uint32_t utid, uint32_t upid);
/* Two threads of one process (a thread and the thread that cloned it): one
 * without a process joins the other's; if neither has one, the pair waits
 * until one is attached. Different processes: 1 (the caller counts the
 * error), else 0 or a negative status. */
int model_threads_join(trace_context *ctx, uint32_t a, uint32_t b);
/* 1 and *upid if a live process has this pid, else 0 (nothing created). */
int model_process_find(trace_context *ctx, uint32_t machine, int64_t pid,
                       uint32_t *upid);
/* Ends a process: the next lookup of its pid creates a new upid. */
void model_process_end(trace_context *ctx, uint32_t upid, int64_t ts);
/* Ends a thread: the next lookup of its tid creates a new utid. */
void model_thread_end(trace_context *ctx, uint32_t utid, int64_t ts);

/* ---- tracks ---- */
typedef struct model_track_spec {
  const char *name;       /* may be NULL */
  const char *type;       /* Perfetto's classification, e.g. "thread" */
  int is_counter;         /* event_type 'counter' (else 'slice') */
  uint32_t machine;
  int64_t utid, upid, cpu; /* -1 when not a dimension; cpu: the ucpu */
  int64_t cpu_number;     /* the cpu dimension arg when cpu is set: the cpu's
                             number on its machine; -1: the ucpu itself */
  int64_t parent_id;      /* -1 for none */
  const char *unit;       /* counters; may be NULL */
  uint64_t extra_key;     /* distinguishes otherwise equal tracks (uuid...) */
  int64_t compressor_idx; /* dimension track_compressor_idx (after utid, upid,
                             cpu); -1 for none */
  const char *source;     /* source arg {source: <this>}; NULL for none */
  const char *source_key; /* that arg's key instead of "source", or NULL */
  const char *dim_key;    /* one more dimension arg (after cpu), or NULL: */
  const char *dim_str;    /* its string value, or NULL for */
  int64_t dim_int;        /* its int value; the caller keeps tracks with
                             different values apart (name or extra_key) */
  int dim_null;           /* 1: the dim_key arg is a NULL string */
  int own_dims;           /* 1: no dimension args from the spec; the caller
                             sets its own (model_track_set_arg_sets) */
  int dim_first;          /* 1: dim_key comes before track_compressor_idx;
                             2: before all the other dimensions */
  const char *dim2_key;   /* a second string dimension arg after it, or NULL */
  const char *dim2_str;
  /* nonzero: the track belongs to this set of interchangeable tracks (a
   * track compressor's set, model_track_group_key); each set's tracks
   * share a track_group_id, numbered in the order sets get their first */
  uint64_t group_key;
} model_track_spec;
/* A group key for set `set` of the compressor (or other owner) at `owner`. */
uint64_t model_track_group_key(const void *owner, uint64_t set);
void model_track_spec_init(model_track_spec *s);
/* Replaces a track's dimension / source arg sets (-1: keeps that one); a
 * replaced set no row uses any more leaves the args table when loading
 * ends (model_args_finalize). */
void model_track_set_arg_sets(trace_context *ctx, uint32_t track, int64_t dims, int64_t src);
/* Finds the track with this identity or creates it. */
int model_track(trace_context *ctx, const model_track_spec *spec,
                uint32_t *track);
/* The default slice track of a thread / process. */
int model_thread_track(trace_context *ctx, uint32_t utid, uint32_t *track);
/* A file's data on `machine` (a row) is about to be read: the first
 * machine so begun has upid 0 and utid 0 as its idle process and thread
 * (until then they are row 0's), every later one gets an idle process and
 * thread of its own now, as Perfetto makes a machine's context when its
 * first file or packet comes. Once per machine. */
int model_machine_begin(trace_context *ctx, uint32_t machine);

/* The utid of the idle thread of `machine` (UINT32_MAX: no such row). */
uint32_t model_idle_thread(const trace_context *ctx, uint32_t machine);
/* Names the idle thread of `machine` "swapper" unless it has a name, as
 * Perfetto does for the machines of proto and kernel data (not of JSON). */
int model_name_idle_thread(trace_context *ctx, uint32_t machine);
int model_process_track(trace_context *ctx, uint32_t upid, uint32_t *track);

/* ---- slices ---- */
/* The slice stack of a track, or NULL if it never had one. */
struct model_stack *model_stack_find(trace_context *ctx, uint32_t track);
/* For asserts: 1 if entry i of the stack agrees with its slice row —
 * depth i, parent the entry below (none for the bottom one), the same ts,
 * and the same dur unless the entry is still open (1 too once a setter of
 * the slice table failed: its rows are incomplete and the load fails). */
int model_stack_entry_matches_row(trace_context *ctx, const struct model_stack *st, size_t i);
/* Before an event at ts on the stack's track: slices still open above a
 * slice that ended before ts (ended below the top, e.g. by a name-matched
 * end) end where it ended and leave the stack with it, counted as a
 * misplaced_end_event, as Perfetto closes them on the track's next event.
 * An event at the very end of that slice still nests in the open ones. */
int model_stack_close_orphans(trace_context *ctx, struct model_stack *st, int64_t ts);
/* Pops the stack's top slices down to `len` entries, top first, noting
 * each pop for the args order (model_args_note_pop). */
int model_stack_truncate(trace_context *ctx, struct model_stack *st, size_t len);
int model_slice_begin(trace_context *ctx, uint32_t track, int64_t ts,
                      string_id category, string_id name, int64_t arg_set,
                      uint32_t *slice);
/* Ends the innermost open slice on the track; *slice = -1 if none. */
int model_slice_end(trace_context *ctx, uint32_t track, int64_t ts,
                    int64_t *slice);
int model_slice_complete(trace_context *ctx, uint32_t track, int64_t ts,
                         int64_t dur, string_id category, string_id name,
                         int64_t arg_set, uint32_t *slice);
/* Sets a slice's arg_set_id (args known only at the end). */
void model_slice_set_args(trace_context *ctx, uint32_t slice, int64_t arg_set);

/* ---- chrome raw events (legacy events kept for JSON export) ---- */
int model_chrome_raw(trace_context *ctx, int64_t ts, string_id name, uint32_t utid,
                     int64_t arg_set);

/* ---- file descriptors (the filedescriptor table) ---- */
int model_filedescriptor(trace_context *ctx, uint32_t upid, int64_t ts, int64_t fd,
                         string_id path);

/* ---- counters ---- */
int model_counter(trace_context *ctx, uint32_t track, int64_t ts, double value,
                  int64_t arg_set);
/* The same, with the new row's id. */
int model_counter_row(trace_context *ctx, uint32_t track, int64_t ts, double value,
                      int64_t arg_set, uint32_t *row);
/* Changes a counter row's value (values reported after their time). */
void model_counter_set_value(trace_context *ctx, uint32_t row, double value);

/* ---- args: collect with model_arg_*, then commit to an arg set id ---- */
int model_arg_int(trace_context *ctx, const char *key, size_t key_len,
                  model_arg_type type, int64_t value);
int model_arg_real(trace_context *ctx, const char *key, size_t key_len,
                   double value);
/* value NULL: a NULL string (ctx_intern's). */
int model_arg_string(trace_context *ctx, const char *key, size_t key_len,
                     const char *value, size_t value_len, model_arg_type type);
/* The same with an interned key that has no [index] (key = flat_key). */
int model_arg_int_id(trace_context *ctx, string_id key, model_arg_type type,
                     int64_t value);
int model_arg_string_id(trace_context *ctx, string_id key, string_id value,
                        model_arg_type type);
/* Rewrites args row `row` as a string arg `key` = value (values known only
 * after the set was written, e.g. symbols that arrive at the end). */
int model_arg_row_set_string(trace_context *ctx, uint32_t row, string_id key,
                             string_id value);
/* Replaces the value of string args row `row`. */
int model_arg_row_set_string_value(trace_context *ctx, uint32_t row, string_id value);
/* Commits the pending args (deduplicated); -1 if none were pending. */
int model_args_commit(trace_context *ctx, int64_t *arg_set);
/* Adds the JSON value whose first token `t` was just read from `tk` to the
 * pending args under the key in `key` (model/args_json.c): objects and
 * arrays flattened into "key.member" and "key[i]" (nulls skipped, taking
 * no index; nesting past 32 levels skipped), strings, ints, reals and
 * bools with their types. `key` is restored before it returns. */
int model_args_json_value(trace_context *ctx, json_tokenizer *tk, const json_token *t,
                          base_buf *key, base_error *err);
/* Puts the args of an existing set back into the pending args (before any
 * added next), so that a set can be extended into a new one; -1: none. */
int model_args_reopen(trace_context *ctx, int64_t arg_set);
/* An arg set's id is the args row of its first arg, as Perfetto's. While
 * loading, sets are written when committed; Perfetto writes a slice's args
 * only when the slice leaves its track's stack (ended, or passed by a
 * later event), and the slices still on stacks at the end of the trace
 * track by track in the order of its slice tracker's hash map. So the
 * model notes each pop (model_args_note_pop), and once loading ends
 * model_args_finalize (args_order.c) puts the sets in Perfetto's order and
 * renumbers every arg_set_id column (WEFT_REFS). It also drops the sets
 * slices stopped using (an end event's args joined to the begin's make a
 * new set) that no row refers to. Sets committed after it are appended. */
#define MODEL_ARGS_LOG_POP UINT32_C(0x80000000)
int model_args_note_pop(trace_context *ctx, uint32_t slice);
/* The end of the events: the slices still on stacks are written here (as
 * if each left its stack, in Perfetto's order), so sets committed after it
 * (importers' ends) come after theirs. model_args_finalize does it if no
 * one did. */
int model_args_note_end(trace_context *ctx);
int model_args_finalize(trace_context *ctx);
/* How many args are pending. */
size_t model_args_pending(const trace_context *ctx);
/* 1 if a pending arg has this key. */
int model_args_pending_has(trace_context *ctx, const char *key, size_t key_len);
/* Pending args from index `first` on whose key an earlier pending arg has
 * replace that arg's value (in its place) instead of being added. */
void model_args_update_from(trace_context *ctx, size_t first);
/* The same, after renumbering arrays that continue: a pending arg from
 * `first` on whose key starts "a[i]" where earlier pending args have
 * elements of array "a" becomes "a[n + i]", n the array's next index then
 * (an end event's array elements follow its begin's). */
int model_args_merge_from(trace_context *ctx, size_t first);
void model_args_discard(trace_context *ctx);

#endif
