/* instruments: Apple Instruments XML exports (`xctrace export --xpath` of a
 * time-profile or cpu-profile table), between the importer's files.
 *
 * instruments_xml.c reads the document, as the items of
 * instruments_items.h (the tokenizer of instruments_scan.h, run batches
 * ahead on a worker), into the state below:
 * every value an element defines once with id= (threads, processes,
 * cores, times, backtraces, frames, binaries) is kept by its id, and a
 * later ref= finds it. A row with a backtrace is one sample.
 * instruments_import.c pushes the samples (tokenize) and writes the
 * threads, the stack_profile rows and instruments_sample (parse). */
#ifndef WEFT_IMPORT_INSTRUMENTS_INTERNAL_H
#define WEFT_IMPORT_INSTRUMENTS_INTERNAL_H

#include "import/importer.h"

#define INS_NONE UINT32_MAX
#define INS_MAX_DEPTH 256 /* element nesting */
#define INS_MAX_TEXT 256  /* the text of a value element (a number) */

typedef struct ins_process {
  int64_t pid;
  string_id fmt;
} ins_process;

typedef struct ins_thread {
  int64_t tid;
  uint32_t process; /* INS_NONE: none given */
  string_id fmt;
  uint32_t utid;
  int made;
} ins_thread;

typedef struct ins_binary {
  string_id path, uuid; /* uuid: lowercase hex digits */
  int64_t load_addr, max_addr;
} ins_binary;

/* A stack_profile row found for a frame or a backtrace in process upid
 * while the file had made `gen` mappings (0: none yet). A frame's memo
 * keeps gen << 1 | leaf: the row found for its use as the leaf or as a
 * caller, the last of the two (a frame is rarely both). */
typedef struct ins_memo {
  uint32_t upid, gen, row;
} ins_memo;

typedef struct ins_frame {
  int64_t addr;
  string_id name;
  uint32_t binary; /* INS_NONE: none */
  ins_memo row;    /* its stack_profile_frame, kept at parse */
} ins_frame;

typedef struct ins_backtrace {
  uint32_t first, count; /* in ins_state.frame_pool */
  ins_memo leaf;         /* its leaf's callsite, kept at parse */
} ins_backtrace;

typedef struct ins_sample {
  int64_t ts;
  uint32_t thread, backtrace;
  int64_t cpu;
} ins_sample;

/* A mapping made at parse: of binary `binary` (INS_NONE: the process's
 * dummy), made for a sample of process `upid`. */
typedef struct ins_mapping {
  uint32_t upid, binary, id;
  int64_t start, end, exact_offset;
} ins_mapping;

/* The values defined by id= (instruments_ids.c): a kind (1..14) and a
 * value per id; a ref finds the newest definition of its id and kind. */
typedef struct ins_ids {
  uint64_t *slots;   /* by id, ids below cap: value << 4 | kind, 0: none */
  size_t cap, count; /* count: definitions read */
  base_map others;   /* (id << 4 | kind) -> value, for the rest */
} ins_ids;

/* Makes the array cover ids below n at once (an empty table only). */
int ins_ids_reserve(ins_ids *t, size_t n);
int ins_ids_define(ins_ids *t, uint64_t id, uint32_t kind, uint64_t value);
/* 1 and *value when (id, kind) is defined, else 0. */
int ins_ids_find(const ins_ids *t, uint64_t id, uint32_t kind, uint64_t *value);
void ins_ids_free(ins_ids *t);
/* Starts fetching the slot a find of id reads (a hint; no effect on the
 * table). */
static inline __attribute__((always_inline)) void ins_ids_prefetch(const ins_ids *t,
                                                                   uint64_t id) {
  if (id < t->cap) __builtin_prefetch(&t->slots[id]);
}

typedef struct ins_state {
  uint32_t clock;
  VEC(ins_process) processes;
  VEC(ins_thread) threads;
  VEC(ins_binary) binaries;
  VEC(ins_frame) frames;
  VEC(ins_backtrace) backtraces;
  VEC(uint32_t) frame_pool;
  VEC(ins_sample) samples;
  VEC(ins_mapping) mappings;
  ins_ids ids;         /* id -> index or value */
  int reserved;        /* the stack_profile indexes were sized (parse) */
  uint64_t ignored;    /* frames given to a backtrace defined earlier */
} ins_state;

/* Reads the document f->data into st; a malformed document, an undefined
 * ref or a limit fails with a message naming the line. */
int instruments_read_xml(import_file *f, ins_state *st, base_error *err);

#endif
