-- android.input: Android input events recorded by the android.input.inputevent
-- data source (key and motion events and their dispatch to windows).
-- (android_input_events, the latency breakdown from atrace slices, is not
-- provided.)

-- Key events, their fields as args.
CREATE PERFETTO VIEW android_key_events(
  id LONG, event_id LONG, ts TIMESTAMP, arg_set_id ARGSETID, source LONG, action LONG,
  device_id LONG, display_id LONG, key_code LONG
) AS
SELECT id, event_id, ts, arg_set_id, source, action, device_id, display_id, key_code
FROM __intrinsic_android_key_events;

-- Motion events, their fields (pointers included) as args.
CREATE PERFETTO VIEW android_motion_events(
  id LONG, event_id LONG, ts TIMESTAMP, arg_set_id ARGSETID, source LONG, action LONG,
  device_id LONG, display_id LONG
) AS
SELECT id, event_id, ts, arg_set_id, source, action, device_id, display_id
FROM __intrinsic_android_motion_events;

-- One row per window an input event was dispatched to.
CREATE PERFETTO VIEW android_input_event_dispatch(
  id LONG, event_id LONG, arg_set_id ARGSETID, vsync_id LONG, window_id LONG
) AS
SELECT id, event_id, arg_set_id, vsync_id, window_id
FROM __intrinsic_android_input_event_dispatch;
