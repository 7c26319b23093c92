"""End-to-end: thread descriptors in proto traces (TrackDescriptor.thread
with its ChromeThreadDescriptor, the legacy thread_descriptor packet):
thread names from thread_name and Chrome thread types, and legacy
descriptors on a sequence without valid incremental state."""

import weft_e2e as e


def track(seq, ts, uuid, thread, chrome=''):
    return ('packet { trusted_packet_sequence_id: %d timestamp: %d '
            'track_descriptor { uuid: %d thread { %s } %s } }\n'
            % (seq, ts, uuid, thread, chrome))


class ProtoThreadDescriptorTest(e.TempDirTest):
    def threads(self, text, sql='select tid, name from thread where tid > 10 order by tid'):
        path = e.textproto_trace(self.dir, 'threads.pb', text)
        return e.query(sql, path).splitlines()[1:]

    def test_chrome_thread_type_names(self):
        text = (track(1, 0, 1, 'pid: 10 tid: 11', 'chrome_thread { thread_type: 4 }') +
                track(1, 0, 2, 'pid: 10 tid: 12', 'chrome_thread { thread_type: 42 }') +
                track(1, 0, 3, 'pid: 10 tid: 13', 'chrome_thread { thread_type: 51 }') +
                track(1, 0, 4, 'pid: 10 tid: 14', 'chrome_thread { thread_type: 15 }') +
                track(1, 0, 5, 'pid: 10 tid: 15 chrome_thread_type: CHROME_THREAD_COMPOSITOR'))
        self.assertEqual(self.threads(text), [
            '11,"ThreadPoolForegroundWorker&"', '12,"VSyncThread"',
            '13,"StackSamplingProfiler"', '14,"CrBrowserMain"', '15,"Compositor"'])

    def test_thread_name_ranks_above_type(self):
        text = (
            # thread_name wins over the type in the same descriptor
            track(1, 0, 1, 'pid: 10 tid: 11 thread_name: "x"', 'chrome_thread { thread_type: 2 }') +
            # a type given later does not replace a descriptor name
            track(1, 0, 2, 'pid: 10 tid: 12 thread_name: "named"') +
            track(1, 1, 2, 'pid: 10 tid: 12', 'chrome_thread { thread_type: 1 }') +
            # a descriptor name replaces a type name, a new type does not
            track(1, 0, 3, 'pid: 10 tid: 13', 'chrome_thread { thread_type: 1 }') +
            track(1, 1, 3, 'pid: 10 tid: 13 thread_name: "later"') +
            track(1, 2, 3, 'pid: 10 tid: 13', 'chrome_thread { thread_type: 2 }') +
            # an empty thread_name names nothing: the legacy type does
            track(1, 0, 4, 'pid: 10 tid: 14 thread_name: "" chrome_thread_type: CHROME_THREAD_MAIN') +
            track(1, 0, 5, 'pid: 10 tid: 15 thread_name: ""'))
        self.assertEqual(self.threads(text), [
            '11,"x"', '12,"named"', '13,"later"', '14,"CrProcessMain"', '15,"[NULL]"'])

    def test_legacy_descriptor_needs_valid_state(self):
        def legacy(seq, tid, extra, cleared):
            flag = 'incremental_state_cleared: true ' if cleared else ''
            return ('packet { trusted_packet_sequence_id: %d timestamp: 0 %s'
                    'thread_descriptor { pid: 10 tid: %d %s } }\n'
                    'packet { trusted_packet_sequence_id: %d timestamp: 5 '
                    'track_event { type: TYPE_INSTANT name: "e" } }\n'
                    % (seq, flag, tid, extra, seq))
        text = (legacy(1, 11, 'chrome_thread_type: CHROME_THREAD_IO', False) +
                legacy(2, 12, 'thread_name: "t12"', False) +
                legacy(3, 13, 'chrome_thread_type: CHROME_THREAD_IO', True) +
                legacy(4, 14, 'thread_name: ""', True))
        self.assertEqual(self.threads(text), ['13,"ChromeIOThread"', '14,"[NULL]"'])
        stat = self.threads(text, "select value from stats where name = "
                            "'thread_descriptor_skipped_incremental_state_invalid'")
        self.assertEqual(stat, ['2'])


if __name__ == '__main__':
    e.main()
