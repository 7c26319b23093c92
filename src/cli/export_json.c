/* `weft export json`: the merged trace as one Chrome JSON trace, every
 * machine in it, in trace time (microseconds with nanosecond decimals).
 *
 * Machines keep their pids and tids apart: the n-th machine (by id, from
 * 0) adds n * STRIDE to each, STRIDE being the least power of ten above
 * every pid and tid of the trace, so the first machine keeps its own ids
 * and two machines never collide. With several machines a process's name
 * ends with " (machine NAME)", and the top-level "metadata" object maps
 * every pid written back to its machine and original pid.
 *
 * Written: process and thread names (M), slices on thread tracks (X, or B
 * when unfinished), other slices as nestable async pairs (b/e, id = the
 * track), slices of no duration as instants (i, scoped to their thread,
 * process or the trace), counters (C, on their process, or the machine's pid 0 when they
 * have none) and flows between thread slices (s, then f bound to the
 * enclosing slice). Slices carry their JSON args and debug annotations.
 * Rows stream from queries straight to the file. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"

/* The rank of each machine and the pid stride, as SQL to prefix queries. */
#define JSON_MACHINES                                                          \
  "WITH mrank AS (SELECT id, name, row_number() OVER (ORDER BY id) - 1 AS rank " \
  "FROM machine) "

typedef struct json_writer {
  FILE *out;
  int64_t stride;
  int machines;
  int events; /* written so far, for the separating commas */
} json_writer;

/* `s` escaped for the inside of a JSON string. */
static void json_escaped(FILE *out, const char *s, size_t len) {
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') fprintf(out, "\\%c", c);
    else if (c < 0x20) fprintf(out, "\\u%04x", c);
    else fputc(c, out);
  }
}

static void json_string(FILE *out, const char *s, size_t len) {
  fputc('"', out);
  json_escaped(out, s, len);
  fputc('"', out);
}

static void json_cell_string(FILE *out, const weft_cell *c, const char *fallback) {
  if (c->type == WEFT_CELL_STRING) json_string(out, c->s, c->len);
  else json_string(out, fallback, strlen(fallback));
}

/* Nanoseconds as microseconds with three decimals. */
static void json_time(FILE *out, int64_t ns) {
  uint64_t magnitude = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
  fprintf(out, "%s%" PRIu64 ".%03" PRIu64, ns < 0 ? "-" : "", magnitude / 1000,
          magnitude % 1000);
}

static int64_t json_int(const weft_cell *c) {
  if (c->type == WEFT_CELL_INT) return c->i;
  return c->type == WEFT_CELL_DOUBLE ? (int64_t)c->d : 0;
}

static void json_begin_event(json_writer *j, const char *ph) {
  fputs(j->events++ ? ",\n{" : "{", j->out);
  fprintf(j->out, "\"ph\":\"%s\"", ph);
}

typedef int (*json_row_fn)(void *user, int statement, int n, const weft_cell *cells);

static int json_query(weft *w, json_writer *j, const char *body, json_row_fn fn,
                      char *err, size_t err_size) {
  char sql[4096];
  snprintf(sql, sizeof sql, "%s%s", JSON_MACHINES, body);
  weft_query_callbacks cb = {NULL, fn, j};
  if (weft_query(w, sql, &cb) == WEFT_OK) return 0;
  snprintf(err, err_size, "%s", weft_errmsg(w));
  return -1;
}

/* ---- names ---- */

/* (pid, name, machine) */
static int json_on_process(void *user, int statement, int n, const weft_cell *c) {
  (void)statement, (void)n;
  json_writer *j = user;
  json_begin_event(j, "M");
  fprintf(j->out, ",\"name\":\"process_name\",\"pid\":%" PRId64 ",\"args\":{\"name\":",
          json_int(&c[0]));
  int named = c[1].type == WEFT_CELL_STRING && c[1].len;
  fputc('"', j->out);
  if (named) json_escaped(j->out, c[1].s, c[1].len);
  if (j->machines > 1 && c[2].type == WEFT_CELL_STRING) {
    fputs(named ? " (machine " : "(machine ", j->out);
    json_escaped(j->out, c[2].s, c[2].len);
    fputc(')', j->out);
  }
  fputs("\"}}", j->out);
  return 0;
}

/* (pid, tid, name) */
static int json_on_thread(void *user, int statement, int n, const weft_cell *c) {
  (void)statement, (void)n;
  json_writer *j = user;
  json_begin_event(j, "M");
  fprintf(j->out, ",\"name\":\"thread_name\",\"pid\":%" PRId64 ",\"tid\":%" PRId64
                  ",\"args\":{\"name\":", json_int(&c[0]), json_int(&c[1]));
  json_cell_string(j->out, &c[2], "");
  fputs("}}", j->out);
  return 0;
}

/* ---- slices, counters, flows ---- */

/* The pid of a process (alias p) of a machine rank (alias r). */
#define JSON_PID(r, id) "coalesce(" r ".rank, 0) * %" PRId64 " + " id

/* (ts, dur, name, category, pid, tid or NULL, track_id, upid or NULL,
 * args as a JSON object) */
static int json_on_slice(void *user, int statement, int n, const weft_cell *c) {
  (void)statement, (void)n;
  json_writer *j = user;
  int64_t ts = json_int(&c[0]), dur = json_int(&c[1]);
  int on_thread = c[5].type == WEFT_CELL_INT, instant = dur == 0;
  const char *ph = instant ? "i" : on_thread ? (dur < 0 ? "B" : "X") : "b";
  for (int end = 0; end < 2; end++) {
    if (end && (on_thread || dur <= 0)) break;
    json_begin_event(j, end ? "e" : ph);
    fputs(",\"name\":", j->out);
    json_cell_string(j->out, &c[2], "");
    if (c[3].type == WEFT_CELL_STRING) {
      fputs(",\"cat\":", j->out);
      json_string(j->out, c[3].s, c[3].len);
    }
    fputs(",\"ts\":", j->out);
    json_time(j->out, end ? ts + dur : ts);
    if (on_thread && dur > 0) {
      fputs(",\"dur\":", j->out);
      json_time(j->out, dur);
    }
    fprintf(j->out, ",\"pid\":%" PRId64, json_int(&c[4]));
    if (on_thread) fprintf(j->out, ",\"tid\":%" PRId64, json_int(&c[5]));
    else if (!instant)
      fprintf(j->out, ",\"tid\":%" PRId64 ",\"id\":%" PRId64, json_int(&c[4]), json_int(&c[6]));
    if (!end && c[8].type == WEFT_CELL_STRING && c[8].len > 2) {
      fputs(",\"args\":", j->out);
      fwrite(c[8].s, 1, c[8].len, j->out);
    }
    /* An instant's scope: its thread, its process, or the whole trace. */
    if (instant) fprintf(j->out, ",\"s\":\"%s\"", on_thread ? "t" : c[7].type == WEFT_CELL_INT ? "p" : "g");
    fputc('}', j->out);
  }
  return 0;
}

/* (ts, value, track name, pid) */
static int json_on_counter(void *user, int statement, int n, const weft_cell *c) {
  (void)statement, (void)n;
  json_writer *j = user;
  const char *name = c[2].type == WEFT_CELL_STRING ? c[2].s : "";
  size_t len = c[2].type == WEFT_CELL_STRING ? c[2].len : 0, split = len;
  /* A JSON counter's track is named "NAME KEY": written back so. */
  while (split > 0 && name[split - 1] != ' ') split--;
  json_begin_event(j, "C");
  fputs(",\"name\":", j->out);
  json_string(j->out, name, split ? split - 1 : len);
  fputs(",\"ts\":", j->out);
  json_time(j->out, json_int(&c[0]));
  fprintf(j->out, ",\"pid\":%" PRId64 ",\"args\":{", json_int(&c[3]));
  if (split) json_string(j->out, name + split, len - split);
  else fputs("\"value\"", j->out);
  fprintf(j->out, ":%.17g}}", c[1].type == WEFT_CELL_DOUBLE ? c[1].d : (double)json_int(&c[1]));
  return 0;
}

/* (flow id, out ts, out pid, out tid, in ts, in pid, in tid) */
static int json_on_flow(void *user, int statement, int n, const weft_cell *c) {
  (void)statement, (void)n;
  json_writer *j = user;
  for (int in = 0; in < 2; in++) {
    json_begin_event(j, in ? "f" : "s");
    fprintf(j->out, ",\"name\":\"flow\",\"cat\":\"flow\",\"id\":%" PRId64 ",\"ts\":",
            json_int(&c[0]));
    json_time(j->out, json_int(&c[1 + 3 * in]));
    fprintf(j->out, ",\"pid\":%" PRId64 ",\"tid\":%" PRId64 "%s}", json_int(&c[2 + 3 * in]),
            json_int(&c[3 + 3 * in]), in ? ",\"bp\":\"e\"" : "");
  }
  return 0;
}

/* (pid, machine, machine_id, original pid) */
static int json_on_pid_map(void *user, int statement, int n, const weft_cell *c) {
  (void)statement, (void)n;
  json_writer *j = user;
  fprintf(j->out, "%s{\"pid\":%" PRId64 ",\"machine\":", j->events++ ? ",\n" : "\n",
          json_int(&c[0]));
  json_cell_string(j->out, &c[1], "");
  fprintf(j->out, ",\"machine_id\":%" PRId64 ",\"original_pid\":%" PRId64 "}", json_int(&c[2]),
          json_int(&c[3]));
  return 0;
}

/* ---- the queries ---- */

/* Each slice's process and thread (thread tracks) or process (process
 * tracks) and machine rank. */
#define JSON_SLICE_OWNERS                                                          \
  "FROM slice s JOIN track tr ON tr.id = s.track_id "                              \
  "LEFT JOIN thread_track tt ON tt.id = s.track_id "                               \
  "LEFT JOIN thread t ON t.utid = tt.utid "                                        \
  "LEFT JOIN process_track pt ON pt.id = s.track_id "                              \
  "LEFT JOIN process p ON p.upid = coalesce(t.upid, pt.upid) "                     \
  "LEFT JOIN mrank r ON r.id = coalesce(t.machine_id, p.machine_id, tr.machine_id) "

/* A slice's JSON args ("args.*") and debug annotations ("debug.*") as one
 * object, keys without their prefix; nested values keep their flat keys. */
#define JSON_SLICE_ARGS                                                             \
  "(SELECT json_group_object(substr(a.key, instr(a.key, '.') + 1), CASE a.value_type " \
  "WHEN 'int' THEN a.int_value WHEN 'uint' THEN a.int_value WHEN 'real' THEN "     \
  "a.real_value WHEN 'bool' THEN json(iif(a.int_value, 'true', 'false')) WHEN "      \
  "'string' THEN a.string_value ELSE a.display_value END) FROM args a WHERE "        \
  "a.arg_set_id = s.arg_set_id AND (a.key GLOB 'args.*' OR a.key GLOB 'debug.*'))"

static int json_write_events(weft *w, json_writer *j, char *err, size_t err_size) {
  char q[2048];
  int64_t k = j->stride;
  snprintf(q, sizeof q, "SELECT " JSON_PID("r", "p.pid") ", p.name, r.name FROM process p "
           "LEFT JOIN mrank r ON r.id = p.machine_id WHERE p.pid IS NOT NULL AND p.pid != 0 "
           "AND (p.name IS NOT NULL OR (r.name IS NOT NULL AND %d > 1))", k, j->machines);
  if (json_query(w, j, q, json_on_process, err, err_size)) return -1;
  snprintf(q, sizeof q, "SELECT " JSON_PID("r", "coalesce(p.pid, t.tid)") ", "
           JSON_PID("r", "t.tid") ", t.name FROM thread t LEFT JOIN process p USING(upid) "
           "LEFT JOIN mrank r ON r.id = coalesce(t.machine_id, p.machine_id) "
           "WHERE t.name IS NOT NULL AND t.tid IS NOT NULL AND t.tid != 0", k, k);
  if (json_query(w, j, q, json_on_thread, err, err_size)) return -1;
  snprintf(q, sizeof q, "SELECT s.ts, s.dur, s.name, s.category, "
           JSON_PID("r", "coalesce(p.pid, t.tid, 0)") ", CASE WHEN t.tid IS NOT NULL THEN "
           JSON_PID("r", "t.tid") " END, s.track_id, p.upid, " JSON_SLICE_ARGS " "
           JSON_SLICE_OWNERS, k, k);
  if (json_query(w, j, q, json_on_slice, err, err_size)) return -1;
  snprintf(q, sizeof q, "SELECT c.ts, c.value, ct.name, " JSON_PID("r", "coalesce(p.pid, 0)")
           " FROM counter c JOIN counter_track ct ON ct.id = c.track_id "
           "LEFT JOIN process_counter_track pct ON pct.id = c.track_id "
           "LEFT JOIN process p ON p.upid = pct.upid "
           "LEFT JOIN mrank r ON r.id = coalesce(p.machine_id, ct.machine_id)", k);
  if (json_query(w, j, q, json_on_counter, err, err_size)) return -1;
  snprintf(q, sizeof q, ", ends AS (SELECT s.id, s.ts, "
           JSON_PID("r", "coalesce(p.pid, t.tid)") " AS pid, " JSON_PID("r", "t.tid")
           " AS tid " JSON_SLICE_OWNERS "WHERE t.tid IS NOT NULL) "
           "SELECT f.id, o.ts, o.pid, o.tid, i.ts, i.pid, i.tid FROM flow f "
           "JOIN ends o ON o.id = f.slice_out JOIN ends i ON i.id = f.slice_in", k, k);
  return json_query(w, j, q, json_on_flow, err, err_size);
}

static int json_on_two_ints(void *user, int statement, int n, const weft_cell *c) {
  (void)statement;
  int64_t *out = user;
  for (int i = 0; i < n && i < 2; i++) out[i] = json_int(&c[i]);
  return 0;
}

/* The number of machines and the least power of ten above every id. */
static int json_measure(weft *w, json_writer *j, char *err, size_t err_size) {
  int64_t v[2] = {0, 0};
  weft_query_callbacks cb = {NULL, json_on_two_ints, v};
  if (weft_query(w, "SELECT (SELECT count(*) FROM machine), max(coalesce((SELECT max(pid) "
                    "FROM process), 0), coalesce((SELECT max(tid) FROM thread), 0))",
                 &cb) != WEFT_OK) {
    snprintf(err, err_size, "%s", weft_errmsg(w));
    return -1;
  }
  j->machines = (int)v[0];
  j->stride = 10;
  while (j->stride <= v[1] && j->stride < INT64_MAX / 100) j->stride *= 10;
  return 0;
}

int cli_export_json(weft *w, const char *path, char *err, size_t err_size) {
  json_writer j = {0};
  if (json_measure(w, &j, err, err_size)) return -1;
  j.out = fopen(path, "w");
  if (!j.out) {
    snprintf(err, err_size, "%s: cannot write", path);
    return -1;
  }
  fputs("{\"traceEvents\":[\n", j.out);
  int rc = json_write_events(w, &j, err, err_size);
  fputs("\n],\n\"displayTimeUnit\":\"ns\",\n\"metadata\":{\"weft_pid_map\":[", j.out);
  j.events = 0;
  char q[512];
  snprintf(q, sizeof q, "SELECT " JSON_PID("r", "p.pid") ", r.name, r.id, p.pid FROM process p "
           "JOIN mrank r ON r.id = p.machine_id WHERE p.pid IS NOT NULL AND p.pid != 0", j.stride);
  if (!rc) rc = json_query(w, &j, q, json_on_pid_map, err, err_size);
  fputs("\n]}}\n", j.out);
  if (fclose(j.out) != 0 && !rc) {
    snprintf(err, err_size, "%s: cannot write", path);
    rc = -1;
  }
  return rc;
}
