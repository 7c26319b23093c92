/* server: the statements of a query's SQL, as QueryResult reports them:
 * statement_count counts the statements that hold more than blanks and
 * comments, and last_statement_sql is the last one's text, from its first
 * token to its last (no comment or semicolon around it). Statements end at
 * semicolons outside quotes and comments; a CREATE [TEMP] TRIGGER ends
 * only at a semicolon after END, its body holding semicolons. */
#ifndef WEFT_SERVER_RPC_SQL_H
#define WEFT_SERVER_RPC_SQL_H

#include <stddef.h>
#include <stdint.h>

typedef struct rpc_sql_info {
  uint32_t count;
  const char *last; /* inside the SQL given; NULL if count is 0 */
  size_t last_len;
} rpc_sql_info;

void rpc_sql_statements(const char *sql, rpc_sql_info *out);

#endif
