"""End-to-end: android.network_packets' uptime macros on events given
inline, with the answers Perfetto's trace processor gives."""
import weft_e2e as e

TRACE = 'packet { trusted_packet_sequence_id: 1 timestamp: 1 battery { capacity_percent: 1 } }\n'


def events(rows):
    """A subquery of events (id, ts, dur, packet_count, packet_length, p)."""
    return '(' + ' union all '.join(
        "select %d as id, %d as ts, %d as dur, %d as packet_count, %d as packet_length, "
        "'%s' as p" % row for row in rows) + ')'


# A partition 'a' with overlapping, nested and touching events, ties at one
# ts, and a partition 'b'.
ROWS = [(1, 0, 10, 1, 1, 'a'), (2, 2, 1, 1, 1, 'a'), (3, 11, 0, 1, 1, 'a'),
        (5, 30, 5, 1, 1, 'a'), (4, 30, 0, 3, 1, 'a'), (6, 50, 0, 1, 1, 'b'),
        (7, 100, 3, 7, 1, 'a'), (8, 35, 2, 1, 1, 'a'), (9, 45, 0, 1, 1, 'a')]


class AndroidNetworkTest(e.TempDirTest):
    def setUp(self):
        super().setUp()
        self.path = e.textproto_trace(self.dir, 'empty.pb', TRACE)

    def test_uptime_spans(self):
        # an event at most the timeout after the latest end keeps the span;
        # a span lasts the timeout past its latest end
        self.assertEqual(e.query(
            'INCLUDE PERFETTO MODULE android.network_packets; '
            'select * from android_network_uptime_spans!(%s, (p), 10)' % events(ROWS), self.path),
            '"p","ts","dur","packet_count","packet_length"\n'
            '"a",0,21,3,3\n"a",30,25,6,4\n"a",100,13,7,1\n"b",50,10,1,1\n')

    def test_uptime_cost(self):
        # a group (overlapping or touching events) pays its gap (at most the
        # timeout) on its first event and its length by packet share
        self.assertEqual(e.query(
            'INCLUDE PERFETTO MODULE android.network_packets; '
            'select * from android_network_uptime_cost!(%s, (p), 10)' % events(ROWS), self.path),
            '"id","uptime_cost"\n1,15\n2,5\n3,1\n5,11\n4,4\n8,1\n9,8\n7,13\n6,10\n')

    def test_packets_view_is_there(self):
        self.assertEqual(e.query(
            'INCLUDE PERFETTO MODULE android.network_packets; '
            'select count(*) as n from android_network_packets', self.path), '"n"\n0\n')


if __name__ == '__main__':
    e.main()
