/* Clock keys, builtin clock names and enum names. */
#include "clock/clock.h"

clock_key clock_key_make(uint32_t machine, uint32_t file, uint32_t sequence,
                         uint64_t clock_id) {
  clock_key k = {machine, 0, 0, clock_id};
  if (clock_id_is_builtin(clock_id)) return k;
  k.file = file;
  if (clock_id >= CLOCK_ID_FIRST_SEQUENCE && clock_id < CLOCK_ID_FIRST_GLOBAL)
    k.sequence = sequence;
  return k;
}

bool clock_key_equal(const clock_key *a, const clock_key *b) {
  return a->machine == b->machine && a->file == b->file &&
         a->sequence == b->sequence && a->clock_id == b->clock_id;
}

static const struct {
  uint64_t id;
  const char *name;
} clock_names[] = {
    {CLOCK_ID_REALTIME, "REALTIME"},
    {CLOCK_ID_REALTIME_COARSE, "REALTIME_COARSE"},
    {CLOCK_ID_MONOTONIC, "MONOTONIC"},
    {CLOCK_ID_MONOTONIC_COARSE, "MONOTONIC_COARSE"},
    {CLOCK_ID_MONOTONIC_RAW, "MONOTONIC_RAW"},
    {CLOCK_ID_BOOTTIME, "BOOTTIME"},
};
#define CLOCK_NAME_COUNT (sizeof clock_names / sizeof clock_names[0])

const char *clock_name_from_id(uint64_t clock_id) {
  for (size_t i = 0; i < CLOCK_NAME_COUNT; i++)
    if (clock_names[i].id == clock_id) return clock_names[i].name;
  return NULL;
}

bool clock_id_from_name(const char *name, size_t len, uint64_t *clock_id_out) {
  if (!name) return false;
  for (size_t i = 0; i < CLOCK_NAME_COUNT; i++) {
    const char *n = clock_names[i].name;
    if (strlen(n) == len && memcmp(n, name, len) == 0) {
      if (clock_id_out) *clock_id_out = clock_names[i].id;
      return true;
    }
  }
  return false;
}

const char *clock_result_name(clock_result r) {
  switch (r) {
    case CLOCK_OK: return "ok";
    case CLOCK_NO_TRACE_TIME: return "no trace-time clock";
    case CLOCK_NO_PATH: return "no path to trace time";
    case CLOCK_UNRELATABLE_DOMAINS: return "unrelatable clock domains";
    case CLOCK_OVERFLOW: return "timestamp overflow";
    case CLOCK_BAD_NODE: return "unknown clock";
    case CLOCK_ERR_NOMEM: return "out of memory";
  }
  return "?";
}

const char *clock_level_name(clock_level l) {
  switch (l) {
    case CLOCK_LEVEL_NONE: return "not placed";
    case CLOCK_LEVEL_TRACE_TIME: return "trace time";
    case CLOCK_LEVEL_SNAPSHOTS: return "clock snapshots";
    case CLOCK_LEVEL_REALTIME: return "REALTIME rendezvous";
    case CLOCK_LEVEL_SAME_DOMAIN: return "same-domain assumption";
    case CLOCK_LEVEL_PINNED: return "pinned private clock";
  }
  return "?";
}
