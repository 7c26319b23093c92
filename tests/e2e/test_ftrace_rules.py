"""End-to-end: Perfetto's rules for kernel events, in proto ftrace bundles
(FtraceEventBundle) and in systrace/ftrace text."""
import weft_e2e as e
from weft_e2e import pb_bytes, pb_int, pb_packet


def ftrace_event(ts, pid, number, *fields):
    """One FtraceEvent: timestamp, pid and the event message `number`."""
    return pb_bytes(2, pb_int(1, ts) + pb_int(2, pid) +
                    pb_bytes(number, b''.join(fields)))


def bundle(cpu, *events, machine=None):
    """A TracePacket (trusted sequence 1) holding an FtraceEventBundle."""
    extra = pb_int(98, machine) if machine is not None else b''
    return pb_packet(pb_bytes(1, pb_int(1, cpu) + b''.join(events)),
                     pb_int(10, 1), extra)


BLOCK_RQ_ISSUE, BLOCK_RQ_COMPLETE = 45, 125
OOM_SCORE_ADJ_UPDATE, MARK_VICTIM = 326, 334


class FtraceRulesTest(e.TempDirTest):
    def query(self, sql, path):
        rc, out, err = e.run('-Q', sql, path)
        self.assertEqual(rc, 0, err)
        return out

    def test_every_described_event_gets_a_raw_row(self):
        trace = bundle(
            0,
            ftrace_event(1000, 10, BLOCK_RQ_ISSUE, pb_int(1, 8), pb_int(2, 12345),
                         pb_int(3, 8), pb_int(4, 4096), pb_bytes(5, 'WS')),
            ftrace_event(2000, 10, BLOCK_RQ_COMPLETE, pb_int(1, 8), pb_int(2, 12345),
                         pb_int(4, (1 << 64) - 5)),
            ftrace_event(3000, 10, 9999, pb_int(1, 1)))  # not an ftrace event
        p = e.write_temp(self.dir, 'trace.pb', trace)
        out = self.query("select f.ts, f.name, a.key, a.value_type, a.display_value "
                         "from ftrace_event f join args a using (arg_set_id) "
                         "order by f.ts, a.id", p)
        self.assertEqual(out, '"ts","name","key","value_type","display_value"\n'
                         '1000,"block_rq_issue","dev","uint","8"\n'
                         '1000,"block_rq_issue","sector","uint","12345"\n'
                         '1000,"block_rq_issue","nr_sector","uint","8"\n'
                         '1000,"block_rq_issue","bytes","uint","4096"\n'
                         '1000,"block_rq_issue","rwbs","string","WS"\n'
                         '2000,"block_rq_complete","dev","uint","8"\n'
                         '2000,"block_rq_complete","sector","uint","12345"\n'
                         '2000,"block_rq_complete","errors","int","-5"\n')
        self.assertEqual(self.query('select count(*) from slice', p), '"count(*)"\n0\n')


if __name__ == '__main__':
    e.main()
