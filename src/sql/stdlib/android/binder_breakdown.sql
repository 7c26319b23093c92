-- android.binder_breakdown: why each binder transaction took its time, as
-- exclusive intervals of the client's and of the server's side.
--
-- Each end of a transaction (the client's "binder transaction", the
-- server's "binder reply") is cut into the pieces where one slice is the
-- innermost: the end itself or a slice under it. Each piece is cut again by
-- the thread's states, and each part is given a reason by the slice's name
-- and the state.

INCLUDE PERFETTO MODULE android.binder;
INCLUDE PERFETTO MODULE intervals.intersect;
INCLUDE PERFETTO MODULE slices.with_context;

-- The innermost slice at each time of each transaction end: `end_id` the
-- android_binder_txns column holding the end's slice id, `end_ts` /
-- `end_dur` its span, `end_name` the name of the end's slices. Pieces
-- (root_id, id, ts, dur) of positive length; where slices start together
-- the one with the least id (the outer) is innermost until the next start
-- or end, and where only ends meet, the outermost ending slice's parent.
CREATE PERFETTO MACRO _binder_bd_flatten(
  end_id ColumnName, end_ts ColumnName, end_dur ColumnName, end_name Expr
)
RETURNS TableOrSubquery AS
(
  WITH
    roots AS (
      SELECT DISTINCT $end_id AS root_id, $end_ts AS root_ts, $end_dur AS root_dur
      FROM android_binder_txns
      WHERE $end_dur > 0
    ),
    children AS (
      SELECT r.root_id, d.id, d.parent_id, d.ts, d.dur
      FROM roots AS r
      JOIN slice AS s ON s.id = r.root_id AND s.name = $end_name
      JOIN descendant_slice(r.root_id) AS d
      WHERE d.dur > 0
    ),
    points AS (
      SELECT root_id, ts, id, 1 AS is_start, id AS ord FROM children
      UNION ALL
      SELECT root_id, ts + dur AS ts, coalesce(parent_id, root_id) AS id, 0 AS is_start,
        id AS ord
      FROM children
    ),
    chosen AS (
      SELECT root_id, ts, id
      FROM (
        SELECT root_id, ts, id,
          row_number() OVER (PARTITION BY root_id, ts ORDER BY is_start DESC, ord) AS rank
        FROM points
      )
      WHERE rank = 1
    ),
    middle AS (
      SELECT root_id, id, ts, dur
      FROM (
        SELECT root_id, id, ts,
          lead(ts) OVER (PARTITION BY root_id ORDER BY ts) - ts AS dur
        FROM chosen
      )
      WHERE dur > 0
    ),
    bounds AS (
      SELECT root_id, min(ts) AS first_ts, max(ts + dur) AS last_end
      FROM middle
      GROUP BY root_id
    ),
    -- A root without a direct child of positive length is one piece.
    childless AS (
      SELECT root_id FROM roots
      EXCEPT
      SELECT DISTINCT parent_id FROM children
    )
  SELECT root_id, id, ts, dur FROM middle
  UNION ALL
  SELECT r.root_id, r.root_id, r.root_ts, b.first_ts - r.root_ts
  FROM roots AS r JOIN bounds AS b USING (root_id)
  WHERE b.first_ts > r.root_ts
  UNION ALL
  SELECT r.root_id, r.root_id, b.last_end, r.root_ts + r.root_dur - b.last_end
  FROM roots AS r JOIN bounds AS b USING (root_id)
  WHERE r.root_ts + r.root_dur > b.last_end
  UNION ALL
  SELECT r.root_id, r.root_id, r.root_ts, r.root_dur
  FROM roots AS r JOIN childless USING (root_id)
);

-- The pieces of one side of every transaction, with the slice's name and
-- thread, a row per android_binder_txns row of the transaction.
CREATE PERFETTO MACRO _binder_bd_pieces(
  end_id ColumnName, end_ts ColumnName, end_dur ColumnName, end_name Expr
)
RETURNS TableOrSubquery AS
(
  SELECT
    row_number() OVER (ORDER BY f.root_id, f.ts, t.binder_txn_id) AS id,
    t.binder_txn_id,
    t.binder_reply_id,
    f.id AS flat_id,
    f.ts,
    f.dur,
    s.name,
    s.utid
  FROM _binder_bd_flatten!($end_id, $end_ts, $end_dur, $end_name) AS f
  JOIN thread_slice AS s ON s.id = f.id
  JOIN android_binder_txns AS t ON t.$end_id = f.root_id
  WHERE f.dur > 0
);

CREATE PERFETTO TABLE _binder_bd_server_pieces AS
SELECT * FROM _binder_bd_pieces!(binder_reply_id, server_ts, server_dur, 'binder reply')
ORDER BY id;

CREATE PERFETTO TABLE _binder_bd_client_pieces AS
SELECT * FROM _binder_bd_pieces!(binder_txn_id, client_ts, client_dur, 'binder transaction')
ORDER BY id;

-- Thread states of positive length.
CREATE PERFETTO VIEW _binder_bd_thread_state AS
SELECT id, ts, dur, utid, state, io_wait
FROM thread_state
WHERE dur > 0;

-- The reason of a part of a transaction end: by the innermost slice's name
-- first (memory reclaim), then, sleeping, by the contention or the nested
-- binder call it names, then io wait, else the thread state.
CREATE PERFETTO FUNCTION _binder_bd_reason(
  name STRING, state STRING, io_wait LONG, binder_txn_id LONG, binder_reply_id LONG,
  flat_id LONG
)
RETURNS STRING AS
SELECT CASE
  WHEN $name = 'mm_vmscan_direct_reclaim' THEN 'kernel_memory_reclaim'
  WHEN $name GLOB 'GC: Wait For*' THEN 'userspace_memory_reclaim'
  WHEN $state = 'S' AND ($name GLOB 'monitor contention*'
                         OR $name GLOB 'Lock contention on a monitor lock*')
    THEN 'monitor_contention'
  WHEN $state = 'S' AND $name GLOB 'Lock contention*' THEN 'art_lock_contention'
  WHEN $state = 'S' AND $flat_id != $binder_reply_id AND $flat_id != $binder_txn_id
    AND $name IN ('binder transaction', 'binder reply')
    THEN 'binder'
  WHEN $state = 'S' AND $name = 'Contending for pthread mutex' THEN 'mutex_contention'
  WHEN $state != 'S' AND $io_wait = 1 THEN 'io'
  ELSE $state
END;

-- One side's pieces cut by their thread's states, with their reasons.
CREATE PERFETTO MACRO _binder_bd_reasons(pieces TableOrSubquery)
RETURNS TableOrSubquery AS
(
  SELECT
    p.binder_txn_id,
    p.binder_reply_id,
    ii.ts,
    ii.dur,
    _binder_bd_reason(p.name, st.state, st.io_wait, p.binder_txn_id, p.binder_reply_id,
                      p.flat_id) AS reason
  FROM _interval_intersect!(($pieces, _binder_bd_thread_state), (utid)) AS ii
  JOIN $pieces AS p ON p.id = ii.id_0
  JOIN _binder_bd_thread_state AS st ON st.id = ii.id_1
);

-- Server side binder breakdowns per transactions per txn.
CREATE PERFETTO TABLE android_binder_server_breakdown(
  -- Client side id of the binder txn.
  binder_txn_id JOINID(slice.id),
  -- Server side id of the binder txn.
  binder_reply_id JOINID(slice.id),
  -- Timestamp of an exclusive interval during the binder reply with a single
  -- reason.
  ts TIMESTAMP,
  -- Duration of an exclusive interval during the binder reply with a single
  -- reason.
  dur DURATION,
  -- Cause of delay during an exclusive interval of the binder reply.
  reason STRING
) AS
SELECT * FROM _binder_bd_reasons!(_binder_bd_server_pieces);

-- Client side binder breakdowns per transactions per txn.
CREATE PERFETTO TABLE android_binder_client_breakdown(
  -- Client side id of the binder txn.
  binder_txn_id JOINID(slice.id),
  -- Server side id of the binder txn.
  binder_reply_id JOINID(slice.id),
  -- Timestamp of an exclusive interval during the binder txn with a single
  -- latency reason.
  ts TIMESTAMP,
  -- Duration of an exclusive interval during the binder txn with a single
  -- latency reason.
  dur DURATION,
  -- Cause of delay during an exclusive interval of the binder txn.
  reason STRING
) AS
SELECT * FROM _binder_bd_reasons!(_binder_bd_client_pieces);

CREATE PERFETTO VIEW _binder_bd_client_side AS
SELECT binder_txn_id, binder_reply_id, ts, dur, reason AS client_reason
FROM android_binder_client_breakdown;

CREATE PERFETTO VIEW _binder_bd_server_side AS
SELECT binder_txn_id, ts, dur, reason AS server_reason
FROM android_binder_server_breakdown;

CREATE VIRTUAL TABLE _binder_bd_both_sides USING SPAN_LEFT_JOIN(
  _binder_bd_client_side PARTITIONED binder_txn_id,
  _binder_bd_server_side PARTITIONED binder_txn_id);

-- Combined client and server side binder breakdowns per transaction: the
-- client's intervals cut by the server's, the server's reason first.
CREATE PERFETTO TABLE android_binder_client_server_breakdown(
  -- Timestamp of an exclusive interval during the binder txn with a single
  -- latency reason.
  ts TIMESTAMP,
  -- Duration of an exclusive interval during the binder txn with a single
  -- latency reason.
  dur DURATION,
  -- Client side id of the binder txn.
  binder_txn_id JOINID(slice.id),
  -- Server side id of the binder txn.
  binder_reply_id JOINID(slice.id),
  -- The client side component of this interval's binder latency reason.
  client_reason STRING,
  -- The server side component of this interval's binder latency reason, if any.
  server_reason STRING,
  -- Combined reason indicating whether latency came from client or server side.
  reason STRING,
  -- Whether the latency is due to the client or server.
  reason_type STRING
) AS
SELECT
  *,
  coalesce(server_reason, client_reason) AS reason,
  IIF(server_reason IS NULL, 'client', 'server') AS reason_type
FROM _binder_bd_both_sides;
