"""End-to-end: Perfetto's one-table views served as virtual tables
(src/sql/vtab_view.h). Each must answer as the SQL view it replaces
(its definition kept here): same columns in the same order, same rows.
A LEFT JOIN on them reads them like a table (no copy of the whole view),
rows of one arg set come in id order, and their names stay taken."""

import json
import os
import subprocess
import sys

import weft_e2e as e
from weft_e2e import pb_bytes, pb_double, pb_int, pb_packet

HERE = os.path.dirname(os.path.abspath(__file__))

# What each view was as SQL (the rows and columns it must keep).
SQL_DEFINITIONS = {
    '__intrinsic_profiler_execution_context':
        'SELECT id, ucpu, cpu_mode FROM __intrinsic_stack_sample_execution_context',
    '__intrinsic_profiler_sample':
        'SELECT id, ts, source, task_context_id, execution_context_id, callsite_id, unwind_error, session_id, counter_set_id FROM __intrinsic_stack_sample',
    '__intrinsic_profiler_task_context':
        'SELECT id, upid, utid, async_context_id FROM __intrinsic_stack_sample_task_context',
    'android_game_intervention_list':
        'SELECT * FROM __intrinsic_android_game_intervention_list',
    'android_logs':
        "SELECT id, ts, utid, prio, tag, msg FROM __intrinsic_logs WHERE log_source = 'android_logcat'",
    'args':
        "SELECT *, CASE value_type WHEN 'int' THEN CAST(int_value AS TEXT) WHEN 'uint' THEN CASE WHEN int_value >= 0 THEN CAST(int_value AS TEXT) ELSE CAST(((int_value >> 1) & 9223372036854775807) / 5 AS TEXT) || CAST(2 * (((int_value >> 1) & 9223372036854775807) % 5) + (int_value & 1) AS TEXT) END WHEN 'string' THEN string_value WHEN 'json' THEN string_value WHEN 'real' THEN CAST(real_value AS TEXT) WHEN 'pointer' THEN printf('0x%x', int_value) WHEN 'bool' THEN CASE WHEN int_value != 0 THEN 'true' ELSE 'false' END ELSE NULL END AS display_value FROM __intrinsic_args",
    'clock_snapshot':
        'SELECT * FROM __intrinsic_clock_snapshot',
    'counter':
        'SELECT * FROM __intrinsic_counter',
    'counter_track':
        "SELECT id, name, parent_id, type, dimension_arg_set_id, source_arg_set_id, machine_id, counter_unit AS unit, extract_arg(source_arg_set_id, 'description') AS description FROM __intrinsic_track WHERE event_type = 'counter'",
    'cpu':
        'SELECT id, id AS ucpu, cpu, cluster_id, processor, machine_id, capacity, arg_set_id FROM __intrinsic_cpu WHERE cpu IS NOT NULL ORDER BY id',
    'cpu_available_frequencies':
        'SELECT id, ucpu AS cpu, freq, ucpu FROM __intrinsic_cpu_freq',
    'cpu_counter_track':
        "SELECT id, name, type, parent_id, source_arg_set_id, machine_id, counter_unit AS unit, extract_arg(source_arg_set_id, 'description') AS description, cpu % 4096 AS cpu FROM __intrinsic_track WHERE event_type = 'counter' AND cpu IS NOT NULL",
    'cpu_profile_stack_sample':
        "SELECT id, ts, callsite_id, utid, COALESCE(process_priority, 0) AS process_priority FROM __intrinsic_stack_sample WHERE source IN ('chrome', 'legacy_v8', 'gecko', 'simpleperf', 'perf_text') ORDER BY id",
    'cpu_track':
        "SELECT id, name, type, parent_id, source_arg_set_id, machine_id, cpu % 4096 AS cpu FROM __intrinsic_track WHERE event_type = 'slice' AND cpu IS NOT NULL",
    'experimental_proto_path':
        'SELECT * FROM __intrinsic_experimental_proto_path',
    'flow':
        'SELECT * FROM __intrinsic_flow',
    'ftrace_event':
        'SELECT id, ts, name, ucpu AS cpu, utid, arg_set_id, common_flags, ucpu FROM __intrinsic_ftrace_event',
    'gpu':
        'SELECT id, id AS ugpu, gpu, name, vendor, model, architecture, uuid, pci_bdf, machine_id, arg_set_id FROM __intrinsic_gpu',
    'gpu_counter_group':
        'SELECT * FROM __intrinsic_gpu_counter_group',
    'gpu_counter_track':
        "SELECT id, name, type, parent_id, source_arg_set_id, machine_id, counter_unit AS unit, extract_arg(source_arg_set_id, 'description') AS description, extract_arg(dimension_arg_set_id, 'ugpu') AS ugpu, extract_arg(dimension_arg_set_id, 'gpu') AS gpu_id FROM __intrinsic_track WHERE type = 'gpu_counter'",
    'gpu_track':
        "SELECT id, name, type, parent_id, source_arg_set_id, dimension_arg_set_id, machine_id, type AS scope, extract_arg(source_arg_set_id, 'description') AS description, extract_arg(dimension_arg_set_id, 'context_id') AS context_id FROM __intrinsic_track WHERE type IN ('drm_vblank', 'drm_sched_ring', 'drm_fence', 'mali_mcu_state', 'gpu_render_stage', 'vulkan_events', 'gpu_log', 'graphics_frame_event')",
    'instant':
        'SELECT ts, track_id, name, arg_set_id FROM __intrinsic_slice WHERE dur = 0',
    'instruments_sample':
        "SELECT id, ts, utid, callsite_id, cpu FROM __intrinsic_stack_sample WHERE source = 'instruments'",
    'logs':
        'SELECT * FROM __intrinsic_logs',
    'package_list':
        'SELECT * FROM __intrinsic_package_list',
    'perf_counter_track':
        "SELECT id, name, type, parent_id, source_arg_set_id, machine_id, counter_unit AS unit, extract_arg(source_arg_set_id, 'description') AS description, extract_arg(dimension_arg_set_id, 'perf_session_id') AS perf_session_id, extract_arg(dimension_arg_set_id, 'cpu') AS cpu, extract_arg(source_arg_set_id, 'is_timebase') AS is_timebase FROM __intrinsic_track WHERE type = 'perf_cpu_counter'",
    'perf_sample':
        "SELECT id, ts, utid, cpu, COALESCE(cpu_mode, 'unknown') AS cpu_mode, callsite_id, unwind_error, session_id AS perf_session_id FROM __intrinsic_stack_sample WHERE source = 'linux.perf'",
    'perf_session':
        "SELECT id, id AS perf_session_id, cmdline FROM __intrinsic_profiler_session WHERE source = 'linux.perf'",
    'process':
        'SELECT id AS upid, * FROM __intrinsic_process',
    'process_counter_track':
        "SELECT id, name, type, parent_id, source_arg_set_id, machine_id, counter_unit AS unit, extract_arg(source_arg_set_id, 'description') AS description, upid FROM __intrinsic_track WHERE event_type = 'counter' AND upid IS NOT NULL",
    'process_state_track':
        "SELECT id, name, type, parent_id, source_arg_set_id, machine_id, upid FROM __intrinsic_track WHERE event_type = 'state' AND upid IS NOT NULL",
    'process_track':
        "SELECT id, name, type, parent_id, source_arg_set_id, machine_id, upid FROM __intrinsic_track WHERE event_type = 'slice' AND upid IS NOT NULL",
    'protolog':
        'SELECT id, ts, level, tag, message, stacktrace, location FROM __intrinsic_protolog',
    'raw':
        'SELECT * FROM ftrace_event',
    'sched':
        'SELECT *, ts + dur AS ts_end FROM sched_slice',
    'sched_slice':
        'SELECT id, ts, dur, ucpu AS cpu, utid, end_state, priority, ucpu FROM __intrinsic_sched_slice',
    'slice':
        'SELECT *, category AS cat, id AS slice_id FROM __intrinsic_slice',
    'slices':
        'SELECT * FROM slice',
    'stack_sample':
        'SELECT id, ts, source, task_context_id, execution_context_id, callsite_id, session_id FROM __intrinsic_stack_sample WHERE callsite_id IS NOT NULL',
    'state':
        'SELECT * FROM __intrinsic_state',
    'state_track':
        "SELECT id, name, parent_id, type, dimension_arg_set_id, source_arg_set_id, machine_id FROM __intrinsic_track WHERE event_type = 'state'",
    'surfaceflinger_layer':
        'SELECT id, snapshot_id, arg_set_id, base64_proto_id, layer_id, layer_name, is_visible, parent, corner_radius_tl, corner_radius_tr, corner_radius_bl, corner_radius_br, hwc_composition_type, is_hidden_by_policy, z_order_relative_of, is_missing_z_parent, layer_rect_id, input_rect_id FROM __intrinsic_surfaceflinger_layer',
    'surfaceflinger_layers_snapshot':
        'SELECT id, ts, arg_set_id, base64_proto_id, sequence_id, has_invalid_elapsed_ts FROM __intrinsic_surfaceflinger_layers_snapshot',
    'surfaceflinger_transactions':
        'SELECT id, ts, arg_set_id, base64_proto_id, vsync_id FROM __intrinsic_surfaceflinger_transactions',
    'thread':
        'SELECT id AS utid, * FROM __intrinsic_thread',
    'thread_counter_track':
        "SELECT id, name, type, parent_id, source_arg_set_id, machine_id, counter_unit AS unit, extract_arg(source_arg_set_id, 'description') AS description, utid FROM __intrinsic_track WHERE event_type = 'counter' AND utid IS NOT NULL",
    'thread_state':
        'SELECT id, ts, dur, ucpu AS cpu, utid, state, io_wait, blocked_function, waker_utid, waker_id, irq_context, ucpu FROM __intrinsic_thread_state',
    'thread_state_track':
        "SELECT id, name, type, parent_id, source_arg_set_id, machine_id, utid FROM __intrinsic_track WHERE event_type = 'state' AND utid IS NOT NULL",
    'thread_track':
        "SELECT id, name, type, parent_id, source_arg_set_id, machine_id, utid FROM __intrinsic_track WHERE event_type = 'slice' AND utid IS NOT NULL",
    'trace_diagnostics':
        'SELECT id, key AS name, title, description, remediation, confidence, trace_id FROM __intrinsic_trace_diagnostics',
    'trace_file':
        'SELECT * FROM __intrinsic_trace_file',
    'track':
        'SELECT id, name, type, dimension_arg_set_id, parent_id, source_arg_set_id, machine_id, track_group_id FROM __intrinsic_track',
    'window_manager_shell_transition_handlers':
        'SELECT id, handler_id, handler_name, base64_proto_id FROM __intrinsic_window_manager_shell_transition_handlers',
    'window_manager_shell_transitions':
        'SELECT id, ts, transition_id, arg_set_id, transition_type, send_time_ns, dispatch_time_ns, duration_ns, finish_time_ns, shell_abort_time_ns, wm_abort_time_ns, merge_time_ns, create_time_ns, handler, status, flags, start_transaction_id, finish_transaction_id FROM __intrinsic_window_manager_shell_transitions',
}

# Perfetto's display_value of the args table, as SQL.
DISPLAY_VALUE = (
    "CASE value_type WHEN 'int' THEN CAST(int_value AS TEXT) WHEN 'uint' THEN "
    "CASE WHEN int_value >= 0 THEN CAST(int_value AS TEXT) ELSE "
    "CAST(((int_value >> 1) & 9223372036854775807) / 5 AS TEXT) || "
    "CAST(2 * (((int_value >> 1) & 9223372036854775807) % 5) + (int_value & 1) AS TEXT) END "
    "WHEN 'string' THEN string_value WHEN 'json' THEN string_value "
    "WHEN 'real' THEN CAST(real_value AS TEXT) WHEN 'pointer' THEN printf('0x%x', int_value) "
    "WHEN 'bool' THEN CASE WHEN int_value != 0 THEN 'true' ELSE 'false' END ELSE NULL END")


def annotated_trace():
    """Track events whose debug annotations hold every kind of value."""
    def annotation(name, field):
        return pb_bytes(4, pb_bytes(10, name) + field)
    values = [pb_int(3, 2 ** 64 - 1), pb_int(3, 5), pb_int(4, -3), pb_int(4, -2 ** 63),
              pb_double(5, 1.5), pb_double(5, 1e20), pb_double(5, 1e-7), pb_double(5, 3.0),
              pb_double(5, 0.1), pb_double(5, 123456789.123456789), pb_double(5, -2.5e-300),
              pb_double(5, float('inf')), pb_double(5, float('nan')), pb_int(7, 0x1234),
              pb_int(7, 2 ** 64 - 1), pb_int(2, 1), pb_int(2, 0), pb_bytes(6, 'text')]
    fields = b''.join(annotation('v%d' % i, v) for i, v in enumerate(values))
    return pb_packet(pb_int(8, 10), pb_int(10, 1),
                     pb_bytes(11, pb_int(9, 3) + pb_bytes(23, 'ev') + fields))


class TableViewsTest(e.TempDirTest):
    def traces(self):
        phone = os.path.join(self.dir, 'phone.pftrace')
        subprocess.run([sys.executable, os.path.join(HERE, '..', '..', 'bench', 'phone_trace.py'),
                        '1', phone], check=True, capture_output=True)
        events = [{'ph': 'X', 'pid': 1, 'tid': 2, 'ts': i * 10, 'dur': 5 if i % 3 else 0,
                   'name': 'n%d' % (i % 4), 'args': {'a': i, 'f': i * 0.25, 's': 'x%d' % i}}
                  for i in range(60)]
        events.append({'ph': 'b', 'pid': 1, 'tid': 2, 'ts': 5, 'id': 1, 'name': 'as', 'cat': 'c'})
        events.append({'ph': 'e', 'pid': 1, 'tid': 2, 'ts': 9, 'id': 1, 'name': 'as', 'cat': 'c'})
        events.append({'ph': 'C', 'pid': 1, 'ts': 3, 'name': 'ctr', 'args': {'v': 1}})
        js = e.write_temp(self.dir, 't.json', json.dumps(events))
        pb = e.write_temp(self.dir, 'a.pftrace', annotated_trace())
        return [phone, js, pb]

    def test_views_answer_as_their_sql(self):
        statements = []
        for name in sorted(SQL_DEFINITIONS):
            statements.append('create temp view "old_%s" as %s;' % (name, SQL_DEFINITIONS[name]))
        for name in sorted(SQL_DEFINITIONS):
            statements.append(
                "select '%s' as v, (select group_concat(name) from pragma_table_info('%s')) "
                "is (select group_concat(name) from pragma_table_info('old_%s')) as same_columns, "
                "(select count(*) from %s) as n, (select count(*) from old_%s) as old_n, "
                "(select count(*) from (select * from %s except select * from old_%s)) as only_new, "
                "(select count(*) from (select * from old_%s except select * from %s)) as only_old;"
                % ((name,) * 9))
        for trace in self.traces():
            out = e.query('\n'.join(statements), trace)
            checked = 0
            for block in out.strip().split('\n\n'):
                row = block.splitlines()[1]
                view, same, n, old_n, only_new, only_old = row.split(',')
                self.assertEqual((same, n, only_new, only_old), ('1', old_n, '0', '0'),
                                 '%s in %s' % (view, os.path.basename(trace)))
                checked += 1
            self.assertEqual(checked, len(SQL_DEFINITIONS))

    def test_display_value_of_every_kind(self):
        trace = self.traces()[2]
        out = e.query('select count(*) as n, sum(display_value is not (%s)) as differ '
                      'from args' % DISPLAY_VALUE, trace)
        self.assertEqual(out.splitlines()[1].split(',')[1], '0', out)
        out = e.query("select key, display_value from args where key in "
                      "('debug.v0', 'debug.v10', 'debug.v12', 'debug.v14') order by id", trace)
        self.assertEqual(out, '"key","display_value"\n"debug.v0","18446744073709551615"\n'
                         '"debug.v10","-2.5e-300"\n"debug.v12","[NULL]"\n'
                         '"debug.v14","0xffffffffffffffff"\n')

    def test_left_join_reads_the_view_as_a_table(self):
        js = self.traces()[1]
        query = ('select s.id, group_concat(a.key) as keys from slice s '
                 'left join args a using (arg_set_id) where s.name = \'n1\' group by s.id')
        plan = e.query('explain query plan ' + query, js)
        self.assertNotIn('MATERIALIZE', plan)
        self.assertNotIn('AUTOMATIC', plan)
        out = e.query(query, js).splitlines()
        self.assertEqual(len(out), 16)
        self.assertTrue(all(line.endswith('"args.a,args.f,args.s"') for line in out[1:]), out)

    def test_names_stay_taken(self):
        js = self.traces()[1]
        for sql in ('create table thread(x)', 'create view slice as select 1',
                    'create temp table args(x)'):
            rc, _, err = e.run('-Q', sql, js)
            self.assertEqual(rc, 1, sql)
            self.assertIn('already exists', err)
        rc, _, err = e.run('-Q', 'create perfetto table sched as select 1 as x', js)
        self.assertEqual(rc, 1)
        self.assertIn('table sched already exists', err)


if __name__ == '__main__':
    e.main()
