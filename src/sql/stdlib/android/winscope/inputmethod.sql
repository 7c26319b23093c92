-- android.winscope.inputmethod: the input method state dumps of the
-- android.inputmethod data source, their fields as args.

-- Input method clients' state dumps.
CREATE PERFETTO VIEW android_inputmethod_clients(id LONG, ts TIMESTAMP, arg_set_id ARGSETID) AS
SELECT id, ts, arg_set_id FROM __intrinsic_inputmethod_clients;

-- Input method manager service state dumps.
CREATE PERFETTO VIEW android_inputmethod_manager_service(
  id LONG, ts TIMESTAMP, arg_set_id ARGSETID
) AS
SELECT id, ts, arg_set_id FROM __intrinsic_inputmethod_manager_service;

-- Input method service state dumps.
CREATE PERFETTO VIEW android_inputmethod_service(id LONG, ts TIMESTAMP, arg_set_id ARGSETID) AS
SELECT id, ts, arg_set_id FROM __intrinsic_inputmethod_service;
