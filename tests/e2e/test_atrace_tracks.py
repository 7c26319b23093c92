"""End-to-end: the tracks and args of atrace async slices and counters
(print events and systrace text), as Perfetto makes them."""
import weft_e2e as e

SLICES = ("select s.id, s.ts, s.dur, s.depth, s.track_id, s.name, "
          "(select group_concat(key || '=' || display_value || ':' || value_type) from args a "
          " where a.arg_set_id = s.arg_set_id) as args from slice s order by s.id")
TRACKS = ("select t.id, t.name, t.type, (select group_concat(key || '=' || display_value) "
          "from args a where a.arg_set_id = t.dimension_arg_set_id) as dims "
          "from track t order by t.id")

# S/F slices of cookies 1, then 2 and 3 overlapping; G/H slices of two
# cookies around an N instant.
COMPRESSED = (
    '# tracer: nop\n'
    '  app-10    ( 10) [000] ....  1.000001: tracing_mark_write: S|10|as|1\n'
    '  app-10    ( 10) [000] ....  1.000002: tracing_mark_write: F|10|as|1\n'
    '  app-10    ( 10) [000] ....  1.000003: tracing_mark_write: S|10|as|2\n'
    '  app-10    ( 10) [000] ....  1.000004: tracing_mark_write: S|10|as|3\n'
    '  app-10    ( 10) [000] ....  1.000005: tracing_mark_write: F|10|as|2\n'
    '  app-10    ( 10) [000] ....  1.000006: tracing_mark_write: F|10|as|3\n'
    '  app-10    ( 10) [000] ....  1.000007: tracing_mark_write: G|10|trk|a|1\n'
    '  app-10    ( 10) [000] ....  1.000008: tracing_mark_write: N|10|trk|inst\n'
    '  app-10    ( 10) [000] ....  1.000009: tracing_mark_write: G|10|trk|b|2\n'
    '  app-10    ( 10) [000] ....  1.000010: tracing_mark_write: H|10|trk|1\n'
    '  app-10    ( 10) [000] ....  1.000011: tracing_mark_write: H|10|trk|2\n'
)

# A repeated S of one cookie, an F of none, a G nested in a G of the same
# cookie (ended by another thread), a dangling H, an N and a counter.
UNNESTABLE = (
    '# tracer: nop\n'
    '  app-10    ( 10) [000] ....  1.000001: tracing_mark_write: S|10|as|1\n'
    '  app-11    ( 11) [000] ....  1.000002: tracing_mark_write: S|10|as|1\n'
    '  app-10    ( 10) [000] ....  1.000003: tracing_mark_write: F|10|as|1\n'
    '  app-10    ( 10) [000] ....  1.000004: tracing_mark_write: F|10|as|1\n'
    '  app-10    ( 10) [000] ....  1.000005: tracing_mark_write: F|10|zz|4\n'
    '  app-10    ( 10) [000] ....  1.000007: tracing_mark_write: G|10|trk|a|1\n'
    '  app-11    ( 11) [000] ....  1.000008: tracing_mark_write: G|10|trk|b|1\n'
    '  app-10    ( 10) [000] ....  1.000009: tracing_mark_write: H|10|trk|1\n'
    '  app-11    ( 11) [000] ....  1.000010: tracing_mark_write: H|10|trk|1\n'
    '  app-11    ( 11) [000] ....  1.000011: tracing_mark_write: H|10|trk|1\n'
    '  app-11    ( 11) [000] ....  1.000012: tracing_mark_write: N|10|trk|i2\n'
    '  app-11    ( 11) [000] ....  1.000013: tracing_mark_write: C|10|ctr|5\n'
)


class AtraceTracksTest(e.TempDirTest):
    def query(self, sql, path):
        rc, out, err = e.run('-Q', sql, path)
        self.assertEqual(rc, 0, err)
        return out

    def test_async_slices_share_compressed_tracks(self):
        p = e.write_temp(self.dir, 'trace.systrace', COMPRESSED)
        self.assertEqual(self.query(TRACKS, p), (
            '"id","name","type","dims"\n'
            '0,"as","atrace_async_slice","upid=1,name=as,track_compressor_idx=0"\n'
            '1,"as","atrace_async_slice","upid=1,name=as,track_compressor_idx=1"\n'
            '2,"trk","atrace_async_slice_for_track","upid=1,name=trk,track_compressor_idx=0"\n'
            '3,"trk","atrace_async_slice_for_track","upid=1,name=trk,track_compressor_idx=1"\n'
            '4,"trk","atrace_async_slice_for_track","upid=1,name=trk,track_compressor_idx=2"\n'))
        self.assertEqual(self.query(SLICES, p), (
            '"id","ts","dur","depth","track_id","name","args"\n'
            '0,1000000999,1001,0,0,"as","cookie=1:int,legacy_unnestable_begin_count=1:int,'
            'legacy_unnestable_last_begin_ts=1000000999:int"\n'
            '1,1000003000,2000,0,0,"as","cookie=2:int,legacy_unnestable_begin_count=2:int,'
            'legacy_unnestable_last_begin_ts=1000003000:int"\n'
            '2,1000003999,2001,0,1,"as","cookie=3:int,legacy_unnestable_begin_count=1:int,'
            'legacy_unnestable_last_begin_ts=1000003999:int"\n'
            '3,1000007000,3000,0,2,"a","utid=1:uint,end_utid=1:uint"\n'
            '4,1000008000,0,0,3,"inst","utid=1:uint"\n'
            '5,1000008999,2001,0,4,"b","utid=1:uint,end_utid=1:uint"\n'))

    def test_unnestable_begins_and_thread_args(self):
        p = e.write_temp(self.dir, 'trace.systrace', UNNESTABLE)
        self.assertEqual(self.query(SLICES, p), (
            '"id","ts","dur","depth","track_id","name","args"\n'
            '0,1000000999,2001,0,0,"as","cookie=1:int,legacy_unnestable_begin_count=2:int,'
            'legacy_unnestable_last_begin_ts=1000002000:int"\n'
            '1,1000007000,3000,0,2,"a","utid=1:uint,end_utid=2:uint"\n'
            '2,1000008000,999,1,2,"b","utid=2:uint,end_utid=1:uint"\n'
            '3,1000011999,0,0,3,"i2","utid=2:uint"\n'))
        self.assertEqual(self.query(TRACKS, p).splitlines()[-1],
                         '4,"ctr","atrace_counter","upid=1,name=ctr"')
        out = self.query("select ts, track_id, value, (select group_concat(key || '=' || "
                         "display_value) from args a where a.arg_set_id = c.arg_set_id) as args "
                         "from counter c", p)
        self.assertEqual(out, '"ts","track_id","value","args"\n1000013000,4,5.000000,"utid=2"\n')


if __name__ == '__main__':
    e.main()
