/* The stats registry and per-scope values. */
#include "model/stats.h"

#define STATS_ENUM_ITEM(name, kind, severity, source, description) \
  {#name, kind, severity, source, description},
const stats_info stats_infos[STATS_COUNT] = {
#include "model/stats.def"
};
#undef STATS_ENUM_ITEM

const char *stats_severity_name(stats_severity s) {
  switch (s) {
    case STATS_INFO: return "info";
    case STATS_NOTICE: return "notice";
    case STATS_DATA_LOSS: return "data_loss";
    default: return "error";
  }
}

const char *stats_source_name(stats_source s) {
  return s == STATS_TRACE ? "trace" : "analysis";
}

void stats_store_init(stats_store *s) { memset(s, 0, sizeof *s); }

void stats_store_free(stats_store *s) {
  VEC_FREE(s->entries);
  base_map_free(&s->lookup);
  VEC_FREE(s->scopes);
  base_map_free(&s->scope_lookup);
}

uint32_t stats_scope_index(const stats_store *s, uint32_t machine, uint32_t trace) {
  const uint64_t *found = base_map_find(&s->scope_lookup, (uint64_t)machine << 32 | trace);
  return found ? (uint32_t)*found : UINT32_MAX;
}

int stats_declare_scope(stats_store *s, uint32_t machine, uint32_t trace) {
  uint64_t key = (uint64_t)machine << 32 | trace, *slot;
  if (VEC_RESERVE(s->scopes, s->scopes.len + 1)) return WEFT_ENOMEM;
  int inserted = base_map_insert(&s->scope_lookup, key, s->scopes.len, &slot);
  if (inserted < 0) return WEFT_ENOMEM;
  if (inserted == 1) s->scopes.data[s->scopes.len++] = (stats_scope){machine, trace};
  return WEFT_OK;
}

bool stats_is_global(stats_id stat) {
  switch (stat) {
    case stat_deobfuscate_location_parse_error:
    case stat_guess_trace_type_duration_ns:
    case stat_invalid_clock_snapshots:
    case stat_parse_trace_duration_ns:
    case stat_clock_sync_cache_miss:
    case stat_sorter_push_event_out_of_order:
    case stat_trace_sorter_negative_timestamp_dropped:
    case stat_heap_graph_non_finalized_graph:
    case stat_extra_parsing_descriptors_error:
      return true;
    default:
      return false;
  }
}

static uint64_t stats_scope_hash(stats_id stat, int64_t index, int64_t machine,
                                 int64_t trace) {
  int64_t parts[4] = {stat, index, machine, trace};
  return base_hash_bytes(parts, sizeof parts) & (UINT64_MAX >> 1);
}

static stats_entry *stats_find_or_add(stats_store *s, stats_id stat,
                                      int64_t index, int64_t machine,
                                      int64_t trace) {
  uint64_t h = stats_scope_hash(stat, index, machine, trace);
  if (VEC_RESERVE(s->entries, s->entries.len + 1)) return NULL;
  /* Collisions are chained by linear probing on the hash key. */
  for (uint64_t key = h;; key = (key + 1) & (UINT64_MAX >> 1)) {
    uint64_t *slot = NULL;
    int inserted = base_map_insert(&s->lookup, key, s->entries.len, &slot);
    if (inserted < 0) return NULL;
    if (inserted == 1) {
      stats_entry e = {stat, index, machine, trace, 0};
      s->entries.data[s->entries.len++] = e; /* capacity reserved above */
      return &s->entries.data[s->entries.len - 1];
    }
    stats_entry *e = &s->entries.data[*slot];
    if (e->stat == stat && e->index == index && e->machine == machine &&
        e->trace == trace)
      return e;
  }
}

int stats_add(stats_store *s, stats_id stat, int64_t index, int64_t machine,
              int64_t trace, int64_t delta) {
  stats_entry *e = stats_find_or_add(s, stat, index, machine, trace);
  if (!e) return WEFT_ENOMEM;
  e->value += delta;
  return WEFT_OK;
}

int stats_set(stats_store *s, stats_id stat, int64_t index, int64_t machine,
              int64_t trace, int64_t value) {
  stats_entry *e = stats_find_or_add(s, stat, index, machine, trace);
  if (!e) return WEFT_ENOMEM;
  e->value = value;
  return WEFT_OK;
}

int stats_get(const stats_store *s, stats_id stat, int64_t index, int64_t machine,
              int64_t trace, int64_t *value) {
  uint64_t h = stats_scope_hash(stat, index, machine, trace);
  for (uint64_t key = h;; key = (key + 1) & (UINT64_MAX >> 1)) {
    const uint64_t *slot = base_map_find(&s->lookup, key);
    if (!slot) return 0;
    const stats_entry *e = &s->entries.data[*slot];
    if (e->stat == stat && e->index == index && e->machine == machine && e->trace == trace) {
      *value = e->value;
      return 1;
    }
  }
}

int64_t stats_total(const stats_store *s, stats_id stat) {
  int64_t total = 0;
  for (size_t i = 0; i < s->entries.len; i++)
    if (s->entries.data[i].stat == stat) total += s->entries.data[i].value;
  return total;
}
