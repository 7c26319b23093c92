/* The storage_column_def arrays generated from schema.h's X-macro lists. */
#include "storage/schema.h"

#define N STORAGE_NULLABLE
#define S STORAGE_SORTED
#define H STORAGE_HIDDEN
#define SCHEMA_DEF_ITEM(TAB, col, type, flags) {#col, STORAGE_##type, flags},
#define SCHEMA_DEFINE_ARRAY(TAB, NAME, COLS) \
  static const storage_column_def TAB##_defs[] = {COLS(SCHEMA_DEF_ITEM, TAB)};
WEFT_TABLES(SCHEMA_DEFINE_ARRAY)

#define SCHEMA_TABLE_ENTRY(TAB, NAME, COLS) \
  {NAME, TAB##_defs, sizeof TAB##_defs / sizeof TAB##_defs[0]},
const schema_table_def schema_tables[TABLE_COUNT] = {
    WEFT_TABLES(SCHEMA_TABLE_ENTRY)};
