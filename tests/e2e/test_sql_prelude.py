"""End-to-end: the functions and views of Perfetto's prelude (the modules
every query sees without an INCLUDE), with answers worked out by hand on
small traces."""
import weft_e2e as e

TRACE = ('[{"ph":"X","pid":1,"tid":2,"ts":1000,"dur":5,"name":"a"},'
         '{"ph":"X","pid":1,"tid":2,"ts":3000,"dur":5,"name":"b"}]')

# REALTIME (1) and MONOTONIC (3) against BOOTTIME (6, the trace clock).
CLOCKS = '''
packet { clock_snapshot {
  clocks { clock_id: 1 timestamp: 1700000000123456789 }
  clocks { clock_id: 3 timestamp: 100 }
  clocks { clock_id: 6 timestamp: 1000 } } }
packet { clock_snapshot {
  clocks { clock_id: 1 timestamp: 1700000000123457289 }
  clocks { clock_id: 3 timestamp: 2000 }
  clocks { clock_id: 6 timestamp: 2000 } } }
'''


class PreludeTest(e.TempDirTest):
    def trace(self):
        return e.write_temp(self.dir, 't.json', TRACE)

    def value(self, expr, trace=None):
        """The one value `select expr` gives, as weft prints it."""
        out = e.query('select %s as v' % expr, trace or self.trace())
        self.assertTrue(out.startswith('"v"\n'), out)
        return out[4:-1]

    def values(self, *exprs):
        sql = 'select ' + ', '.join('%s as v%d' % (x, i) for i, x in enumerate(exprs))
        line = e.query(sql, self.trace()).split('\n')[1]
        # Split on the commas between values, not those inside quotes.
        return [('"%s"' % v if q else v) for v, q in self.split_csv(line)]

    @staticmethod
    def split_csv(line):
        """(value, was quoted) for each value of a CSV line weft printed."""
        out, i = [], 0
        while i <= len(line):
            if line[i:i + 1] == '"':
                j = i + 1
                while j < len(line) and not (line[j] == '"' and line[j + 1:j + 2] != '"'):
                    j += 2 if line[j:j + 2] == '""' else 1
                out.append((line[i + 1:j], True))
                i = j + 2
            else:
                j = line.find(',', i)
                j = len(line) if j < 0 else j
                out.append((line[i:j], False))
                i = j + 1
        return out

    def error(self, expr, trace=None):
        rc, out, err = e.run('-Q', 'select %s' % expr, trace or self.trace())
        self.assertEqual(rc, 1, out)
        # The message is the last line (after a traceback, where weft gives one).
        return err.strip().split('\n')[-1].split('query failed: ', 1)[-1]


class TraceBoundsTest(PreludeTest):
    def test_bounds(self):
        # JSON microseconds: the slices span 1000us .. 3005us.
        self.assertEqual(self.values('trace_start()', 'trace_end()', 'trace_dur()'),
                         ['1000000', '3005000', '2005000'])
        self.assertIn('wrong number of arguments', self.error('trace_start(1)'))


class RegexTest(PreludeTest):
    def test_regexp_matches_anywhere(self):
        self.assertEqual(self.values("regexp('a.c', 'xxabcxx')", "regexp('A', 'abc')",
                                     "'abc' regexp 'b'", "'abc' regexp '^b'",
                                     "regexp('', 'x')", "regexp(1, '1')", "regexp('a', 5)"),
                         ['1', '0', '1', '0', '1', '1', '0'])

    def test_regexp_nulls(self):
        self.assertEqual(self.values("regexp(NULL, 'a')", "regexp('a', NULL)",
                                     "NULL regexp 'a'", "regexp('a', 'A', NULL)"),
                         ['"[NULL]"'] * 4)

    def test_regexp_flags(self):
        # i: caseless, c: case-sensitive, the last one wins; none: sensitive.
        self.assertEqual(self.values("regexp('a', 'A', 'i')", "regexp('a', 'A', 'ic')",
                                     "regexp('a', 'A', 'ci')", "regexp('a', 'A', '')"),
                         ['1', '0', '1', '0'])
        self.assertEqual(self.error("regexp('a', 'A', 'x')"), "regexp: unknown flag 'x'")
        self.assertEqual(self.error("regexp('a', 'A', 5)"), "regexp: unknown flag '5'")

    def test_re2_syntax(self):
        # RE2's: Perl classes, (?i), POSIX classes, \pL, \Q..\E, octal;
        # $ only at the very end; . not a newline; UTF-8 characters.
        self.assertEqual(self.values(
            r"regexp('\d+', 'a12')", "regexp('(?i)A', 'a')", r"regexp('\bfoo\b', 'a foo')",
            "regexp('[[:alpha:]]+', 'ab')", r"regexp('\pL', 'é')", r"regexp('\Qa.b\E', 'a.b')",
            r"regexp('\012', char(10))", "regexp('a$', 'a' || char(10))",
            "regexp('a.b', 'a' || char(10) || 'b')", "regexp('^.$', 'é')",
            "regexp('a+?', 'a')", "regexp('(?P<n>a)', 'a')", "regexp('x{,3}', 'x{,3}')"),
            ['1', '1', '1', '1', '1', '1', '1', '0', '0', '1', '1', '1', '1'])

    def test_re2_errors(self):
        cases = {
            '(': 'missing ): (',
            'ab)c': 'unexpected ): ab)c',
            '[a': 'missing ]: [a',
            '[z-a]': 'invalid character class range: z-a',
            'a**': 'bad repetition operator: **',
            'a*+': 'bad repetition operator: *+',
            'a+??': 'bad repetition operator: +??',
            '*a': 'no argument for repetition operator: *',
            'a|*': 'no argument for repetition operator: *',
            'a{2,1}': 'invalid repetition size: {2,1}',
            'x{1001}': 'invalid repetition size: {1001}',
            '\\': 'trailing \\',
            r'(a)\1': r'invalid escape sequence: \1',
            r'\Z': r'invalid escape sequence: \Z',
            r'\k<n>': r'invalid escape sequence: \k',
            'a(?=b)': 'invalid perl operator: (?=',
            'a(?<=b)': 'invalid perl operator: (?<',
            '(?>a)': 'invalid perl operator: (?>',
            '(?#c)': 'invalid perl operator: (?#',
            '(?i': 'invalid perl operator: (?i',
        }
        for pattern, message in cases.items():
            self.assertEqual(self.error("regexp('%s', 'a')" % pattern),
                             'RE2 compile error: ' + message, pattern)
        self.assertEqual(self.error("regexp_extract('a', '(')"), 'RE2 compile error: missing ): (')

    def test_regexp_extract(self):
        # The one group if it matched something, else the whole match.
        self.assertEqual(self.values(
            "regexp_extract('abc123', '[0-9]+')", "regexp_extract('abc123', '[a-z]([0-9])')",
            "regexp_extract('ab', '(x)?b')", "regexp_extract('ab', '(?:a)(b)')",
            "regexp_extract('xby', '(a)|b')", "regexp_extract(12, '2')"),
            ['"123"', '"1"', '"b"', '"b"', '"b"', '"2"'])
        self.assertEqual(self.values("regexp_extract('abc', 'x')", "regexp_extract(NULL, 'x')",
                                     "regexp_extract('a', NULL)",
                                     "regexp_extract('ab', '(a)(b)x')"), ['"[NULL]"'] * 4)
        self.assertEqual(self.error("regexp_extract('ab', '(a)(b)')"),
                         'REGEXP_EXTRACT: pattern has more than one group.')

    def test_regexp_replace_simple(self):
        self.assertEqual(self.values(
            "regexp_replace_simple('aXbXc', 'X', '-')", "regexp_replace_simple(123, '2', 'x')",
            "regexp_replace_simple('a', 'a', 5)", "regexp_replace_simple('a', 5, 'x')",
            "regexp_replace_simple('abc', 'B', 'x')"),
            ['"a-b-c"', '"1x3"', '"5"', '"a"', '"abc"'])
        # Empty matches: not right after a match; one per character.
        self.assertEqual(self.values(
            "regexp_replace_simple('abc', '', '-')", "regexp_replace_simple('aaa', 'a*', '-')",
            "regexp_replace_simple('baaac', 'a*', '-')", "regexp_replace_simple('hé', '', '-')"),
            ['"-a-b-c-"', '"-"', '"-b-c-"', '"-h-é-"'])
        # The replacement is rewritten: \N groups, \\ a backslash, any other
        # backslash ends it; a group the pattern lacks changes nothing.
        self.assertEqual(self.values(
            r"regexp_replace_simple('abc', '(b)', '[\1]')",
            r"regexp_replace_simple('abcb', 'b', '\0\0')",
            r"regexp_replace_simple('abc', 'b', '[\\]')",
            r"regexp_replace_simple('abc', 'b', '[\x]')",
            r"regexp_replace_simple('abc', 'b', 'x\')",
            r"regexp_replace_simple('abc', '(b)', '[\2]')",
            r"regexp_replace_simple('abc', '(x)?b', '[\1]')"),
            ['"a[b]c"', '"abbcbb"', '"a[\\]c"', '"a[c"', '"axc"', '"abc"', '"a[]c"'])
        self.assertEqual(self.values("regexp_replace_simple(NULL, 'X', '-')",
                                     "regexp_replace_simple('a', NULL, '-')",
                                     "regexp_replace_simple('a', 'X', NULL)"), ['"[NULL]"'] * 3)

    def test_pattern_per_row(self):
        # A pattern that changes from row to row is compiled for each.
        out = e.query("select regexp(p, 'abc') as m from (select 'a' as p union all "
                      "select 'x' union all select 'c$')", self.trace())
        self.assertEqual(out, '"m"\n1\n0\n1\n')


class TextTest(PreludeTest):
    def test_reverse(self):
        self.assertEqual(self.values("reverse('abc')", "reverse('')", "reverse(NULL)",
                                     "hex(reverse('hé'))"),
                         ['"cba"', '""', '"[NULL]"', '"A9C368"'])  # bytes, not characters
        self.assertEqual(self.error('reverse(123)'), 'REVERSE: argument should be string')
        self.assertEqual(self.error("reverse(x'61')"), 'REVERSE: argument should be string')

    def test_base64_encode(self):
        self.assertEqual(self.values("base64_encode(x'00ff10')", "base64_encode(x'61')",
                                     "base64_encode(x'6162')", "base64_encode(x'')",
                                     'base64_encode(NULL)'),
                         ['"AP8Q"', '"YQ=="', '"YWI="', '""', '"[NULL]"'])
        self.assertEqual(self.error("base64_encode('hi')"),
                         'Base64Encode only supports bytes argument')

    def test_str_split(self):
        # parts from 0; "" between two delimiters; NULL past the last part
        # or for a str that is not text
        self.assertEqual(self.values("str_split('a,b,,c', ',', 0)", "str_split('a,b,,c', ',', 2)",
                                     "str_split('a,b,,c', ',', 3)", "str_split('a,b,,c', ',', 4)",
                                     "str_split('abcbcx', 'bc', 2)", "str_split('a,', ',', 1)",
                                     "str_split(NULL, ',', 0)", "str_split(1234, '3', 0)"),
                         ['"a"', '""', '"c"', '"[NULL]"', '"x"', '""', '"[NULL]"', '"[NULL]"'])
        self.assertEqual(self.error("str_split('a', '', 0)"),
                         'str_split: delimiter must be a non-empty string')
        self.assertEqual(self.error("str_split('a', ',', -1)"),
                         'str_split: field number must be a non-negative integer')

    def test_base64_decode(self):
        self.assertEqual(self.values(
            "hex(base64_decode('AP8Q'))", "typeof(base64_decode('aGk='))",
            "hex(base64_decode('aGk'))", "hex(base64_decode(x'6147733d'))",
            "hex(base64_decode('aGk=aGk='))", "hex(base64_decode('-_8'))",
            "length(base64_decode(''))", 'base64_decode(NULL)'),
            ['"00FF10"', '"blob"', '"6869"', '"686B"', '"6869006869"', '"FBFF"', '0',
             '"[NULL]"'])
        for bad in ("'!!'", "'a'", "'aG k='"):
            self.assertEqual(self.error('base64_decode(%s)' % bad), 'BASE64: Invalid input')
        self.assertEqual(self.error('base64_decode(12)'),
                         'BASE64: argument must be string or blob')

    def test_unhex(self):
        self.assertEqual(self.values(
            "unhex('41')", "unhex('0x41')", "unhex('0X41')", "unhex(' 41' || char(10))",
            "unhex('-41')", "unhex('+41')", "unhex('0x-41')", "unhex('aBc')",
            "unhex('7fffffffffffffff')", "unhex('-8000000000000000')", 'unhex(NULL)'),
            ['65', '65', '65', '65', '-65', '65', '-65', '2748', '9223372036854775807',
             '-9223372036854775808', '"[NULL]"'])
        self.assertEqual(self.error("unhex('  ')"), 'UNHEX: input is empty or only whitespace')
        self.assertEqual(self.error("unhex('0x')"), 'UNHEX: hex string is empty after prefix')
        self.assertEqual(self.error('unhex(65)'), 'UNHEX: argument must be text')
        for bad in ('zz', 'ffffffffffffffff', '-0x41', '4 1', '--41', '0x0x41'):
            self.assertEqual(self.error("unhex('%s')" % bad),
                             'UNHEX: invalid or out of range hex string', bad)

    def test_demangle(self):
        self.assertEqual(self.values(
            "demangle('_ZN3foo3barEv')", "demangle('_ZNSt6vectorIiSaIiEE9push_backERKi')",
            "demangle('_Z1fIJidEEvDpT_')", "demangle('_ZN3FooC1Ev.cold')", "demangle('Pi')",
            "demangle('_ZTV1A')"),
            ['"foo::bar()"', '"std::vector<int, std::allocator<int> >::push_back(int const&)"',
             '"void f<int, double>(int, double)"', '"Foo::Foo() [clone .cold]"', '"int*"',
             '"vtable for A"'])
        self.assertEqual(self.values("demangle('main')", "demangle('_ZN')", "demangle('')",
                                     'demangle(NULL)'), ['"[NULL]"'] * 4)
        self.assertEqual(self.error('demangle(1)'), 'Unsupported type of arg passed to DEMANGLE')


class MathTest(PreludeTest):
    def test_ln_exp_sqrt(self):
        self.assertEqual(self.values('ln(1)', "ln('2')", 'exp(0)', 'sqrt(4)', 'sqrt(2)',
                                     'exp(1000)', 'typeof(sqrt(4))'),
                         ['0.000000', '0.693147', '1.000000', '2.000000', '1.414214', 'inf',
                          '"real"'])
        # NULL for ln of x <= 0, sqrt of a negative, non-numbers and NULL.
        self.assertEqual(self.values('ln(0)', 'ln(-1)', 'sqrt(-1)', "ln('abc')",
                                     "sqrt(x'01')", "exp('a')", 'exp(NULL)'),
                         ['"[NULL]"'] * 7)

    def test_to_timecode(self):
        self.assertEqual(self.values('to_timecode(0)', 'to_timecode(1234567890123)',
                                     'to_timecode(360000000000005)', 'to_timecode(-5)',
                                     'to_timecode(NULL)'),
                         ['"00:00:00 000 000 000"', '"00:20:34 567 890 123"',
                          '"100:00:00 000 000 005"', '"00:00:00 000 000 -05"', '"[NULL]"'])
        self.assertEqual(self.error("to_timecode('12')"),
                         'TO_TIMECODE: first argument should be timestamp')


class ClockTest(PreludeTest):
    def clock_trace(self, text=CLOCKS):
        return e.textproto_trace(self.dir, 'clocks.pb', text)

    def test_conversions(self):
        t = self.clock_trace()
        out = e.query('select to_realtime(500) a, to_realtime(1000) b, to_realtime(1500) c, '
                      'to_realtime(2500) d, to_monotonic(1500) m, to_monotonic(NULL) n', t)
        # Before the first snapshot: its value; between: the earlier one's
        # plus the time since, capped by the later one's; after: the last's.
        self.assertEqual(out, '"a","b","c","d","m","n"\n1700000000123456789,'
                              '1700000000123456789,1700000000123457289,1700000000123457789,'
                              '600,"[NULL]"\n')
        self.assertEqual(self.value('abs_time_str(1500)', t), '"2023-11-14T22:13:20.123457289"')
        self.assertEqual(self.error("to_realtime('1')", t),
                         'TO_REALTIME: first argument should be timestamp')
        self.assertEqual(self.error('to_monotonic(1.5)', t),
                         'TO_MONOTONIC: first argument should be timestamp')
        self.assertEqual(self.error("abs_time_str('1')", t),
                         'ABS_TIME_STR: first argument should be timestamp')

    def test_monotonic_capped_by_the_next_snapshot(self):
        t = self.clock_trace(CLOCKS.replace('timestamp: 2000 }\n  clocks { clock_id: 6',
                                            'timestamp: 300 }\n  clocks { clock_id: 6'))
        self.assertEqual(self.value('to_monotonic(1500)', t), '300')

    def test_no_clock(self):
        self.assertEqual(self.values('to_realtime(5)', 'to_monotonic(5)', 'abs_time_str(5)'),
                         ['"[NULL]"'] * 3)

    def test_other_machines_snapshots_left_out(self):
        # A snapshot from machine 7 (a VM) between the host's two.
        vm = ('packet { machine_id: 7 clock_snapshot { '
              'clocks { clock_id: 1 timestamp: 900000 } '
              'clocks { clock_id: 6 timestamp: 1500 } } }\n')
        t = self.clock_trace(CLOCKS + vm)
        # Only the host's snapshots: the last one's value plus the time since.
        self.assertEqual(self.value('to_realtime(1000000000)', t),
                         str(1700000000123457289 + 1000000000 - 2000))


class ExtractArgTest(PreludeTest):
    def test_types_and_errors(self):
        t = e.write_temp(self.dir, 'a.json', '[{"ph":"X","name":"a","ts":1,"dur":1,"pid":1,'
                         '"tid":2,"args":{"i":5,"s":"x","f":1.5}}]')
        out = e.query("select extract_arg(arg_set_id, 'args.i') i, extract_arg(arg_set_id, "
                      "'args.s') s, extract_arg(arg_set_id, 'args.f') f, extract_arg("
                      "arg_set_id, 'args.z') z, extract_arg(NULL, 'args.i') n, "
                      "extract_arg(NULL, 1) m from slice", t)
        self.assertEqual(out, '"i","s","f","z","n","m"\n5,"x",1.500000,"[NULL]","[NULL]",'
                              '"[NULL]"\n')
        for bad in ("'0', 'k'", "1.5, 'k'", "x'00', NULL"):
            self.assertEqual(self.error('extract_arg(%s)' % bad),
                             'EXTRACT_ARG: 1st argument should be arg set id')
        for bad in ('0, NULL', '0, 1', "0, x'61'"):
            self.assertEqual(self.error('extract_arg(%s)' % bad),
                             'EXTRACT_ARG: 2nd argument should be key')


# Tables of data weft does not import: their columns, in order, and no rows.
EMPTY_VIEWS = {
    'heap_graph': 'id ts upid dump_reason heap_size truncated',
    'heap_graph_class': 'id name deobfuscated_name location superclass_id classloader_id kind',
    'heap_graph_object': (
        'id upid graph_sample_ts self_size native_size reference_set_id reachable '
        'heap_type type_id root_type root_distance object_data_id'),
    'heap_graph_object_data': (
        'id field_set_id value_string array_element_type array_element_count '
        'array_data_id array_data_hash'),
    'heap_graph_reference': (
        'id reference_set_id owner_id owned_id field_name field_type_name '
        'deobfuscated_field_name'),
    'heap_graph_primitive': (
        'id field_set_id field_name field_type bool_value byte_value char_value '
        'short_value int_value long_value float_value double_value'),
    'heap_graph_thread_callsite': 'id heap_graph_id utid callsite_id',
    'heap_profile': 'id ts ts_end dur upid heap_name',
    'heap_profile_allocation': 'id ts upid heap_name callsite_id count size',
    'memory_snapshot': 'id timestamp track_id detail_level',
    'process_memory_snapshot': 'id snapshot_id upid',
    'memory_snapshot_node': (
        'id process_snapshot_id parent_node_id path size effective_size arg_set_id'),
    'memory_snapshot_edge': 'id source_node_id target_node_id importance',
    'stack_sample_session': 'id source timebase_unit cmdline',
    'stack_sample_async_context': 'id name kind parent_id',
    'stack_sample_task_context': 'id upid utid async_context_id',
    'stack_sample_execution_context': 'id ucpu cpu_mode',
    'stack_sample': 'id ts source task_context_id execution_context_id callsite_id session_id',
    'stack_sample_counter_track': (
        'id name type parent_id source_arg_set_id machine_id unit description '
        'session_id cpu is_timebase'),
    'stack_sample_counter': 'id stack_sample_id track_id value',
    'stack_profile_mapping': 'id build_id exact_offset start_offset start end load_bias name',
    'stack_profile_frame': 'id name mapping rel_pc symbol_set_id deobfuscated_name type',
    'stack_profile_callsite': 'id depth parent_id frame_id',
    'stack_profile_symbol': 'id symbol_set_id name source_file line_number inlined',
    'cpu_profile_stack_sample': 'id ts callsite_id utid process_priority',
    'instruments_sample': 'id ts utid callsite_id cpu',
    'perf_session': 'id perf_session_id cmdline',
    'perf_sample': 'id ts utid cpu cpu_mode callsite_id unwind_error perf_session_id',
    'perf_counter_track': (
        'id name type parent_id source_arg_set_id machine_id unit description '
        'perf_session_id cpu is_timebase'),
    'android_game_intervention_list': (
        'id package_name uid current_mode standard_mode_supported '
        'standard_mode_downscale standard_mode_use_angle standard_mode_fps '
        'perf_mode_supported perf_mode_downscale perf_mode_use_angle perf_mode_fps '
        'battery_mode_supported battery_mode_downscale battery_mode_use_angle '
        'battery_mode_fps'),
    'android_dumpstate': 'id section service line',
    'profiler_smaps': (
        'id upid ts path path_trimmed aggregate_count is_deleted size_kb '
        'private_dirty_kb swap_kb file_name start_address module_timestamp '
        'module_debugid module_debug_path protection_flags private_clean_resident_kb '
        'shared_dirty_resident_kb shared_clean_resident_kb locked_kb '
        'proportional_resident_kb rss_kb anonymous_kb pss_dirty_kb swap_pss_kb'),
    'process_memory_mappings': (
        'id upid ts path aggregate_count is_deleted size_kb rss_kb anonymous_kb '
        'swap_kb shared_clean_kb shared_dirty_kb private_clean_kb private_dirty_kb '
        'locked_kb pss_kb pss_dirty_kb swap_pss_kb'),
    'package_list': 'id package_name uid debuggable profileable_from_shell version_code',
    'vulkan_memory_allocations': (
        'id arg_set_id source operation timestamp upid device device_memory '
        'memory_type heap function_name object_handle memory_address memory_size '
        'scope'),
    'gpu_counter_group': 'id group_id track_id name description',
    'frame_slice': (
        'id ts dur track_id category name depth parent_id arg_set_id layer_name '
        'frame_number queue_to_acquire_time acquire_to_latch_time '
        'latch_to_present_time'),
    'expected_frame_timeline_slice': (
        'id ts dur track_id category name depth parent_id arg_set_id '
        'display_frame_token surface_frame_token upid layer_name'),
    'actual_frame_timeline_slice': (
        'id ts dur track_id category name depth parent_id arg_set_id '
        'display_frame_token surface_frame_token upid layer_name present_type '
        'on_time_finish gpu_composition jank_type jank_severity_type prediction_type '
        'jank_tag jank_tag_experimental jank_score latched_unsignaled_count '
        'addressable_unsignaled_latch_count latched_fence_state'),
    'surfaceflinger_layers_snapshot': (
        'id ts arg_set_id base64_proto_id sequence_id has_invalid_elapsed_ts'),
    'surfaceflinger_layer': (
        'id snapshot_id arg_set_id base64_proto_id layer_id layer_name is_visible '
        'parent corner_radius_tl corner_radius_tr corner_radius_bl corner_radius_br '
        'hwc_composition_type is_hidden_by_policy z_order_relative_of '
        'is_missing_z_parent layer_rect_id input_rect_id'),
    'surfaceflinger_transactions': 'id ts arg_set_id base64_proto_id vsync_id',
    'window_manager_shell_transitions': (
        'id ts transition_id arg_set_id transition_type send_time_ns dispatch_time_ns'
        ' duration_ns finish_time_ns shell_abort_time_ns wm_abort_time_ns '
        'merge_time_ns create_time_ns handler status flags start_transaction_id '
        'finish_transaction_id'),
    'window_manager_shell_transition_handlers': 'id handler_id handler_name base64_proto_id',
    'protolog': 'id ts level tag message stacktrace location',
}


class ViewsTest(PreludeTest):
    def columns(self, name, trace=None):
        out = e.query('select * from %s limit 0' % name, trace or self.trace())
        return out.strip().replace('"', '').replace(',', ' ')

    def test_empty_views(self):
        for name, columns in EMPTY_VIEWS.items():
            self.assertEqual(self.columns(name), columns, name)
            self.assertEqual(self.value('(select count(*) from %s)' % name), '0', name)

    def test_track_views_columns(self):
        self.assertEqual(self.columns('track'), 'id name type dimension_arg_set_id parent_id '
                         'source_arg_set_id machine_id track_group_id')
        self.assertEqual(self.columns('state_track'), 'id name parent_id type '
                         'dimension_arg_set_id source_arg_set_id machine_id')

    def test_tracks_of_two_machines(self):
        a = e.write_temp(self.dir, 'a.json', TRACE)
        b = e.write_temp(self.dir, 'b.json', TRACE.replace('"a"', '"c"'))
        out = e.query('select s.name, m.name as machine, t.track_group_id from slice s '
                      'join track t on s.track_id = t.id join machine m on t.machine_id = m.id '
                      "where s.name in ('a', 'c') order by s.name", a, b,
                      options=('--machine', a + '=ma', '--machine', b + '=mb'))
        self.assertEqual(out, '"name","machine","track_group_id"\n"a","ma","[NULL]"\n'
                              '"c","mb","[NULL]"\n')


class SliceIsAncestorTest(PreludeTest):
    def test_parent_chain(self):
        # a contains b contains c; d stands alone.
        t = e.write_temp(self.dir, 'n.json', '[' + ','.join(
            '{"ph":"X","name":"%s","ts":%d,"dur":%d,"pid":1,"tid":2}' % x
            for x in (('a', 1, 10), ('b', 2, 5), ('c', 3, 1), ('d', 20, 1))) + ']')
        out = e.query('select slice_is_ancestor(0, 2) a, slice_is_ancestor(1, 2) b, '
                      'slice_is_ancestor(2, 0) c, slice_is_ancestor(0, 0) d, '
                      'slice_is_ancestor(0, 3) e, slice_is_ancestor(NULL, 2) f, '
                      'slice_is_ancestor(0, 99) g, slice_is_ancestor(-1, 2) h', t)
        self.assertEqual(out, '"a","b","c","d","e","f","g","h"\n1,1,0,0,0,"[NULL]","[NULL]",'
                              '"[NULL]"\n')
        self.assertEqual(self.error("slice_is_ancestor('0', 2)", t),
                         'slice_is_ancestor[arg=0]: argument 0 does not have expected type: '
                         'expected LONG, actual STRING')


if __name__ == '__main__':
    e.main()
