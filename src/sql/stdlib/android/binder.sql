-- android.binder: binder transactions, each with its client and server end.
--
-- The kernel's binder events make a "binder transaction" slice on the
-- client thread (or "binder transaction async" for a oneway call) and a
-- "binder reply" (or "binder async rcv") slice on the server thread, joined
-- by a flow. A synchronous transaction's interface is the AIDL/HIDL server
-- slice directly under its reply; a oneway one's is the next AIDL/HIDL
-- server slice on the receiving thread, unless another "binder async rcv"
-- comes first. (Perfetto also drops a synchronous transaction with child
-- slices and no outgoing flow as broken; such a transaction has no reply to
-- join anyway.)
--
-- Perfetto's pprof graphs (android_binder_outgoing_graph,
-- android_binder_incoming_graph, android_binder_graph) are not provided:
-- weft has no cat_stacks / experimental_profile.

INCLUDE PERFETTO MODULE android.process_metadata;

-- Count Binder transactions per process.
CREATE PERFETTO VIEW android_binder_metrics_by_process(
  -- Name of the process that started the binder transaction.
  process_name STRING,
  -- PID of the process that started the binder transaction.
  pid LONG,
  -- Name of the slice with binder transaction.
  slice_name STRING,
  -- Number of binder transactions in process in slice.
  event_count LONG
) AS
SELECT p.name AS process_name, p.pid, s.name AS slice_name, count(*) AS event_count
FROM slice AS s
JOIN thread_track AS tt ON tt.id = s.track_id
JOIN thread AS t USING (utid)
JOIN process AS p USING (upid)
WHERE s.name GLOB 'binder*'
GROUP BY process_name, slice_name;

-- True for the name of an AIDL or HIDL server-side slice (cpp AIDL also
-- has client-side slices, which end in "Client").
CREATE PERFETTO FUNCTION _binder_is_server_interface(name STRING)
RETURNS BOOL AS
SELECT $name GLOB 'AIDL::*Server' OR $name GLOB 'AIDL::*server'
  OR $name GLOB 'HIDL::*server';

-- A slice on a thread track with its thread and process.
CREATE PERFETTO VIEW _binder_thread_slice AS
SELECT
  s.id, s.ts, s.dur, s.name, s.track_id, s.parent_id,
  t.utid, t.tid, t.name AS thread_name, t.is_main_thread,
  p.upid, p.pid, p.name AS process_name
FROM slice AS s
JOIN thread_track AS tt ON tt.id = s.track_id
JOIN thread AS t USING (utid)
JOIN process AS p USING (upid);

-- Samples of each process's oom_score_adj counter, lasting to the next
-- sample of the process (the last to the trace's end; both ends included).
CREATE PERFETTO TABLE _binder_oom_score AS
SELECT
  t.upid,
  cast_int!(c.value) AS value,
  c.ts,
  coalesce(lead(c.ts) OVER (PARTITION BY t.upid ORDER BY c.ts), trace_end()) AS end_ts
FROM counter AS c
JOIN process_counter_track AS t ON t.id = c.track_id
WHERE t.name = 'oom_score_adj';

CREATE PERFETTO INDEX _binder_oom_score_idx ON _binder_oom_score(upid, ts);

-- The columns of a transaction's two ends: `client` and `server` are
-- _binder_thread_slice rows (the transaction and its flow's target).
CREATE PERFETTO MACRO _binder_ends(client Expr, server Expr)
RETURNS Expr AS
  $client.id AS binder_txn_id,
  $client.process_name AS client_process,
  $client.thread_name AS client_thread,
  $client.upid AS client_upid,
  $client.utid AS client_utid,
  $client.tid AS client_tid,
  $client.pid AS client_pid,
  $client.is_main_thread AS is_main_thread,
  $client.ts AS client_ts,
  $client.dur AS client_dur,
  $server.id AS binder_reply_id,
  $server.process_name AS server_process,
  $server.thread_name AS server_thread,
  $server.upid AS server_upid,
  $server.utid AS server_utid,
  $server.tid AS server_tid,
  $server.pid AS server_pid,
  $server.ts AS server_ts,
  $server.dur AS server_dur;

-- Finished synchronous transactions whose reply lies within them; the
-- interface is the server slice under the reply with the smallest name.
CREATE PERFETTO TABLE _binder_sync_txn AS
WITH
  interfaces AS (
    SELECT parent_id, name, ts, dur,
      row_number() OVER (PARTITION BY parent_id ORDER BY name, id) AS rank
    FROM slice
    WHERE parent_id IS NOT NULL AND _binder_is_server_interface(name)
  )
SELECT
  i.name AS aidl_name,
  i.ts AS aidl_ts,
  i.dur AS aidl_dur,
  _binder_ends!(c, r)
FROM _binder_thread_slice AS c
JOIN flow AS f ON f.slice_out = c.id
JOIN _binder_thread_slice AS r ON r.id = f.slice_in
LEFT JOIN interfaces AS i ON i.parent_id = r.id AND i.rank = 1
WHERE c.name = 'binder transaction'
  AND c.dur != -1 AND r.dur != -1 AND c.dur >= r.dur
ORDER BY binder_txn_id, binder_reply_id;

-- Server-side slices of oneway calls: each "binder async rcv" and interface
-- slice with the next one of them on its track.
CREATE PERFETTO TABLE _binder_async_rcv AS
SELECT
  id, name,
  lead(name) OVER (PARTITION BY track_id ORDER BY ts) AS next_name,
  lead(ts) OVER (PARTITION BY track_id ORDER BY ts) AS next_ts,
  lead(dur) OVER (PARTITION BY track_id ORDER BY ts) AS next_dur
FROM slice
WHERE name = 'binder async rcv' OR _binder_is_server_interface(name)
ORDER BY id;

-- Oneway transactions and where they were received.
CREATE PERFETTO TABLE _binder_async_txn AS
SELECT
  IIF(a.next_name = 'binder async rcv', NULL, a.next_name) AS aidl_name,
  IIF(a.next_name = 'binder async rcv', NULL, a.next_ts) AS aidl_ts,
  IIF(a.next_name = 'binder async rcv', NULL, a.next_dur) AS aidl_dur,
  _binder_ends!(c, r)
FROM _binder_thread_slice AS c
JOIN flow AS f ON f.slice_out = c.id
JOIN _binder_async_rcv AS a ON a.id = f.slice_in AND a.name = 'binder async rcv'
JOIN _binder_thread_slice AS r ON r.id = a.id
WHERE c.name = 'binder transaction async'
ORDER BY binder_txn_id;

-- A table of transactions with the oom scores of both processes at their
-- starts (a start on a sample boundary matches both samples).
CREATE PERFETTO MACRO _binder_with_oom(txns TableOrSubquery)
RETURNS TableOrSubquery AS
(
  SELECT b.*, co.value AS client_oom_score, so.value AS server_oom_score
  FROM $txns AS b
  LEFT JOIN _binder_oom_score AS co
    ON co.upid = b.client_upid AND b.client_ts BETWEEN co.ts AND co.end_ts
  LEFT JOIN _binder_oom_score AS so
    ON so.upid = b.server_upid AND b.server_ts BETWEEN so.ts AND so.end_ts
);

CREATE PERFETTO TABLE _binder_sync_txn_oom AS
SELECT * FROM _binder_with_oom!(_binder_sync_txn);

-- The client and the server spans of synchronous transactions, by thread.
CREATE PERFETTO VIEW _binder_client_span AS
SELECT client_ts AS ts, client_dur AS dur, client_utid AS utid,
  binder_txn_id, client_ts, client_tid, binder_reply_id, server_ts, server_tid
FROM _binder_sync_txn_oom;

CREATE PERFETTO VIEW _binder_server_span AS
SELECT server_ts AS ts, server_dur AS dur, server_utid AS utid,
  binder_txn_id, client_ts, client_tid, binder_reply_id, server_ts, server_tid
FROM _binder_sync_txn_oom;

CREATE VIRTUAL TABLE _binder_client_thread_state
USING SPAN_JOIN(_binder_client_span PARTITIONED utid, thread_state PARTITIONED utid);

CREATE VIRTUAL TABLE _binder_server_thread_state
USING SPAN_JOIN(_binder_server_span PARTITIONED utid, thread_state PARTITIONED utid);

-- The thread states of both ends of every transaction, the client's tagged
-- 'binder_txn' and the server's 'binder_reply'.
CREATE PERFETTO VIEW _binder_end_thread_state AS
SELECT 'binder_txn' AS thread_state_type, * FROM _binder_client_thread_state
UNION ALL
SELECT 'binder_reply' AS thread_state_type, * FROM _binder_server_thread_state;

-- Aggregated thread_states on the client and server side per binder txn.
CREATE PERFETTO VIEW android_sync_binder_thread_state_by_txn(
  -- slice id of the binder txn
  binder_txn_id LONG,
  -- Client timestamp
  client_ts TIMESTAMP,
  -- Client tid
  client_tid LONG,
  -- slice id of the binder reply
  binder_reply_id LONG,
  -- Server timestamp
  server_ts TIMESTAMP,
  -- Server tid
  server_tid LONG,
  -- whether thread state is on the txn or reply side
  thread_state_type STRING,
  -- a thread_state that occurred in the txn
  thread_state STRING,
  -- aggregated dur of the |thread_state| in the txn
  thread_state_dur DURATION,
  -- aggregated count of the |thread_state| in the txn
  thread_state_count LONG
) AS
SELECT
  binder_txn_id, client_ts, client_tid, binder_reply_id, server_ts, server_tid,
  thread_state_type,
  state AS thread_state,
  sum(dur) AS thread_state_dur,
  count(dur) AS thread_state_count
FROM _binder_end_thread_state
GROUP BY thread_state_type, binder_txn_id, binder_reply_id, state;

-- Aggregated blocked_functions on the client and server side per binder txn.
CREATE PERFETTO VIEW android_sync_binder_blocked_functions_by_txn(
  -- slice id of the binder txn
  binder_txn_id LONG,
  -- Client ts
  client_ts TIMESTAMP,
  -- Client tid
  client_tid LONG,
  -- slice id of the binder reply
  binder_reply_id LONG,
  -- Server ts
  server_ts TIMESTAMP,
  -- Server tid
  server_tid LONG,
  -- whether thread state is on the txn or reply side
  thread_state_type STRING,
  -- blocked kernel function in a thread state
  blocked_function STRING,
  -- aggregated dur of the |blocked_function| in the txn
  blocked_function_dur DURATION,
  -- aggregated count of the |blocked_function| in the txn
  blocked_function_count LONG
) AS
SELECT
  binder_txn_id, client_ts, client_tid, binder_reply_id, server_ts, server_tid,
  thread_state_type,
  blocked_function,
  sum(dur) AS blocked_function_dur,
  count(dur) AS blocked_function_count
FROM _binder_end_thread_state
WHERE blocked_function IS NOT NULL
GROUP BY thread_state_type, binder_txn_id, binder_reply_id, blocked_function;

-- The time from ts to ts + dur on the monotonic clock, which stops while
-- the device is suspended.
CREATE PERFETTO FUNCTION _binder_monotonic_dur(ts TIMESTAMP, dur DURATION)
RETURNS LONG AS
SELECT to_monotonic($ts + $dur) - to_monotonic($ts);

-- Breakdown binder transactions per txn: the client and server ends of
-- every synchronous and oneway transaction.
CREATE PERFETTO TABLE android_binder_txns(
  -- Interface of the binder endpoint if existing.
  interface STRING,
  -- Method name of the binder endpoint if existing.
  method_name STRING,
  -- Fully qualified name of the binder endpoint if existing.
  aidl_name STRING,
  -- Timestamp the binder interface name was emitted. Proxy to 'ts' and 'dur' for async txns.
  aidl_ts TIMESTAMP,
  -- Duration of the binder interface name. Proxy to 'ts' and 'dur' for async txns.
  aidl_dur DURATION,
  -- Slice id of the binder txn.
  binder_txn_id JOINID(slice.id),
  -- Name of the client process.
  client_process STRING,
  -- Name of the client thread.
  client_thread STRING,
  -- Upid of the client process.
  client_upid JOINID(process.id),
  -- Utid of the client thread.
  client_utid JOINID(thread.id),
  -- Tid of the client thread.
  client_tid LONG,
  -- Pid of the client thread.
  client_pid LONG,
  -- Whether the txn was initiated from the main thread of the client process.
  is_main_thread BOOL,
  -- Timestamp of the client txn.
  client_ts TIMESTAMP,
  -- Wall clock dur of the client txn.
  client_dur DURATION,
  -- Slice id of the binder reply.
  binder_reply_id JOINID(slice.id),
  -- Name of the server process.
  server_process STRING,
  -- Name of the server thread.
  server_thread STRING,
  -- Upid of the server process.
  server_upid JOINID(process.id),
  -- Utid of the server thread.
  server_utid JOINID(thread.id),
  -- Tid of the server thread.
  server_tid LONG,
  -- Pid of the server thread.
  server_pid LONG,
  -- Timestamp of the server txn.
  server_ts TIMESTAMP,
  -- Wall clock dur of the server txn.
  server_dur DURATION,
  -- Oom score of the client process at the start of the txn.
  client_oom_score LONG,
  -- Oom score of the server process at the start of the reply.
  server_oom_score LONG,
  -- Whether the txn is synchronous or async (oneway).
  is_sync BOOL,
  -- Monotonic clock dur of the client txn.
  client_monotonic_dur DURATION,
  -- Monotonic clock dur of the server txn.
  server_monotonic_dur DURATION,
  -- Client package version_code.
  client_package_version_code LONG,
  -- Server package version_code.
  server_package_version_code LONG,
  -- Whether client package is debuggable.
  is_client_package_debuggable BOOL,
  -- Whether server package is debuggable.
  is_server_package_debuggable BOOL
) AS
WITH
  txns AS (
    SELECT *, 1 AS is_sync FROM _binder_sync_txn_oom
    UNION ALL
    SELECT *, 0 AS is_sync FROM _binder_with_oom!(_binder_async_txn)
  )
SELECT
  str_split(b.aidl_name, '::', 2) AS interface,
  str_split(b.aidl_name, '::', 3) AS method_name,
  b.*,
  _binder_monotonic_dur(b.client_ts, b.client_dur) AS client_monotonic_dur,
  _binder_monotonic_dur(b.server_ts, b.server_dur) AS server_monotonic_dur,
  cm.version_code AS client_package_version_code,
  sm.version_code AS server_package_version_code,
  cm.debuggable AS is_client_package_debuggable,
  sm.debuggable AS is_server_package_debuggable
FROM txns AS b
LEFT JOIN android_process_metadata AS cm ON cm.upid = b.client_upid
LEFT JOIN android_process_metadata AS sm ON sm.upid = b.server_upid
ORDER BY b.binder_txn_id;
