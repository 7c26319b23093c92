"""End-to-end: process descriptors in proto traces (TrackDescriptor.process
with its ChromeProcessDescriptor, the legacy process_descriptor packet):
process names, Chrome process types, labels and args."""
import unittest

import weft_e2e as e
from weft_e2e import pb_bytes, pb_int, pb_packet


def process(pid, name=None, legacy_type=None, labels=(), start=None):
    body = pb_int(1, pid)
    if legacy_type is not None:
        body += pb_int(4, legacy_type)
    if name is not None:
        body += pb_bytes(6, name)
    if start is not None:
        body += pb_int(7, start)
    for label in labels:
        body += pb_bytes(8, label)
    return body


def chrome(ptype, host_app=None, crash_id=None):
    body = pb_int(1, ptype)
    if host_app is not None:
        body += pb_bytes(4, host_app)
    if crash_id is not None:
        body += pb_int(5, crash_id)
    return body


def track(ts, uuid, proc, chrome_proc=None):
    """A TrackDescriptor packet for a process track."""
    desc = pb_int(1, uuid) + pb_bytes(3, proc)
    if chrome_proc is not None:
        desc += pb_bytes(6, chrome_proc)
    return pb_packet(pb_int(8, ts), pb_bytes(60, desc), pb_int(10, 1))


def tree(ts, pid, cmdline, is_kthread=None):
    proc = pb_int(1, pid) + pb_int(2, 1) + pb_bytes(3, cmdline)
    if is_kthread is not None:
        proc += pb_int(8, is_kthread)
    return pb_packet(pb_int(8, ts), pb_bytes(2, pb_bytes(1, proc)), pb_int(10, 2))


class ProtoProcessDescriptorTest(e.TempDirTest):
    def query(self, data, sql):
        path = e.write_temp(self.dir, 'desc.pb', data)
        rc, out, err = e.run('-Q', sql, path)
        self.assertEqual(rc, 0, err)
        return out

    def names(self, data):
        out = self.query(data, 'select pid, name from process where pid >= 100 order by pid')
        return out.splitlines()[1:]

    def test_chrome_process_type_names(self):
        data = (track(10, 1, process(100), chrome(1)) +
                track(11, 2, process(101), chrome(5)) +       # no display name
                track(12, 3, process(102), chrome(42)) +
                track(13, 4, process(103), chrome(43)) +      # beyond the enum
                track(14, 5, process(104), chrome(40)) +
                track(15, 6, process(105, legacy_type=6)))    # legacy field
        self.assertEqual(self.names(data), [
            '100,"Browser"', '101,"PROCESS_SANDBOX_HELPER"',
            '102,"PROCESS_RENDERER_TOP_WEBUI"', '103,"[NULL]"',
            '104,"Extension Renderer"', '105,"Gpu"'])
        out = self.query(data, "select p.pid, a.value_type, a.display_value from process p "
                         "join args a using(arg_set_id) where a.key = 'chrome.process_type' "
                         "order by p.pid")
        # the legacy field names the process but adds no arg
        self.assertEqual(out, '"pid","value_type","display_value"\n'
                         '100,"string","Browser"\n101,"string","PROCESS_SANDBOX_HELPER"\n'
                         '102,"string","PROCESS_RENDERER_TOP_WEBUI"\n103,"string","[NULL]"\n'
                         '104,"string","Extension Renderer"\n')

    def test_name_ranks(self):
        data = (track(10, 1, process(100, 'nm'), chrome(1)) +     # name beats a type
                track(11, 2, process(101, 'nm'), chrome(2)) +     # a renderer beats a name
                track(12, 3, process(102), chrome(1)) +
                track(13, 3, process(102), chrome(3)) +           # a type replaces a type
                track(14, 4, process(103), chrome(2)) +
                track(15, 4, process(103, 'later')) +             # a renderer stays
                track(16, 5, process(104, 'x')) +
                track(17, 5, process(104, 'y')) +                 # a name replaces a name
                track(18, 6, process(105, ''), chrome(3)) +       # empty: no name
                track(19, 7, process(106, 'nm', legacy_type=2)) +
                tree(5, 107, 'from_tree') +                       # a system name stays
                track(20, 8, process(107, 'desc'), chrome(2)) +
                track(21, 9, process(108), chrome(1)) +
                tree(30, 108, 'tree_later'))
        self.assertEqual(self.names(data), [
            '100,"nm"', '101,"Renderer"', '102,"Utility"', '103,"Renderer"', '104,"y"',
            '105,"Utility"', '106,"Renderer"', '107,"from_tree"', '108,"tree_later"'])

    def test_labels_and_chrome_args_accumulate(self):
        data = (tree(5, 100, 'proc', is_kthread=0) +
                track(10, 1, process(100, labels=['a']), chrome(2, host_app='pkg')) +
                track(20, 1, process(100, labels=['b', 'c']), chrome(3, crash_id=12345678901)) +
                track(30, 2, process(101, legacy_type=1, labels=['L'], start=77)) +
                tree(5, 102, 'plain') + tree(6, 103, 'kernel', is_kthread=1))
        out = self.query(data, 'select p.pid, p.start_ts, a.key, a.value_type, a.display_value '
                         'from process p left join args a using(arg_set_id) '
                         'where p.pid >= 100 order by p.pid, a.id')
        # a key given again keeps its place with the new value; the Chrome
        # args join the process tree's; is_kthread only when given; one
        # arg set per process
        self.assertEqual(out, '"pid","start_ts","key","value_type","display_value"\n'
                         '100,"[NULL]","is_kthread","bool","false"\n'
                         '100,"[NULL]","chrome.process_label[0]","string","b"\n'
                         '100,"[NULL]","chrome.process_type","string","Utility"\n'
                         '100,"[NULL]","chrome.host_app_package_name","string","pkg"\n'
                         '100,"[NULL]","chrome.process_label[1]","string","c"\n'
                         '100,"[NULL]","chrome.crash_trace_id","uint","12345678901"\n'
                         '101,77,"chrome.process_label[0]","string","L"\n'
                         '102,"[NULL]","[NULL]","[NULL]","[NULL]"\n'
                         '103,"[NULL]","is_kthread","bool","true"\n')
        out = self.query(data, "select flat_key, count(*) n from args "
                         "where key glob 'chrome.process_label*' group by flat_key")
        self.assertEqual(out, '"flat_key","n"\n"chrome.process_label",3\n')

    def test_sort_index_hint_joins_the_process_args(self):
        ranked = pb_int(1, 1) + pb_bytes(3, process(100, labels=['lab'])) + pb_int(12, 5)
        explicit = pb_int(1, 0) + pb_int(19, 1) + pb_int(20, 1)  # explicit ordering
        data = (pb_packet(pb_int(8, 5), pb_int(10, 1), pb_bytes(60, explicit)) +
                pb_packet(pb_int(8, 10), pb_int(10, 1), pb_bytes(60, ranked)) +
                pb_packet(pb_int(8, 20), pb_int(10, 1),
                          pb_bytes(60, pb_int(1, 2) + pb_bytes(3, process(101)) +
                                   pb_int(12, 7))))
        out = self.query(data, 'select p.pid, a.key, a.display_value from process p '
                         'join args a using(arg_set_id) where p.pid >= 100 order by p.pid, a.id')
        # the sort index hint joins the process's other args
        self.assertEqual(out, '"pid","key","display_value"\n'
                         '100,"chrome.process_label[0]","lab"\n'
                         '100,"process_sort_index_hint","5"\n'
                         '101,"process_sort_index_hint","7"\n')

    def test_legacy_process_descriptor_packet(self):
        data = pb_packet(pb_int(8, 10), pb_int(10, 3),
                         pb_bytes(43, process(100, legacy_type=2, labels=['tab'])))
        out = self.query(data, 'select p.name, a.key, a.display_value from process p '
                         'join args a using(arg_set_id) where p.pid = 100')
        self.assertEqual(out, '"name","key","display_value"\n'
                         '"Renderer","chrome.process_label[0]","tab"\n')


    def test_described_processes_come_with_their_main_thread(self):
        thread = lambda uuid, pid, tid: pb_packet(
            pb_int(8, 1), pb_int(10, 1),
            pb_bytes(60, pb_int(1, uuid) + pb_bytes(4, pb_int(1, pid) + pb_int(2, tid))))
        active = pb_bytes(49, pb_int(1, 300) + pb_int(1, 100) + pb_int(1, 3))
        data = (thread(1, 3, 4) + track(1, 2, process(100)) +
                pb_packet(pb_int(8, 1), pb_int(10, 3), pb_bytes(43, process(200))) +
                thread(5, 3, 9) +
                pb_packet(pb_int(8, 2), pb_int(10, 1), pb_bytes(11, pb_int(11, 1) + pb_int(9, 3) +
                                                               pb_bytes(23, 'ap') + active)))
        # a process track, a ProcessDescriptor packet and each pid of
        # chrome_active_processes make the process with its main thread, in
        # the order they come
        out = self.query(data, 'select tid, pid from thread left join process using(upid) '
                         'order by utid')
        self.assertEqual(out.splitlines()[1:], [
            '0,0', '3,3', '4,3', '100,100', '200,200', '9,3', '300,300'])


if __name__ == '__main__':
    e.main()
