"""End-to-end: what the tracing service writes into a proto trace (service
events, triggers, trace config, system info, UI state) as metadata and
stats."""
import unittest

import weft_e2e as e
from weft_e2e import pb_bytes, pb_int, pb_packet


def packet(ts, field, payload):
    return pb_packet(pb_int(8, ts), pb_int(10, 1), pb_bytes(field, payload))


def service_event(ts, body):
    return packet(ts, 69, body)


def trigger(ts, name, clone=False):
    return packet(ts, 113 if clone else 46, pb_bytes(1, name) + pb_bytes(2, 'producer'))


# The reference's trace_config_pbtxt for the config of
# test_system_data_source_configs_in_the_text.
SYSTEM_CONFIG_TEXT = (
    '"str_value"\n'
    '"data_sources {\n'
    '  config {\n'
    '    name: "linux.ftrace"\n'
    '    ftrace_config {\n'
    '      ftrace_events: "sched/sched_switch"\n'
    '      ftrace_events: "power/cpu_frequency"\n'
    '      atrace_categories: "gfx"\n'
    '      atrace_apps: "com.example"\n'
    '      buffer_size_kb: 65536\n'
    '      compact_sched {\n'
    '        enabled: true\n'
    '      }\n'
    '      symbolize_ksyms: true\n'
    '      ksyms_mem_policy: KSYMS_RETAIN\n'
    '      throttle_rss_stat: true\n'
    '      print_filter {\n'
    '        rules {\n'
    '          prefix: "B|"\n'
    '          allow: false\n'
    '        }\n'
    '      }\n'
    '    }\n'
    '  }\n'
    '}\n'
    'data_sources {\n'
    '  config {\n'
    '    name: "linux.process_stats"\n'
    '    process_stats_config {\n'
    '      quirks: DISABLE_INITIAL_DUMP\n'
    '      scan_all_processes_on_start: true\n'
    '      record_thread_names: true\n'
    '      proc_stats_poll_ms: 1000\n'
    '      scan_smaps_rollup: true\n'
    '    }\n'
    '  }\n'
    '}\n'
    'data_sources {\n'
    '  config {\n'
    '    name: "linux.sys_stats"\n'
    '    sys_stats_config {\n'
    '      meminfo_period_ms: 1000\n'
    '      meminfo_counters: MEMINFO_MEM_TOTAL\n'
    '      meminfo_counters: MEMINFO_MEM_AVAILABLE\n'
    '      vmstat_period_ms: 1000\n'
    '      vmstat_counters: VMSTAT_PGMAJFAULT\n'
    '      stat_period_ms: 1000\n'
    '      stat_counters: STAT_CPU_TIMES\n'
    '      stat_counters: STAT_FORK_COUNT\n'
    '      psi_period_ms: 100\n'
    '    }\n'
    '  }\n'
    '}\n'
    'data_sources {\n'
    '  config {\n'
    '    name: "android.power"\n'
    '    android_power_config {\n'
    '      battery_poll_ms: 250\n'
    '      battery_counters: BATTERY_COUNTER_CHARGE\n'
    '      battery_counters: BATTERY_COUNTER_CURRENT\n'
    '      collect_power_rails: true\n'
    '    }\n'
    '  }\n'
    '}\n'
    'data_sources {\n'
    '  config {\n'
    '    name: "android.log"\n'
    '    android_log_config {\n'
    '      log_ids: LID_DEFAULT\n'
    '      log_ids: LID_SYSTEM\n'
    '      min_prio: PRIO_INFO\n'
    '      filter_tags: "ActivityManager"\n'
    '      filter_tags: "it\\\'s\\\\tab"\n'
    '    }\n'
    '  }\n'
    '}\n'
    'data_sources {\n'
    '  config {\n'
    '    name: "android.packages_list"\n'
    '    packages_list_config {\n'
    '      package_name_filter: "com.example"\n'
    '    }\n'
    '  }\n'
    '}"\n')

# The reference's trace_config_pbtxt for the config of
# test_profiler_data_source_configs_in_the_text.
PROFILER_CONFIG_TEXT = (
    '"str_value"\n'
    '"data_sources {\n'
    '  config {\n'
    '    name: "android.heapprofd"\n'
    '    heapprofd_config {\n'
    '      sampling_interval_bytes: 4096\n'
    '      process_cmdline: "com.example"\n'
    '      continuous_dump_config {\n'
    '        dump_phase_ms: 1000\n'
    '        dump_interval_ms: 2000\n'
    '      }\n'
    '      no_startup: true\n'
    '    }\n'
    '  }\n'
    '}\n'
    'data_sources {\n'
    '  config {\n'
    '    name: "linux.perf"\n'
    '    perf_event_config {\n'
    '      all_cpus: true\n'
    '      timebase {\n'
    '        period: 1\n'
    '        frequency: 100\n'
    '      }\n'
    '      callstack_sampling {\n'
    '        scope {\n'
    '          target_cmdline: "surfaceflinger"\n'
    '          target_pid: 42\n'
    '        }\n'
    '        kernel_frames: true\n'
    '        user_frames: UNWIND_DWARF\n'
    '      }\n'
    '      kernel_frames: true\n'
    '    }\n'
    '  }\n'
    '}\n'
    'data_sources {\n'
    '  config {\n'
    '    name: "android.java_hprof"\n'
    '    java_hprof_config {\n'
    '      process_cmdline: "com.example"\n'
    '      target_installed_by: "\\b\\000\\020\\270\\027"\n'
    '      dump_smaps: true\n'
    '    }\n'
    '  }\n'
    '}"\n')


class ProtoServiceTest(e.TempDirTest):
    def query(self, data, sql):
        path = e.write_temp(self.dir, 'service.pb', data)
        rc, out, err = e.run('-Q', sql, path)
        self.assertEqual(rc, 0, err)
        return out

    def metadata(self, data, name):
        return self.query(data, 'select key_type, int_value, str_value, machine_id, trace_id '
                          f"from metadata where name = '{name}' order by id")

    def test_slow_starting_data_sources(self):
        sources = (pb_bytes(1, pb_bytes(1, 'producer2') + pb_bytes(2, 'track_event')) +
                   pb_bytes(1, pb_bytes(1, 'producer3') + pb_bytes(2, 'linux.ftrace')))
        data = service_event(100, pb_bytes(7, sources))
        self.assertEqual(self.metadata(data, 'slow_start_data_source'),
                         '"key_type","int_value","str_value","machine_id","trace_id"\n'
                         '"multi","[NULL]","producer2 track_event",0,0\n'
                         '"multi","[NULL]","producer3 linux.ftrace",0,0\n')

    def test_clone_stats(self):
        data = (service_event(100, pb_int(10, 1)) + service_event(200, pb_int(11, 2)) +
                trigger(50, 'snap', clone=True))
        out = self.query(data, "select name, idx, value from stats where name glob 'traced_*clone*' "
                         'order by name')
        self.assertEqual(out, '"name","idx","value"\n'
                         '"traced_buf_clone_done_timestamp_ns",2,200\n'
                         '"traced_clone_started_timestamp_ns","[NULL]",100\n'
                         '"traced_clone_trigger_timestamp_ns","[NULL]",50\n')

    def test_trace_trigger_is_the_first_trigger_or_a_clone_trigger(self):
        later_first_in_file = trigger(200, 'late') + trigger(100, 'early')
        self.assertEqual(self.metadata(later_first_in_file, 'trace_trigger'),
                         '"key_type","int_value","str_value","machine_id","trace_id"\n'
                         '"single","[NULL]","early","[NULL]",0\n')
        clone_after = trigger(100, 'plain') + trigger(200, 'snap', clone=True)
        self.assertEqual(self.metadata(clone_after, 'trace_trigger').splitlines()[1],
                         '"single","[NULL]","snap","[NULL]",0')

    def test_trace_config_metadata(self):
        statsd = pb_int(1, 11) + pb_int(2, 22) + pb_int(3, 33) + pb_int(4, 44)
        config = pb_int(3, 5000) + pb_bytes(22, 'my_session') + pb_bytes(7, statsd)
        data = packet(10, 33, config)
        self.assertEqual(self.metadata(data, 'unique_session_name').splitlines()[1],
                         '"single","[NULL]","my_session","[NULL]",0')
        self.assertEqual(self.metadata(data, 'statsd_triggering_subscription_id').splitlines()[1],
                         '"single",44,"[NULL]","[NULL]",0')

    def test_write_into_file_warnings(self):
        # write_into_file without flush_period_ms, and a DISCARD buffer (the
        # second): Perfetto's two config warnings
        buffers = pb_bytes(1, pb_int(1, 1024) + pb_int(4, 1)) + \
            pb_bytes(1, pb_int(1, 64) + pb_int(4, 2))
        out = self.query(packet(10, 33, buffers + pb_int(8, 1)),
                         "select name, idx, value from stats where name glob "
                         "'config_write_into_file*' and value > 0 order by name, idx")
        self.assertEqual(out.splitlines()[1:], ['"config_write_into_file_discard",1,1',
                                                '"config_write_into_file_no_flush","[NULL]",1'])
        flushed = self.query(packet(10, 33, buffers + pb_int(8, 1) + pb_int(13, 1000)),
                             "select name from stats where name glob "
                             "'config_write_into_file*' and value > 0")
        self.assertEqual(flushed.splitlines()[1:], ['"config_write_into_file_discard"'])
        not_to_file = self.query(packet(10, 33, buffers),
                                 "select count(*) from stats where name glob "
                                 "'config_write_into_file*' and value > 0")
        self.assertEqual(not_to_file.splitlines()[1], '0')

    def test_trace_config_text(self):
        trigger = pb_bytes(1, 'trig') + pb_bytes(2, 're.*') + e.pb_double(5, 0.1)
        config = (pb_bytes(17, pb_int(1, 4) + pb_bytes(2, trigger) + pb_int(3, 2000)) +
                  pb_bytes(18, 'a1') + pb_int(24, 1) + pb_bytes(33, pb_bytes(1, b'\x01\xff')) +
                  pb_int(42, 1) + pb_int(5, 7) + pb_bytes(1, pb_int(1, 10) + pb_int(4, 9)))
        out = self.query(packet(10, 33, config),
                         "select str_value from metadata where name = 'trace_config_pbtxt'")
        # doubles as %f; bytes C-escaped; an enum value outside its enum,
        # like a field not in the schema, prints under its number
        self.assertEqual(out, '"str_value"\n"trigger_config {\n  trigger_mode: CLONE_SNAPSHOT\n'
                         '  triggers {\n    name: "trig"\n    producer_name_regex: "re.*"\n'
                         '    skip_probability: 0.100000\n  }\n  trigger_timeout_ms: 2000\n}\n'
                         'activate_triggers: "a1"\ncompression_type: COMPRESSION_TYPE_DEFLATE\n'
                         'trace_filter {\n  bytecode: "\\001\\377"\n}\n42: 1\n5: 7\n'
                         'buffers {\n  size_kb: 10\n  4: 9\n}"\n')

    def test_chrome_data_source_configs_in_the_text(self):
        # A data source config's chrome_config (101) and track_event_config
        # (113) print by name, in the order they come, as Chrome writes them.
        track_event = (pb_bytes(1, '*') + pb_bytes(2, 'toplevel') + pb_bytes(2, 'cc') +
                       pb_int(6, 1000) + pb_int(7, 0) + pb_int(8, 1) + pb_int(9, 0) +
                       pb_int(10, 500))
        chrome = pb_bytes(1, '{"a":1}') + pb_int(2, 0) + pb_int(4, 2) + pb_int(6, 0)
        source = pb_bytes(1, pb_bytes(1, 'track_event') + pb_bytes(113, track_event) +
                          pb_bytes(101, chrome))
        out = self.query(packet(10, 33, pb_bytes(2, source)),
                         "select str_value from metadata where name = 'trace_config_pbtxt'")
        self.assertEqual(out, '"str_value"\n"data_sources {\n  config {\n'
                         '    name: "track_event"\n    track_event_config {\n'
                         '      disabled_categories: "*"\n      enabled_categories: "toplevel"\n'
                         '      enabled_categories: "cc"\n      timestamp_unit_multiplier: 1000\n'
                         '      filter_debug_annotations: false\n'
                         '      enable_thread_time_sampling: true\n'
                         '      filter_dynamic_event_names: false\n'
                         '      thread_time_subsampling_ns: 500\n    }\n    chrome_config {\n'
                         '      trace_config: "{\\"a\\":1}"\n      privacy_filtering_enabled: false\n'
                         '      client_priority: USER_INITIATED\n'
                         '      event_package_name_filter_enabled: false\n    }\n  }\n}"\n')

    def test_system_data_source_configs_in_the_text(self):
        # An Android system trace's data sources, each config by name with
        # its enums; the expected text is the reference's on the same bytes.
        def ds(name, field, body):
            return pb_bytes(2, pb_bytes(1, pb_bytes(1, name) + pb_bytes(field, body)))
        ftrace = (pb_bytes(1, 'sched/sched_switch') + pb_bytes(1, 'power/cpu_frequency') +
                  pb_bytes(2, 'gfx') + pb_bytes(3, 'com.example') + pb_int(10, 65536) +
                  pb_bytes(12, pb_int(1, 1)) + pb_int(13, 1) + pb_int(17, 2) + pb_int(15, 1) +
                  pb_bytes(22, pb_bytes(1, pb_bytes(1, 'B|') + pb_int(2, 0))))
        process = pb_int(1, 1) + pb_int(2, 1) + pb_int(3, 1) + pb_int(4, 1000) + pb_int(10, 1)
        sysstats = (pb_int(1, 1000) + pb_int(2, 1) + pb_int(2, 3) + pb_int(3, 1000) +
                    pb_int(4, 50) + pb_int(5, 1000) + pb_int(6, 1) + pb_int(6, 4) +
                    pb_int(11, 100))
        power = pb_int(1, 250) + pb_int(2, 1) + pb_int(2, 3) + pb_int(3, 1)
        log = (pb_int(1, 0) + pb_int(1, 3) + pb_int(3, 4) + pb_bytes(4, 'ActivityManager') +
               pb_bytes(4, "it's\\tab"))
        config = (ds('linux.ftrace', 100, ftrace) + ds('linux.process_stats', 103, process) +
                  ds('linux.sys_stats', 104, sysstats) + ds('android.power', 106, power) +
                  ds('android.log', 107, log) +
                  ds('android.packages_list', 109, pb_bytes(1, 'com.example')))
        out = self.query(packet(10, 33, config),
                         "select str_value from metadata where name = 'trace_config_pbtxt'")
        self.assertEqual(out, SYSTEM_CONFIG_TEXT)

    def test_profiler_data_source_configs_in_the_text(self):
        # heapprofd, perf_event (nested timebase, callstack scope, an enum)
        # and java_hprof configs; the expected text is the reference's.
        def ds(name, field, body):
            return pb_bytes(2, pb_bytes(1, pb_bytes(1, name) + pb_bytes(field, body)))
        heap = (pb_int(1, 4096) + pb_bytes(2, 'com.example') +
                pb_bytes(6, pb_int(5, 1000) + pb_int(6, 2000)) + pb_int(10, 1))
        scope = pb_bytes(2, 'surfaceflinger') + pb_int(1, 42)
        perf = (pb_int(1, 1) + pb_bytes(15, pb_int(1, 1) + pb_int(2, 100)) +
                pb_bytes(16, pb_bytes(1, scope) + pb_int(2, 1) + pb_int(3, 2)) + pb_int(12, 1))
        hprof = (pb_bytes(1, 'com.example') + pb_bytes(7, pb_int(1, 0) + pb_int(2, 3000)) +
                 pb_int(5, 1))
        config = (ds('android.heapprofd', 105, heap) + ds('linux.perf', 111, perf) +
                  ds('android.java_hprof', 110, hprof))
        out = self.query(packet(10, 33, config),
                         "select str_value from metadata where name = 'trace_config_pbtxt'")
        self.assertEqual(out, PROFILER_CONFIG_TEXT)

    def test_newer_data_source_configs_in_the_text(self):
        # data source configs past 120 and a few older ones; the expected
        # text is the reference's
        def ds(name, field, body):
            return pb_bytes(2, pb_bytes(1, pb_bytes(1, name) + pb_bytes(field, body)))
        rules = pb_int(1, 2) + pb_bytes(2, 'com.a') + pb_int(4, 1)
        config = (ds('android.input.inputevent', 128,
                     pb_int(1, 1) + pb_bytes(2, rules) + pb_int(3, 1)) +
                  ds('linux.inode_file_map', 102, pb_int(1, 5) + pb_bytes(5, '/data')) +
                  ds('org.chromium.v8', 127, pb_int(1, 1)) + ds('qnx', 150, pb_int(1, 3)) +
                  ds('android.kernel_wakelocks', 132, pb_int(1, 250)))
        out = self.query(packet(10, 33, config),
                         "select str_value from metadata where name = 'trace_config_pbtxt'")
        blocks = [('android.input.inputevent', 'android_input_event_config',
                   ['mode: TRACE_MODE_USE_RULES', 'rules {',
                    '  trace_level: TRACE_LEVEL_COMPLETE', '  match_all_packages: "com.a"',
                    '  match_secure: true', '}', 'trace_dispatcher_input_events: true']),
                  ('linux.inode_file_map', 'inode_file_config',
                   ['scan_interval_ms: 5', 'scan_mount_points: "/data"']),
                  ('org.chromium.v8', 'v8_config', ['log_script_sources: true']),
                  ('qnx', 'qnx_config', ['qnx_kernel_buffers: 3']),
                  ('android.kernel_wakelocks', 'kernel_wakelocks_config', ['poll_ms: 250'])]
        text = '\n'.join('data_sources {\n  config {\n    name: "%s"\n    %s {\n%s\n    }\n'
                         '  }\n}' % (n, f, '\n'.join('      ' + l for l in body))
                         for n, f, body in blocks)
        self.assertEqual(out, '"str_value"\n"%s"\n' % text)

    def test_tracing_service_version(self):
        data = packet(10, 45, pb_bytes(4, 'Perfetto v50.1') + pb_int(7, 60))
        self.assertEqual(self.metadata(data, 'tracing_service_version').splitlines()[1],
                         '"single","[NULL]","Perfetto v50.1",0,"[NULL]"')

    def test_final_flush_outcome_counts_each_trace_stats(self):
        # TraceStats.final_flush_outcome (15): 2 = failed, once per packet
        stats = packet(10, 35, pb_int(15, 2)) + packet(20, 35, pb_int(15, 2))
        self.assertEqual(self.query(stats, "select value from stats "
                                    "where name = 'traced_final_flush_failed'"),
                         '"value"\n2\n')

    def test_ui_state_in_base64(self):
        data = packet(10, 78, b'\x00\x01hello')
        self.assertEqual(self.metadata(data, 'ui_state').splitlines()[1],
                         '"single","[NULL]","AAFoZWxsbw==","[NULL]",0')


if __name__ == '__main__':
    e.main()
