/* stack_profile: interned callstacks shared by every profile kind — the
 * stack_profile_mapping, stack_profile_frame and stack_profile_callsite
 * tables — and the deobfuscation of Java frame names.
 *
 * Rows are interned for the whole trace, whatever sequence or file names
 * them:
 *  - a mapping by all of its columns (build id, offsets, range, load bias,
 *    name), unless the importer makes it a row of its own
 *    (stack_profile_mapping_new: a process's memory, a dummy mapping);
 *  - a frame by (mapping, rel_pc, name): two names at one pc (a JIT cache
 *    reused) are two frames;
 *  - a callsite by (parent callsite, frame); its depth is its parent's + 1.
 * Track events name frames by source rather than address
 * (stack_profile_inline_frame).
 * Build ids are stored as lowercase hex of their bytes (but 33-byte Breakpad
 * module ids, as written)
 * (stack_profile_build_id_hex).
 *
 * Deobfuscation (stack_profile_deobfuscate_frames): a frame named
 * "<obfuscated class>.<obfuscated method>" whose class and method a
 * mapping of the frame's package renames gets deobfuscated_name
 * "<class>.<method>"; see model/stack_profile_deobf.c. */
#ifndef WEFT_MODEL_STACK_PROFILE_H
#define WEFT_MODEL_STACK_PROFILE_H

#include "base/base.h"

typedef struct trace_context trace_context;
typedef struct stack_profile_state stack_profile_state;

typedef struct stack_profile_mapping_spec {
  string_id build_id; /* already hex (stack_profile_build_id_hex) */
  string_id name;
  int64_t exact_offset, start_offset, start, end, load_bias;
} stack_profile_mapping_spec;

/* Interns a mapping; *id is its stack_profile_mapping row. */
int stack_profile_mapping(trace_context *ctx, const stack_profile_mapping_spec *spec,
                          uint32_t *id);
/* Appends a mapping row even when one with the same columns exists (a
 * profile's own "dummy" mapping). */
int stack_profile_mapping_new(trace_context *ctx, const stack_profile_mapping_spec *spec,
                              uint32_t *id);
/* Interns a frame of `mapping` (name may be STRING_NULL); `type` is the
 * frame's kind (STRING_NULL: none) and is set when the frame is created. */
int stack_profile_frame(trace_context *ctx, uint32_t mapping, string_id name,
                        int64_t rel_pc, string_id type, uint32_t *id);
/* Interns a callsite: `frame` called from `parent` (-1 for a root). */
int stack_profile_callsite(trace_context *ctx, int64_t parent, uint32_t frame,
                           uint32_t *id);
/* stack_profile_callsite, but a new callsite's depth is `depth`, not its
 * parent's + 1: Perfetto's perf text importer counts a root as depth 1 and
 * its callees from there. Keyed by (parent, frame) all the same. */
int stack_profile_callsite_at_depth(trace_context *ctx, int64_t parent, uint32_t frame,
                                    int64_t depth, uint32_t *id);
/* A frame's key (stack_profile_frame's arguments but its type). */
typedef struct stack_profile_frame_key {
  uint32_t mapping;
  string_id name;
  int64_t rel_pc;
} stack_profile_frame_key;
/* Interns frames keys[0..n) as n stack_profile_frame calls in order
 * (type STRING_NULL) would, into ids[0..n); their index slots are
 * fetched a batch at a time, so a long backtrace waits for memory about
 * once per batch instead of once per frame. */
int stack_profile_frames(trace_context *ctx, const stack_profile_frame_key *keys, size_t n,
                         uint32_t *ids);
/* Interns the callsites of frames[0..n), root first, under `parent` (-1:
 * the first is a root), as n stack_profile_callsite calls would; *leaf is
 * the last one's row (parent when n is 0). Once one is new, so is every
 * one below it: those are appended without lookups, their slots fetched
 * a batch at a time. */
int stack_profile_callsite_chain(trace_context *ctx, int64_t parent, const uint32_t *frames,
                                 size_t n, int64_t *leaf);
/* Makes room for about `frames` more frames and `callsites` more callsites
 * (their indexes and table rows), for an importer that knows roughly how
 * many distinct ones are coming: sized once instead of grown step by step.
 * A hint below the truth only means growing later; one above it costs
 * memory, so pass a count the input bounds from below when in doubt. */
int stack_profile_reserve(trace_context *ctx, size_t frames, size_t callsites);
/* Interns the lowercase hex of `len` raw bytes (33 bytes, a Breakpad
 * module id, are kept as they are). */
int stack_profile_build_id_hex(trace_context *ctx, const uint8_t *bytes, size_t len,
                               string_id *out);

/* A renamed method of an obfuscated Java class, in the order a
 * deobfuscation mapping lists them; a line is -1 when not given. */
typedef struct stack_profile_member {
  string_id obfuscated, deobfuscated;
  int64_t obfuscated_line_start, obfuscated_line_end, source_line_start;
} stack_profile_member;

/* Starts the classes of one more DeobfuscationMapping packet: later
 * packets rename a frame again over earlier ones. */
int stack_profile_deobfuscation_mapping(trace_context *ctx);
/* Records that class `obfuscated` of `package` (STRING_NULL: none; such a
 * class renames no frame) is `deobfuscated` (both as written, dotted) with
 * `count` renamed methods, in the current mapping packet. Applied to the
 * frames by stack_profile_deobfuscate_frames. */
int stack_profile_add_class(trace_context *ctx, string_id package, string_id obfuscated,
                            string_id deobfuscated, const stack_profile_member *members,
                            size_t count);
/* Sets deobfuscated_name on every frame whose "class.method" name a
 * recorded class of the frame's package renames (call once the frames
 * exist, at end of load); see stack_profile_deobf.c for the rules. */
int stack_profile_deobfuscate_frames(trace_context *ctx);
/* Counts (stat symbolization_tmp_build_id_not_found, once per call) each
 * mapping under /data/local/tmp/ without a build id: it cannot be
 * symbolized. Called at the end of each proto file, over all mappings. */
int stack_profile_count_tmp_without_build_id(trace_context *ctx, int64_t machine,
                                             int64_t trace);

/* ---- samples on callsites ---- */

/* A heap dump of process `upid` (a heap_profile row over [start, ts];
 * heap may be STRING_NULL); sets stat heapprofd_last_profile_timestamp[upid]
 * to packet_ts (the time of the packet holding it). */
typedef struct stack_profile_heap_dump_spec {
  int64_t start, ts, packet_ts;
  uint32_t upid;
  string_id heap;
  int64_t machine, trace;
  int64_t pid; /* the index of heapprofd_last_profile_timestamp */
} stack_profile_heap_dump_spec;
int stack_profile_heap_dump(trace_context *ctx, const stack_profile_heap_dump_spec *d);
/* A heap_profile_allocation row. */
int stack_profile_heap_allocation(trace_context *ctx, int64_t ts, uint32_t upid,
                                  string_id heap, uint32_t callsite, int64_t count,
                                  int64_t size);

typedef struct stack_profile_perf_sample {
  int64_t ts;
  uint32_t utid, machine;
  int64_t cpu;        /* -1: NULL */
  string_id cpu_mode;
  string_id context_mode; /* the execution context's mode; STRING_NULL: unknown */
  int64_t callsite;   /* -1: NULL */
  string_id unwind_error;
  int64_t session;
  int64_t counter_set; /* -1: NULL (stack_profile_counter_set) */
} stack_profile_perf_sample;

/* A perf sample: a stack sample of source "linux.perf" in its session,
 * with the task context (upid, utid) of its thread and the execution
 * context (ucpu, mode) when either is known (model/stack_profile_perf.c). */
int stack_profile_perf_sample_add(trace_context *ctx, const stack_profile_perf_sample *s);
/* The profilers whose samples cpu_profile_stack_sample shows. */
typedef enum stack_profile_cpu_source {
  STACK_PROFILE_CPU_CHROME,     /* StreamingProfilePacket: "chrome" */
  STACK_PROFILE_CPU_LEGACY_V8,  /* V8 ProfileChunk events: "legacy_v8" */
  STACK_PROFILE_CPU_GECKO,      /* Firefox profiles: "gecko" */
  STACK_PROFILE_CPU_SIMPLEPERF, /* simpleperf_proto: "simpleperf" */
  STACK_PROFILE_CPU_PERF_TEXT   /* `perf script` text: "perf_text" */
} stack_profile_cpu_source;
/* A stack sample of `source` on thread utid with no session or execution
 * context; its task context is (the thread's process, the thread) for
 * chrome and legacy_v8, (NULL, the thread) for gecko, simpleperf and perf_text
 * (model/stack_profile_samples.c). */
int stack_profile_cpu_sample(trace_context *ctx, stack_profile_cpu_source source, int64_t ts,
                             uint32_t callsite, uint32_t utid, int64_t process_priority);

/* An __intrinsic_aggregate_profile row: a profile of counts per callstack
 * without times (scope, name, sample type and unit as given). */
int stack_profile_aggregate_profile(trace_context *ctx, const char *scope, const char *name,
                                    const char *sample_type, const char *unit, uint32_t *id);
/* An __intrinsic_aggregate_sample row: `value` of `callsite` in `profile`. */
int stack_profile_aggregate_sample(trace_context *ctx, uint32_t profile, uint32_t callsite,
                                   double value);

/* A stack sample of source "instruments" (callsite -1: NULL): task context
 * (the thread's process, the thread), execution context (ucpu of cpu on
 * machine, no mode). */
int stack_profile_instruments_sample(trace_context *ctx, uint32_t machine, int64_t ts,
                                     uint32_t utid, int64_t callsite, int64_t cpu);

/* ---- smaps ---- */

/* A profiler_smaps row: a mapping of process upid at ts (strings
 * STRING_NULL when absent; a path ending " (deleted)" is stored trimmed in
 * path_trimmed with is_deleted set). */
typedef struct stack_profile_smaps_entry {
  int64_t ts;
  uint32_t upid;
  string_id path, file_name, module_debugid, module_debug_path;
  int64_t size_kb, private_dirty_kb, swap_kb, start_address, module_timestamp;
  int64_t protection_flags, private_clean_resident_kb, shared_dirty_resident_kb;
  int64_t shared_clean_resident_kb, locked_kb, proportional_resident_kb;
} stack_profile_smaps_entry;
int stack_profile_smaps_add(trace_context *ctx, const stack_profile_smaps_entry *e);

/* ---- track-event callstacks ---- */

/* A frame of a track event's inline callstack (name and file may be
 * STRING_NULL, line -1 for none). Such frames live on one mapping named
 * "track_event_inline" (empty build id, range 0..-1): the
 * stack_profile_symbol_frame of that mapping. */
int stack_profile_inline_frame(trace_context *ctx, string_id name, string_id file, int64_t line,
                               uint32_t *frame);

/* A frame of `mapping` named by source rather than address: interned by
 * (mapping, name, file, line), rel_pc 0, with its own stack_profile_symbol
 * row (name, file; line -1 for none) whose id is its symbol_set_id. */
int stack_profile_symbol_frame(trace_context *ctx, uint32_t mapping, string_id name,
                               string_id file, int64_t line, uint32_t *frame);

/* Gives `frame` a symbol set of one symbol (name, file: STRING_NULL for
 * none; line -1 for none) unless it has one already. */
int stack_profile_frame_symbol(trace_context *ctx, uint32_t frame, string_id name,
                               string_id file, int64_t line);

typedef struct stack_profile_event_callstack {
  uint32_t slice, track;
  uint32_t callsite;
  int at_end;     /* the slice's end: callsite is its end_callsite_id */
  int has_weight;
  double weight;
} stack_profile_event_callstack;

/* A __intrinsic_track_event_callstacks row. */
int stack_profile_event_callstack_add(trace_context *ctx, const stack_profile_event_callstack *cs);

/* ---- perf sessions (model/stack_profile_perf.c) ---- */

/* The counter set of `n` counter rows a sample read: *set is the id of its
 * first __intrinsic_profiler_counter_set row, -1 when n is 0. */
int stack_profile_counter_set(trace_context *ctx, const uint32_t *counters, size_t n,
                              int64_t *set);

/* A new perf session: a stack sample session of source "linux.perf"
 * sampling on a timebase of `unit` (STRING_NULL: unknown); *id is its id
 * (and perf_session_id). */
int stack_profile_perf_session(trace_context *ctx, string_id unit, int64_t *id);
/* The "perf_cpu_counter" track named `name` of a session's cpu (made on
 * first use: dimension args cpu, perf_session_id, name; source arg
 * is_timebase). */
int stack_profile_perf_counter_track(trace_context *ctx, uint32_t machine, int64_t session,
                                     uint32_t cpu, string_id name, int is_timebase,
                                     uint32_t *track);

/* ---- ModuleSymbols: the symbols of frames by module and address ---- */

/* One line of an address's symbol (an inline chain lists several). */
typedef struct stack_profile_symbol_line {
  string_id function, file; /* file STRING_NULL: none */
  int64_t line;             /* -1: none */
} stack_profile_symbol_line;
typedef struct stack_profile_symbolizer stack_profile_symbolizer;

/* Indexes the mappings and frames as they are now, to symbolize them. */
int stack_profile_symbolizer_new(trace_context *ctx, stack_profile_symbolizer **out);
void stack_profile_symbolizer_free(stack_profile_symbolizer *z);
/* Selects the mappings named `path` with build id `build_id` (hex);
 * returns how many there are. */
size_t stack_profile_symbolize_module(trace_context *ctx, stack_profile_symbolizer *z,
                                      string_id path, string_id build_id);
/* Appends a symbol set of `n` rows (none when n is 0) and makes it the
 * symbol of the selected mappings' frames at rel_pc `address`; *frames is
 * how many. */
int stack_profile_symbolize_address(trace_context *ctx, stack_profile_symbolizer *z,
                                    int64_t address, const stack_profile_symbol_line *lines,
                                    size_t n, size_t *frames);

void stack_profile_state_free(stack_profile_state *st);

#endif
