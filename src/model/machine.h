/* machine: the registry of machines behind the `machine` table.
 *
 * Rows are made in the order machines are first needed: a manifest's named
 * machines before any file, the host (raw_id 0) when the first file on it
 * starts. So row 0 is the host only when no manifest names a machine.
 * Machines are found by the raw id embedded in trace packets or by name;
 * named machines that have no embedded id get synthetic raw ids from 2^32
 * upward. Invariant: raw ids and non-NULL names are unique across rows. */
#ifndef WEFT_MACHINE_H
#define WEFT_MACHINE_H

#include "base/base.h"
#include "storage/schema.h"

#define MACHINE_SYNTHETIC_RAW_ID_BASE (UINT64_C(1) << 32)

typedef struct machine_registry {
  storage_table *table;     /* the machine table (not owned) */
  base_string_pool *strings;
  base_map by_raw_id;       /* raw_id -> row */
  base_map by_name;         /* string_id -> row */
  uint64_t next_synthetic;  /* next synthetic raw id */
  uint32_t host;            /* the host's row, MACHINE_NONE until needed */
  uint32_t remote_count;    /* rows other than the host's (label_index) */
} machine_registry;

#define MACHINE_NONE UINT32_MAX

int machine_registry_init(machine_registry *r, storage_table *table,
                          base_string_pool *strings);
void machine_registry_free(machine_registry *r);
/* The host's row, made now if no file needed it before. */
int machine_host(machine_registry *r, uint32_t *row);
/* Finds or creates the machine with this embedded raw id. */
int machine_get_by_raw_id(machine_registry *r, uint64_t raw_id, uint32_t *row);
/* Finds or creates the machine with this name (synthetic raw id if new). */
int machine_get_by_name(machine_registry *r, const char *name, size_t len,
                        uint32_t *row);
/* A trace entirely from one embedded machine id is adopted onto the host
 * row: the host takes that raw id, unless it already has one or another
 * row does (or there is no host row). */
int machine_adopt_raw_id(machine_registry *r, uint64_t raw_id);
/* Sets the name of an existing row (e.g. SystemInfo.machine_name). */
int machine_set_name(machine_registry *r, uint32_t row, const char *name,
                     size_t len);
/* A fact of the machine's system info (a MACHINE_* column other than its
 * name and ids: build fingerprint, manufacturer, sdk version, cpus, ram). */
int machine_set_info_str(machine_registry *r, uint32_t row, size_t column,
                         const char *value, size_t len);
void machine_set_info_int(machine_registry *r, uint32_t row, size_t column, int64_t value);

#endif
