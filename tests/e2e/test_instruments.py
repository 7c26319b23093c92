"""End-to-end: Apple Instruments XML exports (`xctrace export --xpath` of a
time-profile table): samples, threads, processes and callstacks as
Perfetto reads them, the clockless placement on a merge, and hostile XML."""
import json
import os

import weft_e2e as e

HEAD = '<?xml version="1.0"?>\n<trace-query-result>\n<node><schema name="time-profile"/>\n'
TAIL = '</node></trace-query-result>\n'

# Sample 1 defines everything (leaf frame first); sample 2 repeats it by
# ref; sample 3 is a second process sharing the binary, sample 4 has
# binary-less frames (one of them at address 0), sample 5 an empty
# backtrace, and the last row (a signpost) has none at all.
ROWS = (
    '<row><sample-time id="1">5000</sample-time>'
    '<thread id="2" fmt="T1"><tid id="3">100</tid>'
    '<process id="4" fmt="P1"><pid id="5">10</pid></process></thread>'
    '<core id="6">3</core><backtrace id="7">'
    '<frame id="8" name="leaf" addr="0x100001010"><binary id="9" name="Lib" '
    'UUID="01234567-89AB-CDEF-0123-456789ABCDEF" load-addr="0x100000000" path="/lib/a"/>'
    '</frame><frame id="10" name="root" addr="0x100003000"><binary ref="9"/></frame>'
    '</backtrace></row>\n'
    '<row><sample-time id="11">6000</sample-time><thread ref="2"/><core ref="6"/>'
    '<backtrace ref="7"/></row>\n'
    '<row><sample-time id="12">4000</sample-time><thread id="13" fmt="T2"><tid id="14">200'
    '</tid><process id="15" fmt="P2"><pid id="16">20</pid></process></thread>'
    '<core ref="6"/><backtrace ref="7"/></row>\n'
    '<row><sample-time id="17">7000</sample-time><thread ref="2"/><core ref="6"/>'
    '<backtrace id="18"><frame id="19" name="abs" addr="0x100002000"/>'
    '<frame id="20" name="zero" addr="0x0"/></backtrace></row>\n'
    '<row><sample-time id="21">8000</sample-time><thread ref="13"/><core ref="6"/>'
    '<backtrace id="22"></backtrace></row>\n'
    '<row><event-time id="23">9000</event-time><subsystem id="24">dev.perfetto.clock_sync'
    '</subsystem></row>\n')


class InstrumentsTest(e.TempDirTest):
    def load(self, body, sql):
        path = e.write_temp(self.dir, 't.xml', HEAD + body + TAIL)
        return e.query(sql, path)

    def fails(self, text):
        path = e.write_temp(self.dir, 'bad.xml', text)
        rc, out, err = e.run('-Q', 'select count(*) from instruments_sample', path)
        self.assertNotEqual(rc, 0, out)
        return err

    def test_samples(self):
        # A core defined in the row leaves its cpu 0; a ref gives the value.
        self.assertEqual(self.load(ROWS, 'select * from instruments_sample'),
                         '"id","ts","utid","callsite_id","cpu"\n'
                         '0,4000,2,1,3\n1,5000,4,1,0\n2,6000,4,1,3\n'
                         '3,7000,4,3,3\n4,8000,2,"[NULL]",3\n')

    def test_threads_and_processes(self):
        self.assertEqual(self.load(ROWS, 'select utid, tid, thread.name, upid, pid, '
                                   'process.name as p from thread left join process '
                                   'using (upid) order by utid'),
                         '"utid","tid","name","upid","pid","p"\n'
                         '0,0,"[NULL]",0,0,"[NULL]"\n1,20,"[NULL]",1,20,"P2"\n'
                         '2,200,"T2",1,20,"P2"\n3,10,"[NULL]",2,10,"P1"\n'
                         '4,100,"T1",2,10,"P1"\n')

    def test_callstacks(self):
        # Root first; pcs relative to the binary's load address, a return
        # address (not the leaf) less 1; the binary's one mapping ends at
        # its largest frame; binary-less frames go to the process's dummy
        # mapping, even when their address lies in a binary's range.
        out = self.load(ROWS, 'select f.name, f.rel_pc, m.name as m, m.build_id, m.start, '
                        'm.end, m.exact_offset, c.depth, c.parent_id from '
                        'stack_profile_callsite c join stack_profile_frame f on '
                        'c.frame_id = f.id join stack_profile_mapping m on f.mapping = m.id '
                        'order by c.id')
        self.assertEqual(out, '"name","rel_pc","m","build_id","start","end","exact_offset",'
                         '"depth","parent_id"\n'
                         '"root",12287,"/lib/a","0123456789abcdef0123456789abcdef",'
                         '4294967296,4294979584,4294967296,0,"[NULL]"\n'
                         '"leaf",4112,"/lib/a","0123456789abcdef0123456789abcdef",'
                         '4294967296,4294979584,4294967296,1,0\n'
                         '"zero",0,"","",0,-1,0,0,"[NULL]"\n'
                         '"abs",4294975488,"","",0,-1,0,1,2\n')

    def test_a_backtrace_repeated_after_a_new_mapping_is_walked_again(self):
        # f's pc (0x1010 past /a's load address) falls in /b's mapping
        # [0, 0x5000), made by the second sample of the same process: the
        # samples after it, repeating f's backtrace, find f in /b.
        rows = ('<row><sample-time id="1">1000</sample-time><thread id="2" fmt="T">'
                '<tid id="3">100</tid><process id="4" fmt="P"><pid id="5">10</pid></process>'
                '</thread><backtrace id="6"><frame id="7" name="f" addr="0x100001010">'
                '<binary id="8" name="a" UUID="00" load-addr="0x100000000" path="/a"/>'
                '</frame></backtrace></row>\n'
                '<row><sample-time id="15">1500</sample-time><thread ref="2"/>'
                '<backtrace ref="6"/></row>\n'
                '<row><sample-time id="9">2000</sample-time><thread ref="2"/>'
                '<backtrace id="10"><frame id="11" name="g" addr="0x5000"><binary id="12" '
                'name="b" UUID="11" load-addr="0x0" path="/b"/></frame></backtrace></row>\n'
                '<row><sample-time id="13">3000</sample-time><thread ref="2"/>'
                '<backtrace ref="6"/></row>\n'
                '<row><sample-time id="14">4000</sample-time><thread ref="2"/>'
                '<backtrace ref="6"/></row>\n')
        self.assertEqual(self.load(rows, 'select s.ts, f.name, m.name as m, f.rel_pc '
                                   'from instruments_sample s join stack_profile_callsite c '
                                   'on c.id = s.callsite_id join stack_profile_frame f '
                                   'on f.id = c.frame_id join stack_profile_mapping m '
                                   'on m.id = f.mapping order by s.ts'),
                         '"ts","name","m","rel_pc"\n1000,"f","/a",4112\n1500,"f","/a",4112\n'
                         '2000,"g","/b",20480\n3000,"f","/b",4112\n4000,"f","/b",4112\n')

    def test_addresses_wrap_as_64_bit_unsigned(self):
        # Frames far below their binary's load address (one written
        # negative, as strtoll reads it): pcs are unsigned and wrap, shown
        # as the signed 64-bit value of the column.
        rows = ('<row><sample-time id="1">1000</sample-time><thread id="2" fmt="T">'
                '<tid id="3">100</tid><process id="4" fmt="P"><pid id="5">10</pid></process>'
                '</thread><backtrace id="6"><frame id="7" name="low" addr="0x10">'
                '<binary id="8" name="a" UUID="00" load-addr="0x7fffffffffffffff" path="/a"/>'
                '</frame><frame id="9" name="top" addr="-0x7fffffffffffffff">'
                '<binary ref="8"/></frame></backtrace></row>\n')
        out = self.load(rows, 'select f.name, f.rel_pc from stack_profile_callsite c '
                        'join stack_profile_frame f on c.frame_id = f.id order by c.id')
        self.assertEqual(out, '"name","rel_pc"\n"top",1\n"low",-9223372036854775791\n')

    def test_a_deep_backtrace_chains_every_frame(self):
        self.maxDiff = None
        # 75 frames (more than one batch of the walk): leaf first in the
        # file, two binaries defined on the way, a frame used twice (a
        # recursion). A second process repeats it by ref with its own
        # mappings, so its own frames and chain. The first process's second
        # sample walks it again (mappings were made since): its root, first
        # put in the process's dummy mapping, now lies in /a's range, so
        # every callsite is new, with the same names.
        def binary(k):
            if k == 10:
                return '<binary id="90" name="A" UUID="AA" load-addr="0x100000000" path="/a"/>'
            if k == 50:
                return '<binary id="91" name="B" UUID="BB" load-addr="0x100000400" path="/b"/>'
            return '<binary ref="%d"/>' % (91 if k > 50 else 90) if k > 10 else ''
        frames = ''.join('<frame id="%d" name="f%d" addr="0x%x">%s</frame>' % (
            100 + k, k, 0x100000000 + 0x10 * k, binary(k)) for k in range(74))
        body = ('<row><sample-time id="1">10</sample-time><thread id="2" fmt="T"><tid id="3">7'
                '</tid><process id="4" fmt="P"><pid id="5">7</pid></process></thread>'
                '<backtrace id="6">%s<frame ref="105"/></backtrace></row>\n'
                '<row><sample-time id="7">20</sample-time><thread id="8" fmt="U"><tid id="9">8'
                '</tid><process id="10" fmt="Q"><pid id="11">8</pid></process></thread>'
                '<backtrace ref="6"/></row>\n'
                '<row><sample-time id="12">30</sample-time><thread ref="2"/>'
                '<backtrace ref="6"/></row>\n') % frames
        chain = ('with recursive up(id, parent, depth, names) as ('
                 'select c.id, c.parent_id, c.depth, f.name from instruments_sample s '
                 'join stack_profile_callsite c on c.id = s.callsite_id join '
                 'stack_profile_frame f on f.id = c.frame_id where s.ts = %d union all '
                 'select c.id, c.parent_id, c.depth, up.names || \',\' || f.name from up '
                 'join stack_profile_callsite c on c.id = up.parent join '
                 'stack_profile_frame f on f.id = c.frame_id) '
                 'select depth, names from up where parent is null;\n')
        names = ','.join(['f%d' % k for k in range(74)] + ['f5'])  # leaf to root
        out = self.load(body, ''.join(chain % ts for ts in (10, 20, 30)) +
                        'select count(*) as callsites, max(depth) from stack_profile_callsite;\n'
                        'select s.ts, s.callsite_id from instruments_sample s order by ts;\n'
                        'select count(*) as frames from stack_profile_frame;\n'
                        'select count(*) as mappings from stack_profile_mapping')
        self.assertEqual(out, '\n'.join(['"depth","names"\n0,"%s"\n' % names] * 3 + [
            '"callsites","max(depth)"\n225,74\n',
            '"ts","callsite_id"\n10,74\n20,149\n30,224\n',
            '"frames"\n85\n', '"mappings"\n4\n']))

    def test_empty_values_are_0(self):
        # A thread renamed is a new <thread id=> whose <tid ref=/> has no
        # text: Perfetto gives it tid 0 (it does not follow the ref); an
        # empty <sample-time> is time 0, for its refs too.
        rows = ('<row><sample-time id="1">5000</sample-time><thread id="2" fmt="T1">'
                '<tid id="3">100</tid><process id="4" fmt="P1"><pid id="5">10</pid>'
                '</process></thread><backtrace id="7"><frame id="8" name="f" addr="0x10"/>'
                '</backtrace></row>\n'
                '<row><sample-time id="11"> 6000 </sample-time><thread id="12" fmt="T1 renamed">'
                '<tid ref="3"/><process ref="4"/></thread><backtrace ref="7"/></row>\n'
                '<row><sample-time id="13"></sample-time><thread ref="12"/>'
                '<backtrace ref="7"/></row>\n'
                '<row><sample-time ref="13"/><thread ref="12"/><backtrace ref="7"/></row>\n')
        self.assertEqual(self.load(rows, 'select s.ts, t.tid, t.name from instruments_sample s '
                                   'join thread t using (utid) order by s.id'),
                         '"ts","tid","name"\n0,0,"T1 renamed"\n0,0,"T1 renamed"\n'
                         '5000,100,"T1"\n6000,0,"T1 renamed"\n')

    def test_metadata(self):
        out = self.load(ROWS, "select name, int_value, str_value from metadata "
                        "where name in ('trace_type', 'trace_time_clock_id') "
                        "order by name desc")
        self.assertEqual(out, '"name","int_value","str_value"\n'
                         '"trace_type","[NULL]","instruments_xml"\n'
                         '"trace_time_clock_id",11,"[NULL]"\n')

    def test_pinned_to_a_proto_trace_by_a_manifest(self):
        snapshot = e.pb_bytes(6, e.pb_bytes(1, e.pb_int(1, 6) + e.pb_int(2, 1000)) +
                              e.pb_bytes(1, e.pb_int(1, 1) + e.pb_int(2, 5000)))
        phone = os.path.join(self.dir, 'phone.pb')
        with open(phone, 'wb') as f:
            f.write(e.pb_packet(snapshot, e.pb_int(10, 1)))
        xml = e.write_temp(self.dir, 'prof.xml', HEAD + ROWS + TAIL)
        manifest = e.write_temp(self.dir, 'm.json', json.dumps({'perfetto_manifest': {
            'version': 1, 'files': [
                {'path': 'phone.pb'},
                {'path': 'prof.xml', 'clocks': {
                    'sync_to': {'file': 'phone.pb', 'clock': 'BOOTTIME'},
                    'offset_ns': 3000000000}}]}}))
        out = e.query('select ts from instruments_sample order by ts limit 2',
                      '--manifest', manifest, phone, xml)
        self.assertEqual(out, '"ts"\n3000004000\n3000005000\n')

    def test_hostile_xml_fails_clearly(self):
        cases = {
            'unclosed': (HEAD + '<row><sample-time id="1">5', 'instruments XML line'),
            'mismatched': (HEAD + '<row></node>' + TAIL, 'mismatched tag'),
            'undefined ref': (HEAD + '<row><thread ref="99"/></row>' + TAIL,
                              'ref= names no element defined before: 99'),
            'bad id': (HEAD + '<row><thread id="x1"/></row>' + TAIL, 'bad id/ref: x1'),
            'deep': (HEAD + '<a>' * 300 + '</a>' * 300 + TAIL, 'nested too deep'),
            'long value': (HEAD + '<row><sample-time id="1">' + '1' * 300 +
                           '</sample-time></row>' + TAIL, 'longer than 256 bytes'),
            'not a number': (HEAD + '<row><sample-time id="1">soon</sample-time></row>' +
                             TAIL, 'not a number: soon'),
            'entities': ('<?xml version="1.0"?>\n<trace-query-result>'
                         '<!DOCTYPE x [<!ENTITY a "aaaa">]><x>&a;</x>', 'instruments XML'),
        }
        for name, (text, message) in cases.items():
            with self.subTest(name):
                self.assertIn(message, self.fails(text))

    def test_xml_syntax_as_xml_reads_it(self):
        # References, both quote styles, CDATA, comments, PIs and line ends
        # in values read as XML reads them: the same tables as the plain
        # spelling.
        fancy = (ROWS.replace('name="leaf"', "name='l&#x65;&amp;&lt;f\tx&#9;'")
                 .replace('fmt="T1"', 'fmt="T&#49;\r\n&quot;"')
                 .replace('<sample-time id="1">5000</sample-time>',
                          '<sample-time id="1"><!-- t --><![CDATA[50]]>0&#48;<?pi x?>'
                          '</sample-time>')
                 .replace('<core id="6">3</core>', '<core  id = "6" >3</core >'))
        plain = (ROWS.replace('name="leaf"', 'name="le&amp;&lt;f x&#9;"')
                 .replace('fmt="T1"', 'fmt="T1 &quot;"'))
        sql = ('select s.ts, t.name, f.name as f, s.cpu from instruments_sample s join thread t '
               'using (utid) join stack_profile_callsite c on c.id = s.callsite_id join '
               'stack_profile_frame f on f.id = c.frame_id order by s.id')
        path = e.write_temp(self.dir, 'fancy.xml', HEAD + fancy + TAIL)
        out = e.query(sql, path)
        self.assertIn('5000,"T1 "","le&<f x\t",0', out)
        self.assertEqual(out, e.query(sql, e.write_temp(self.dir, 'plain.xml',
                                                        HEAD + plain + TAIL)))

    def test_malformed_xml_names_its_line(self):
        cases = {
            'duplicate attribute': '<row><thread id="2" id="3"/></row>',
            'undefined entity': '<row><thread id="2" fmt="&nbsp;"/></row>',
            'junk after document element': '</node></trace-query-result><more/>',
            "'<' in an attribute value": '<row><thread id="2" fmt="<"/></row>',
            'not well-formed (attribute value not quoted)': '<row><thread id=2/></row>',
        }
        for message, body in cases.items():
            with self.subTest(message):
                err = self.fails(HEAD + '\n\n' + body + TAIL)
                self.assertIn('instruments XML line 6: ' + message, err)

    def test_billion_laughs_is_refused(self):
        text = ('<?xml version="1.0"?>\n<!DOCTYPE trace-query-result [<!ENTITY a "' +
                'x' * 100 + '">' + ''.join('<!ENTITY %s "%s">' % (chr(98 + i), ('&%s;' %
                chr(97 + i)) * 10) for i in range(8)) + ']>\n<trace-query-result>&i;'
                '</trace-query-result>')
        path = e.write_temp(self.dir, 'laughs.xml', text)
        rc, _, err = e.run('-Q', 'select 1', path)
        # An export starts with <trace-query-result>, so a DTD (where
        # entities are declared) cannot follow: this file is no export, and
        # a DTD after the root's start is a syntax error (case 'entities').
        self.assertNotEqual(rc, 0)
        self.assertTrue(err.strip())

    def test_frames_outside_a_row_belong_to_no_sample(self):
        # A frame before any row (here in an element that only starts like
        # one) is in no backtrace: read, and no sample takes it.
        body = ('<rowme><frame id="10" name="root" addr="0x100003000"/></rowme>\n' +
                ROWS.replace('id="10" name="root"', 'id="30" name="root"'))
        self.assertEqual(self.load(body, 'select count(*) as n from instruments_sample'),
                         '"n"\n5\n')

    def test_huge_attribute_is_read(self):
        name = 'n' * (1 << 20)
        body = ROWS.replace('name="leaf"', 'name="%s"' % name)
        self.assertEqual(self.load(body, 'select length(name) as n from stack_profile_frame '
                                   'where name like \'nnn%\''), '"n"\n1048576\n')

    # Rows enough for several of the tokenizer's batches (16384 items).
    def long_rows(self, n, bad=None):
        rows = []
        for i in range(n):
            t = 10 * i + 100
            rows.append('<row><sample-time id="%d">%d</sample-time><thread ref="2"/>'
                        '<backtrace id="%d"><frame id="%d" name="f&lt;%d&gt;" addr="0x%x"/>'
                        '<frame ref="10"/></backtrace></row>\n' %
                        (t, 100000 + i, t + 1, t + 2, i, 0x1000 + i))
            if bad and i in bad:
                rows.append(bad[i])
        return ROWS + ''.join(rows)

    def test_errors_come_in_document_order_across_batches(self):
        ref = '<row><thread ref="99999"/></row>\n'
        tag = '<row><thread id="5" id="6"/></row>\n'
        # Both errors in one batch (a row is 13 items), or in two.
        at_ref = 'line %d: ref= names no element defined before: 99999' % (3000 + 11)
        at_tag = 'line %d: duplicate attribute' % (3000 + 11)
        cases = [({3000: ref, 3100: tag}, at_ref), ({3000: ref, 5000: tag}, at_ref),
                 ({3000: tag, 3100: ref}, at_tag), ({3000: tag, 5000: ref}, at_tag)]
        for bad, message in cases:
            path = e.write_temp(self.dir, 'long.xml', HEAD + self.long_rows(6000, bad) + TAIL)
            for threads in ('1', '2'):
                with self.subTest(message, threads=threads):
                    rc, _, err = e.run('--threads', threads, '-Q', 'select 1', path)
                    self.assertNotEqual(rc, 0)
                    self.assertIn(message, err)

    def test_a_long_export_reads_the_same_on_one_thread(self):
        path = e.write_temp(self.dir, 'long.xml', HEAD + self.long_rows(6000) + TAIL)
        sql = ('select s.ts, f.name, f.rel_pc from instruments_sample s join '
               'stack_profile_callsite c on c.id = s.callsite_id join stack_profile_frame f '
               'on f.id = c.frame_id order by s.ts')
        outs = []
        for threads in ('1', '2'):
            rc, out, err = e.run('--threads', threads, '-Q', sql, path)
            self.assertEqual(rc, 0, err)
            outs.append(out)
        self.assertEqual(outs[0], outs[1])
        lines = outs[0].splitlines()
        self.assertEqual(len(lines), 1 + 4 + 6000)  # ROWS: 4 samples with a callsite
        self.assertIn('"ts","name","rel_pc"', lines[0])
        self.assertEqual(lines[-1], '%d,"f<5999>",%d' % (100000 + 5999, 0x1000 + 5999))

    def test_read_while_the_next_file_is_scanned_ahead(self):
        # The next file's scan can hold the load's worker while this export
        # is read: the batches are then filled by the loading thread (after
        # a short wait), and the tables are those of one thread.
        xml = e.write_temp(self.dir, 'long.xml', HEAD + self.long_rows(6000) + TAIL)
        events = [{'name': 'e%d' % i, 'ph': 'X', 'ts': i, 'dur': 1, 'pid': 1, 'tid': 1}
                  for i in range(60000)]
        trace = e.write_temp(self.dir, 'big.json', json.dumps({'traceEvents': events}))
        sql = ('select count(*) as n, sum(ts) as t from instruments_sample;'
               'select count(*) as n from slice;'
               'select count(*) as n, sum(rel_pc) as r from stack_profile_frame')
        outs = []
        for threads in ('1', '2'):
            rc, out, err = e.run('--threads', threads, '-Q', sql, xml, trace)
            self.assertEqual(rc, 0, err)
            outs.append(out)
        self.assertEqual(outs[0], outs[1])
        self.assertIn('"n"\n60000\n', outs[0])


if __name__ == '__main__':
    e.main()
