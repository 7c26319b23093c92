/* Views over the storage tables (Perfetto's public table names and column
 * orders), and the stdlib modules that INCLUDE PERFETTO MODULE can load. */
#include "sql/sql.h"

#define TRACK_BASE "id, name, type, parent_id, source_arg_set_id, machine_id"
#define COUNTER_TRACK_BASE \
  TRACK_BASE ", counter_unit AS unit, description"

const char *const sql_view_statements[] = {
    "CREATE VIEW trace_file AS SELECT * FROM __intrinsic_trace_file",
    "CREATE VIEW clock_snapshot AS SELECT * FROM __intrinsic_clock_snapshot",
    "CREATE VIEW thread AS SELECT id AS utid, * FROM __intrinsic_thread",
    "CREATE VIEW process AS SELECT id AS upid, * FROM __intrinsic_process",
    "CREATE VIEW track AS SELECT id, name, type, dimension_arg_set_id, "
    "parent_id, source_arg_set_id, machine_id FROM __intrinsic_track",
    "CREATE VIEW thread_track AS SELECT " TRACK_BASE ", utid FROM "
    "__intrinsic_track WHERE event_type = 'slice' AND utid IS NOT NULL",
    "CREATE VIEW process_track AS SELECT " TRACK_BASE ", upid FROM "
    "__intrinsic_track WHERE event_type = 'slice' AND upid IS NOT NULL",
    /* __intrinsic_track.cpu is the ucpu (model/sched.h); views show the
     * cpu number, machine_id says whose. */
    "CREATE VIEW cpu_track AS SELECT " TRACK_BASE ", cpu % 4096 AS cpu FROM "
    "__intrinsic_track WHERE event_type = 'slice' AND cpu IS NOT NULL",
    "CREATE VIEW counter_track AS SELECT id, name, parent_id, type, "
    "dimension_arg_set_id, source_arg_set_id, machine_id, counter_unit AS unit, "
    "description FROM __intrinsic_track WHERE event_type = 'counter'",
    "CREATE VIEW process_counter_track AS SELECT " COUNTER_TRACK_BASE ", upid "
    "FROM __intrinsic_track WHERE event_type = 'counter' AND upid IS NOT NULL",
    "CREATE VIEW thread_counter_track AS SELECT " COUNTER_TRACK_BASE ", utid "
    "FROM __intrinsic_track WHERE event_type = 'counter' AND utid IS NOT NULL",
    "CREATE VIEW cpu_counter_track AS SELECT " COUNTER_TRACK_BASE ", cpu % 4096 AS cpu "
    "FROM __intrinsic_track WHERE event_type = 'counter' AND cpu IS NOT NULL",
    "CREATE VIEW slice AS SELECT *, category AS cat, id AS slice_id "
    "FROM __intrinsic_slice",
    "CREATE VIEW slices AS SELECT * FROM slice",
    "CREATE VIEW instant AS SELECT ts, track_id, name, arg_set_id "
    "FROM __intrinsic_slice WHERE dur = 0",
    "CREATE VIEW counter AS SELECT * FROM __intrinsic_counter",
    "CREATE VIEW counters AS SELECT c.*, t.name AS name, t.counter_unit AS unit "
    "FROM __intrinsic_counter c JOIN __intrinsic_track t ON c.track_id = t.id "
    "ORDER BY c.ts",
    "CREATE VIEW args AS SELECT *, CASE value_type "
    "WHEN 'int' THEN CAST(int_value AS TEXT) "
    "WHEN 'uint' THEN CAST(int_value AS TEXT) "
    "WHEN 'string' THEN string_value "
    "WHEN 'json' THEN string_value "
    "WHEN 'real' THEN CAST(real_value AS TEXT) "
    "WHEN 'pointer' THEN printf('0x%x', int_value) "
    "WHEN 'bool' THEN CASE WHEN int_value != 0 THEN 'true' ELSE 'false' END "
    "ELSE NULL END AS display_value FROM __intrinsic_args",
    "CREATE VIEW cpu AS SELECT id, id AS ucpu, cpu, cluster_id, processor, "
    "machine_id, capacity, arg_set_id FROM __intrinsic_cpu WHERE cpu IS NOT NULL",
    "CREATE VIEW sched_slice AS SELECT id, ts, dur, ucpu AS cpu, utid, "
    "end_state, priority, ucpu FROM __intrinsic_sched_slice",
    "CREATE VIEW sched AS SELECT *, ts + dur AS ts_end FROM sched_slice",
    "CREATE VIEW thread_state AS SELECT id, ts, dur, ucpu AS cpu, utid, state, "
    "io_wait, blocked_function, waker_utid, waker_id, irq_context, ucpu "
    "FROM __intrinsic_thread_state",
    "CREATE VIEW ftrace_event AS SELECT id, ts, name, ucpu AS cpu, utid, "
    "arg_set_id, common_flags, ucpu FROM __intrinsic_ftrace_event",
    "CREATE VIEW raw AS SELECT * FROM ftrace_event",
    "CREATE VIEW flow AS SELECT * FROM __intrinsic_flow",
    "CREATE VIEW trace_diagnostics AS SELECT id, key AS name, title, description, "
    "remediation, confidence, trace_id FROM __intrinsic_trace_diagnostics",
    "CREATE VIEW state AS SELECT * FROM __intrinsic_state",
    "CREATE VIEW state_track AS SELECT " TRACK_BASE " FROM __intrinsic_track "
    "WHERE event_type = 'state'",
    "CREATE VIEW process_state_track AS SELECT " TRACK_BASE ", upid FROM "
    "__intrinsic_track WHERE event_type = 'state' AND upid IS NOT NULL",
    "CREATE VIEW thread_state_track AS SELECT " TRACK_BASE ", utid FROM "
    "__intrinsic_track WHERE event_type = 'state' AND utid IS NOT NULL",
    "CREATE VIEW cpu_available_frequencies AS SELECT id, ucpu AS cpu, freq, ucpu "
    "FROM __intrinsic_cpu_freq",
};

typedef struct sql_module {
  const char *name;
  const char *sql; /* idempotent: run on every include */
} sql_module;

static const sql_module sql_modules[] = {
    {"slices.with_context",
     "CREATE VIEW IF NOT EXISTS thread_slice AS SELECT s.id, s.ts, s.dur, "
     "s.category, s.name, s.track_id, tt.name AS track_name, "
     "t.name AS thread_name, t.utid, t.tid, t.is_main_thread, "
     "p.name AS process_name, p.upid, p.pid, s.depth, s.parent_id, "
     "s.arg_set_id, s.thread_ts, s.thread_dur FROM slice s "
     "JOIN thread_track tt ON s.track_id = tt.id JOIN thread t USING (utid) "
     "LEFT JOIN process p USING (upid);"
     "CREATE VIEW IF NOT EXISTS process_slice AS SELECT s.id, s.ts, s.dur, "
     "s.category, s.name, s.track_id, pt.name AS track_name, "
     "p.name AS process_name, p.upid, p.pid, s.depth, s.parent_id, "
     "s.arg_set_id, s.thread_ts, s.thread_dur FROM slice s "
     "JOIN process_track pt ON s.track_id = pt.id JOIN process p USING (upid);"
     "CREATE VIEW IF NOT EXISTS thread_or_process_slice AS "
     "SELECT id, ts, dur, category, name, track_id, track_name, thread_name, "
     "utid, tid, process_name, upid, pid, depth, parent_id, arg_set_id "
     "FROM thread_slice UNION ALL "
     "SELECT id, ts, dur, category, name, track_id, track_name, NULL, NULL, "
     "NULL, process_name, upid, pid, depth, parent_id, arg_set_id "
     "FROM process_slice;"},
};

const size_t sql_view_statement_count =
    sizeof sql_view_statements / sizeof *sql_view_statements;

int sql_module_include(sql_views *v, const char *name, base_error *err) {
  for (size_t i = 0; i < sizeof sql_modules / sizeof *sql_modules; i++) {
    if (strcmp(sql_modules[i].name, name) != 0) continue;
    int rc = sql_views_ensure(v, sql_modules[i].sql, err);
    if (rc) return rc;
    char *msg = NULL;
    if (sqlite3_exec(v->db, sql_modules[i].sql, NULL, NULL, &msg) != SQLITE_OK) {
      base_error_set(err, WEFT_ESQL, "module %s: %s", name, msg ? msg : "?");
      sqlite3_free(msg);
      return WEFT_ESQL;
    }
    return WEFT_OK;
  }
  return base_error_set(err, WEFT_ESQL, "Unknown module name provided - %s",
                        name);
}
