-- android.network_packets: network traffic from the android.network_packets
-- data source, and macros estimating how long the radio stays up for it.
-- weft does not import that data source yet, so the view is empty; the
-- macros work on any table of events.

INCLUDE PERFETTO MODULE std.metasql.unparenthesize;

-- Network packet events (columns in the order Perfetto's view gives them).
CREATE PERFETTO VIEW android_network_packets(
  id ID,
  ts TIMESTAMP,
  dur DURATION,
  track_name STRING,
  package_name STRING,
  iface STRING,
  direction STRING,
  packet_count LONG,
  packet_length LONG,
  packet_transport STRING,
  packet_tcp_flags LONG,
  packet_tcp_flags_int LONG,
  socket_tag STRING,
  socket_tag_int LONG,
  socket_uid LONG,
  local_port LONG,
  remote_port LONG,
  packet_icmp_type LONG,
  packet_icmp_code LONG
) AS
SELECT
  NULL AS id, NULL AS ts, NULL AS dur, NULL AS track_name, NULL AS package_name,
  NULL AS iface, NULL AS direction, NULL AS packet_count, NULL AS packet_length,
  NULL AS packet_transport, NULL AS packet_tcp_flags, NULL AS packet_tcp_flags_int,
  NULL AS socket_tag, NULL AS socket_tag_int, NULL AS socket_uid, NULL AS local_port,
  NULL AS remote_port, NULL AS packet_icmp_type, NULL AS packet_icmp_code
WHERE 0;

-- The rows of `src` per partition in time order (ties in the order `src`
-- gives them), each with the latest end (ts + dur) of the rows before it.
CREATE PERFETTO MACRO _android_network_with_prior_end(
  src TableOrSubquery,
  partition_columns ColumnNameList
)
RETURNS TableOrSubquery AS
(
  SELECT
    numbered.*,
    max(numbered.ts + numbered.dur) OVER (
      PARTITION BY metasql_unparenthesize_exprlist!($partition_columns)
      ORDER BY numbered.ts, numbered._arrival
      ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
    ) AS _prior_end
  FROM (SELECT event.*, row_number() OVER () AS _arrival FROM $src AS event) AS numbered
);

-- Spans during which the network is up, per partition: an event keeps the
-- span open when it starts at most `timeout` after the latest end so far;
-- a span ends `timeout` after its latest end. Columns: the partition
-- columns, ts, dur and the spans' total packet_count and packet_length.
CREATE PERFETTO MACRO android_network_uptime_spans(
  src TableOrSubquery,
  partition_columns ColumnNameList,
  timeout Expr
)
RETURNS TableOrSubquery AS
(
  WITH
    _nus_marked AS (
      SELECT *,
        iif(_prior_end IS NULL OR ts > _prior_end + ($timeout), 1, 0) AS _opens
      FROM _android_network_with_prior_end!($src, $partition_columns)
    ),
    _nus_numbered AS (
      SELECT *,
        sum(_opens) OVER (
          PARTITION BY metasql_unparenthesize_exprlist!($partition_columns)
          ORDER BY ts, _arrival
          ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS _span
      FROM _nus_marked
    )
  SELECT
    metasql_unparenthesize_exprlist!($partition_columns),
    min(ts) AS ts,
    max(ts + dur) + ($timeout) - min(ts) AS dur,
    sum(packet_count) AS packet_count,
    sum(packet_length) AS packet_length
  FROM _nus_numbered
  GROUP BY metasql_unparenthesize_exprlist!($partition_columns), _span
  ORDER BY metasql_unparenthesize_exprlist!($partition_columns), min(ts)
);

-- Each event's share (ns) of the network's up time, per partition. Events
-- whose intervals overlap or touch form a group; the group's first event
-- pays the time since the previous group's end (at most `timeout`; the
-- whole `timeout` for a partition's first group), and the group's own
-- length is shared by packet_count (in integer division). Columns: id,
-- uptime_cost.
CREATE PERFETTO MACRO android_network_uptime_cost(
  src TableOrSubquery,
  partition_columns ColumnNameList,
  timeout Expr
)
RETURNS TableOrSubquery AS
(
  WITH
    _nuc_marked AS (
      SELECT *,
        iif(_prior_end IS NULL OR ts > _prior_end, 1, 0) AS _opens
      FROM _android_network_with_prior_end!($src, $partition_columns)
    ),
    _nuc_numbered AS (
      SELECT *,
        sum(_opens) OVER (
          PARTITION BY metasql_unparenthesize_exprlist!($partition_columns)
          ORDER BY ts, _arrival
          ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS _group
      FROM _nuc_marked
    ),
    _nuc_grouped AS (
      SELECT *,
        max(ts + dur) OVER by_group - min(ts) OVER by_group AS _group_dur,
        sum(packet_count) OVER by_group AS _group_packets
      FROM _nuc_numbered
      WINDOW by_group AS (
        PARTITION BY metasql_unparenthesize_exprlist!($partition_columns), _group)
    )
  SELECT
    id,
    iif(_opens, iif(_prior_end IS NULL, ($timeout), min(ts - _prior_end, ($timeout))), 0)
      + _group_dur * packet_count / _group_packets AS uptime_cost
  FROM _nuc_grouped
  ORDER BY metasql_unparenthesize_exprlist!($partition_columns), ts, _arrival
);
