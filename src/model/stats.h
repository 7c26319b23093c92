/* stats: the counters behind the `stats` table.
 *
 * Every stat Perfetto defines is listed in stats.def with its name, whether
 * it is indexed, severity, source and description. Values are kept per
 * (stat, index, machine, trace file); the table lists every single-valued
 * stat (value 0 when never hit) and every indexed stat entry that was set. */
#ifndef WEFT_STATS_H
#define WEFT_STATS_H

#include <stdbool.h>

#include "base/base.h"

typedef enum stats_kind { STATS_SINGLE, STATS_INDEXED } stats_kind;
typedef enum stats_severity { STATS_INFO, STATS_NOTICE, STATS_DATA_LOSS, STATS_ERROR } stats_severity;
typedef enum stats_source { STATS_TRACE, STATS_ANALYSIS } stats_source;

#define STATS_ENUM_ITEM(name, kind, severity, source, description) stat_##name,
typedef enum stats_id {
#include "model/stats.def"
  STATS_COUNT
} stats_id;
#undef STATS_ENUM_ITEM

typedef struct stats_info {
  const char *name;
  stats_kind kind;
  stats_severity severity;
  stats_source source;
  const char *description;
} stats_info;
extern const stats_info stats_infos[STATS_COUNT];
const char *stats_severity_name(stats_severity s);
const char *stats_source_name(stats_source s);

/* Scope of a stat value: machine and trace file, or -1 for "none" (NULL). */
typedef struct stats_entry {
  stats_id stat;
  int64_t index;   /* -1 for single stats */
  int64_t machine; /* -1 = NULL */
  int64_t trace;   /* -1 = NULL */
  int64_t value;
} stats_entry;

/* A (machine, trace file) that a trace file's data came from. */
typedef struct stats_scope {
  uint32_t machine, trace;
} stats_scope;

typedef struct stats_store {
  VEC(stats_entry) entries; /* in first-touch order */
  base_map lookup;          /* hash of scope -> entry index */
  VEC(stats_scope) scopes;  /* declared scopes, in declaration order */
  base_map scope_lookup;    /* machine << 32 | trace -> index in scopes */
} stats_store;

void stats_store_init(stats_store *s);
void stats_store_free(stats_store *s);
/* Adds `delta` to the value at the given scope. */
int stats_add(stats_store *s, stats_id stat, int64_t index, int64_t machine,
              int64_t trace, int64_t delta);
int stats_set(stats_store *s, stats_id stat, int64_t index, int64_t machine,
              int64_t trace, int64_t value);
/* 1 and *value if the stat was set or added at this scope, else 0. */
int stats_get(const stats_store *s, stats_id stat, int64_t index, int64_t machine,
              int64_t trace, int64_t *value);
/* Declares that trace file `trace` has data of `machine` (once each): the
 * stats table lists every per-trace stat for it. */
int stats_declare_scope(stats_store *s, uint32_t machine, uint32_t trace);
/* The declaration order of (machine, trace) (0 first), or UINT32_MAX. */
uint32_t stats_scope_index(const stats_store *s, uint32_t machine, uint32_t trace);
/* Whether Perfetto keeps the stat for the whole import (machine and trace
 * NULL) rather than per (machine, trace file). */
bool stats_is_global(stats_id stat);
/* Sum over every scope of one stat. */
int64_t stats_total(const stats_store *s, stats_id stat);

#endif
