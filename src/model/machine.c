/* The machine registry. */
#include "model/machine.h"

#include <assert.h>

static int machine_append(machine_registry *r, uint64_t raw_id, uint32_t *row) {
  int rc = storage_table_append(r->table, row);
  if (rc) return rc;
  storage_set_i64(r->table, MACHINE_raw_id, *row, (int64_t)raw_id);
  /* The host is label 0; the others are numbered from 1 as they come. */
  storage_set_i64(r->table, MACHINE_label_index, *row, raw_id ? ++r->remote_count : 0);
  return base_map_insert(&r->by_raw_id, raw_id, *row, NULL) < 0 ? WEFT_ENOMEM : WEFT_OK;
}

int machine_registry_init(machine_registry *r, storage_table *table,
                          base_string_pool *strings) {
  memset(r, 0, sizeof *r);
  r->table = table;
  r->strings = strings;
  r->next_synthetic = MACHINE_SYNTHETIC_RAW_ID_BASE;
  r->host = MACHINE_NONE;
  return WEFT_OK;
}

int machine_host(machine_registry *r, uint32_t *row) {
  if (r->host == MACHINE_NONE) {
    int rc = machine_get_by_raw_id(r, 0, &r->host);
    if (rc) return rc;
  }
  *row = r->host;
  return WEFT_OK;
}

void machine_registry_free(machine_registry *r) {
  base_map_free(&r->by_raw_id);
  base_map_free(&r->by_name);
}

int machine_get_by_raw_id(machine_registry *r, uint64_t raw_id, uint32_t *row) {
  uint64_t *found = base_map_find(&r->by_raw_id, raw_id);
  if (found) {
    *row = (uint32_t)*found;
    return WEFT_OK;
  }
  return machine_append(r, raw_id, row);
}

int machine_set_name(machine_registry *r, uint32_t row, const char *name,
                     size_t len) {
  string_id id;
  int rc = base_string_pool_intern(r->strings, name, len, &id);
  if (rc) return rc;
  storage_set_str(r->table, MACHINE_name, row, id);
  uint64_t *slot;
  return base_map_insert(&r->by_name, id, row, &slot) < 0 ? WEFT_ENOMEM
                                                         : WEFT_OK;
}

int machine_set_info_str(machine_registry *r, uint32_t row, size_t column,
                         const char *value, size_t len) {
  assert(column != MACHINE_name && column != MACHINE_raw_id);
  string_id id;
  int rc = base_string_pool_intern(r->strings, value, len, &id);
  if (!rc) storage_set_str(r->table, column, row, id);
  return rc;
}

void machine_set_info_int(machine_registry *r, uint32_t row, size_t column, int64_t value) {
  assert(column != MACHINE_name && column != MACHINE_raw_id);
  storage_set_i64(r->table, column, row, value);
}

int machine_get_by_name(machine_registry *r, const char *name, size_t len,
                        uint32_t *row) {
  string_id id = base_string_pool_find(r->strings, name, len);
  uint64_t *found = id ? base_map_find(&r->by_name, id) : NULL;
  if (found) {
    *row = (uint32_t)*found;
    return WEFT_OK;
  }
  while (base_map_find(&r->by_raw_id, r->next_synthetic)) r->next_synthetic++;
  int rc = machine_append(r, r->next_synthetic++, row);
  return rc ? rc : machine_set_name(r, *row, name, len);
}

int machine_adopt_raw_id(machine_registry *r, uint64_t raw_id) {
  if (r->host == MACHINE_NONE || storage_get_i64(r->table, MACHINE_raw_id, r->host) != 0 ||
      base_map_find(&r->by_raw_id, raw_id))
    return WEFT_OK; /* no host, the host already has an id, or another row owns this one */
  storage_set_i64(r->table, MACHINE_raw_id, r->host, (int64_t)raw_id);
  storage_set_i64(r->table, MACHINE_label_index, r->host, ++r->remote_count);
  return base_map_insert(&r->by_raw_id, raw_id, r->host, NULL) < 0 ? WEFT_ENOMEM : WEFT_OK;
}
