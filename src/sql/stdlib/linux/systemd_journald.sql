-- linux.systemd_journald: the journald entries of the logs table, with the
-- fields the importer keeps as args. Not sorted by timestamp.
CREATE PERFETTO VIEW linux_systemd_journald_logs(
  id ID,
  ts TIMESTAMP,
  utid JOINID(thread.id),
  prio LONG,
  tag STRING,
  msg STRING,
  uid LONG,
  comm STRING,
  systemd_unit STRING,
  hostname STRING,
  transport STRING
) AS
SELECT
  id,
  ts,
  utid,
  prio,
  tag,
  msg,
  extract_arg(arg_set_id, 'uid') AS uid,
  extract_arg(arg_set_id, 'comm') AS comm,
  extract_arg(arg_set_id, 'systemd_unit') AS systemd_unit,
  extract_arg(arg_set_id, 'hostname') AS hostname,
  extract_arg(arg_set_id, 'transport') AS transport
FROM logs
WHERE log_source = 'systemd_journald';
