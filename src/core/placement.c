/* placement: the weft_placement table, one row per trace file saying how
 * its timestamps reached trace time.
 *
 * A file's clock is the clock of the first event it pushed; the clock graph
 * says how that clock was placed (clock_graph_placement) and through which
 * clocks (clock_graph_path). The rule names the kind of placement:
 *   trace_time           the file's clock is trace time itself
 *   clock_snapshot       snapshot hops only (the trace's own ClockSnapshots)
 *   manifest_relate      hops through a manifest `clocks` relation (RELATE:
 *                        the file keeps its clocks; --sync with --clock)
 *   manifest_pin         a manifest PIN: the file's own timeline pinned to
 *                        the reference at the offset (--sync alone)
 *   realtime_rendezvous  through REALTIME on both machines
 *   same_domain_guess    a clock taken to be the same as trace time's
 *                        (is_guess)
 *   private_pin          a clockless file's own timeline at zero; a guess
 *                        when another file is placed independently of it
 *                        (its own clock, or another such pin), not through it
 *   dropped              no path: its events were dropped
 *   no_events            nothing timestamped in the file
 * Runs after the parse, while the files' records still exist. */
#include <stdio.h>
#include <string.h>

#include "core/loader_internal.h"

typedef struct placement_row {
  const char *rule;
  int is_guess;
  const char *detail;
} placement_row;

static placement_row placement_rule(const import_file *f, clock_level level,
                                    size_t independent) {
  switch (level) {
    case CLOCK_LEVEL_TRACE_TIME:
      return (placement_row){"trace_time", 0, "its clock is the trace's time"};
    case CLOCK_LEVEL_SNAPSHOTS:
      if (f->pinned)
        return (placement_row){"manifest_pin", 0,
                               "its own timeline, pinned to another file's clock by the "
                               "manifest (or --sync/--offset) at its offset"};
      return f->related ? (placement_row){"manifest_relate", 0,
                                          "related to another file by the manifest's "
                                          "clocks entry (or --sync/--offset)"}
                        : (placement_row){"clock_snapshot", 0,
                                          "converted through the trace's clock snapshots"};
    case CLOCK_LEVEL_REALTIME:
      return (placement_row){"realtime_rendezvous", 0,
                             "aligned through REALTIME, read on both machines"};
    case CLOCK_LEVEL_SAME_DOMAIN:
      return (placement_row){"same_domain_guess", 1,
                             "assumed to read the same as trace time's clock: nothing "
                             "relates them (give a manifest clocks entry to be sure)"};
    case CLOCK_LEVEL_PINNED:
      if (f->pinned)
        return (placement_row){"manifest_pin", 0, "pinned by the manifest at zero offset"};
      return independent > 1 ? (placement_row){"private_pin", 1,
                                         "a clockless file placed at zero offset: nothing "
                                         "relates it to the others (use --sync/--offset)"}
                       : (placement_row){"private_pin", 0, "the file's own timeline"};
    case CLOCK_LEVEL_NONE:
    default:
      return (placement_row){"dropped", 0,
                             "no path to trace time: its events were dropped"};
  }
}

/* "BOOTTIME@phone" for a node (the machine's name, else its row). */
static void placement_node_name(loader *l, uint32_t node, base_buf *out) {
  const clock_key *k = clock_graph_node_key(&l->host.clocks, node);
  const char *name = clock_name_from_id(k->clock_id);
  if (k->clock_id == CLOCK_ID_FILE_PRIVATE) name = "file";
  if (name) base_buf_appendf(out, "%s", name);
  else base_buf_appendf(out, "clock %llu", (unsigned long long)k->clock_id);
  if (k->sequence) base_buf_appendf(out, "/seq %u", k->sequence);
  const storage_table *m = ctx_table(l->ctx, TABLE_MACHINE);
  string_id mname = k->machine < m->row_count ? storage_get_str(m, MACHINE_name, k->machine)
                                              : STRING_NULL;
  if (mname != STRING_NULL)
    base_buf_appendf(out, "@%s", base_string_pool_get(&l->ctx->strings, mname));
  else
    base_buf_appendf(out, "@%u", k->machine);
}

static int placement_path(loader *l, uint32_t node, base_buf *out) {
  uint32_t nodes[32];
  size_t len = 0;
  if (clock_graph_path(&l->host.clocks, node, nodes, 32, &len) != CLOCK_OK) len = 0;
  if (len > 32) len = 32;
  for (size_t i = 0; i < len; i++) {
    if (i) base_buf_append(out, " -> ", 4);
    placement_node_name(l, nodes[i], out);
  }
  if (!len) placement_node_name(l, node, out);
  return out->data || !len ? WEFT_OK : WEFT_ENOMEM;
}

static int64_t placement_dropped(loader *l, const import_file *f) {
  int64_t total = 0, v;
  if (stats_get(&l->ctx->stats, stat_clock_sync_failure, -1, f->machine, f->trace_id, &v))
    total += v;
  if (stats_get(&l->ctx->stats, stat_trace_sorter_negative_timestamp_dropped, -1,
                f->machine, f->trace_id, &v))
    total += v;
  return total;
}

static int placement_set_str(trace_context *ctx, size_t col, uint32_t row, const char *s) {
  string_id id;
  int rc = ctx_intern(ctx, s, strlen(s), &id);
  if (!rc) storage_set_str(ctx_table(ctx, TABLE_PLACEMENT), col, row, id);
  return rc;
}

static int placement_file(loader *l, const import_file *f, size_t independent) {
  trace_context *ctx = l->ctx;
  storage_table *t = ctx_table(ctx, TABLE_PLACEMENT);
  const storage_table *tf = ctx_table(ctx, TABLE_TRACE_FILE);
  const storage_table *m = ctx_table(ctx, TABLE_MACHINE);
  uint32_t row;
  int rc = storage_table_append(t, &row);
  if (rc) return rc;
  storage_set_i64(t, PLACEMENT_trace_file_id, row, f->trace_id);
  storage_set_str(t, PLACEMENT_trace_type, row,
                  storage_get_str(tf, TRACE_FILE_trace_type, f->trace_id));
  storage_set_i64(t, PLACEMENT_machine_id, row, f->machine);
  if (f->machine < m->row_count)
    storage_set_str(t, PLACEMENT_machine_name, row, storage_get_str(m, MACHINE_name, f->machine));
  storage_set_i64(t, PLACEMENT_dropped_events, row, placement_dropped(l, f));
  rc = placement_set_str(ctx, PLACEMENT_file_name, row, f->name);
  if (rc || f->first_clock == UINT32_MAX) {
    if (!rc) rc = placement_set_str(ctx, PLACEMENT_rule, row, "no_events");
    if (!rc) rc = placement_set_str(ctx, PLACEMENT_detail, row, "no timestamped events");
    return rc;
  }
  clock_level level = CLOCK_LEVEL_NONE;
  clock_graph_placement(&l->host.clocks, f->first_clock, &level, NULL);
  placement_row r = placement_rule(f, level, independent);
  storage_set_i64(t, PLACEMENT_is_guess, row, r.is_guess);
  int64_t converted;
  if (level != CLOCK_LEVEL_NONE &&
      clock_graph_convert(&l->host.clocks, f->first_clock, f->first_ts, &converted) ==
          CLOCK_OK)
    storage_set_i64(t, PLACEMENT_offset_ns, row, converted - f->first_ts);
  base_buf buf;
  base_buf_init(&buf, 256);
  rc = placement_path(l, f->first_clock, &buf);
  if (!rc) rc = placement_set_str(ctx, PLACEMENT_clock_path, row, buf.data ? buf.data : "");
  buf.len = 0;
  if (!rc) placement_node_name(l, f->first_clock, &buf);
  if (!rc) rc = placement_set_str(ctx, PLACEMENT_clock_name, row, buf.data ? buf.data : "");
  base_buf_free(&buf);
  if (!rc) rc = placement_set_str(ctx, PLACEMENT_rule, row, r.rule);
  if (!rc) rc = placement_set_str(ctx, PLACEMENT_detail, row, r.detail);
  return rc;
}

/* 1 if the file is placed on its own, not relative to another file by the
 * manifest: its clocks or its own timeline define where it lands. */
static int placement_is_independent(loader *l, const import_file *f) {
  if (f->first_clock == UINT32_MAX || f->related || f->pinned) return 0;
  clock_level level = CLOCK_LEVEL_NONE;
  clock_graph_placement(&l->host.clocks, f->first_clock, &level, NULL);
  return level != CLOCK_LEVEL_NONE;
}

int placement_fill(loader *l) {
  size_t n = l->host.files.len, independent = 0;
  for (size_t i = 0; i < n; i++) independent += placement_is_independent(l, l->host.files.data[i]);
  for (size_t i = 0; i < n; i++) {
    int rc = placement_file(l, l->host.files.data[i], independent);
    if (rc) return rc;
  }
  return WEFT_OK;
}
