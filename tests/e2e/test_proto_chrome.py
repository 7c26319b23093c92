"""End-to-end: Chrome metadata in proto traces (ChromeEventBundle metadata,
legacy payloads, ChromeMetadataPacket)."""

import shutil
import unittest

import weft_e2e as e
from weft_e2e import pb_bytes, pb_int, pb_packet

SEQ = pb_int(10, 1)


def chrome_meta(name, kind=None, value=None):
    """One ChromeEventBundle.metadata entry (kind: s, b, i, j or None)."""
    body = pb_bytes(1, name)
    if kind == 's':
        body += pb_bytes(2, value)
    elif kind == 'b':
        body += pb_int(3, value)
    elif kind == 'i':
        body += pb_int(4, value)
    elif kind == 'j':
        body += pb_bytes(5, value)
    return pb_bytes(2, body)


def bundle_packet(ts, *fields):
    return pb_packet(pb_int(8, ts), SEQ, pb_bytes(5, b''.join(fields)))


def metadata_packet(*fields):
    return pb_packet(SEQ, pb_bytes(51, b''.join(fields)))


class ProtoChromeMetadataTest(e.TempDirTest):
    def load(self, data):
        """A query function on the trace `data`."""
        path = e.write_temp(self.dir, 'chrome.pb', data)
        return lambda sql: e.query(sql, path)

    def test_bundle_metadata_rows_and_raw_args(self):
        # File order puts the ts 300 bundle first; bundles count in trace time.
        query = self.load(
            bundle_packet(300, chrome_meta('s1', 's', 'v'), chrome_meta('i1', 'i', -3),
                          chrome_meta('b1', 'b', 1), chrome_meta('j1', 'j', '{"a":1}'),
                          chrome_meta('empty')) +
            bundle_packet(50, chrome_meta('s1', 's', 'w'), pb_bytes(4, 'ftr1'),
                          pb_bytes(4, 'ftr2'),
                          pb_bytes(5, pb_int(1, 0) + pb_bytes(2, '{}')),
                          pb_bytes(5, pb_int(1, 1) + pb_bytes(2, 'system'))))
        self.assertEqual(
            query("select name, key_type, int_value, str_value from metadata "
                  "where name like 'cr-%' order by id"),
            '"name","key_type","int_value","str_value"\n'
            '"cr-s1","single","[NULL]","w"\n'
            '"cr-2-s1","single","[NULL]","v"\n'
            '"cr-2-i1","single",-3,"[NULL]"\n'
            '"cr-2-b1","single",1,"[NULL]"\n'
            '"cr-2-j1","single","[NULL]","{"a":1}"\n')
        self.assertEqual(
            query("select r.ts, r.name, r.utid, a.key, a.display_value, a.value_type "
                  "from __intrinsic_chrome_raw r join args a using(arg_set_id) "
                  "order by r.id, a.id"),
            '"ts","name","utid","key","display_value","value_type"\n'
            '50,"chrome_event.metadata",0,"s1","w","string"\n'
            '50,"chrome_event.legacy_system_trace",0,"data","ftr1ftr2","string"\n'
            '50,"chrome_event.legacy_user_trace",0,"data","{}","string"\n'
            '300,"chrome_event.metadata",0,"s1","v","string"\n'
            '300,"chrome_event.metadata",0,"i1","-3","int"\n'
            '300,"chrome_event.metadata",0,"b1","1","int"\n'
            '300,"chrome_event.metadata",0,"j1","{"a":1}","json"\n')
        self.assertEqual(query("select value from stats where name = 'empty_chrome_metadata'"),
                         '"value"\n1\n')

    def test_every_bundle_entry_is_a_row_and_a_nameless_one_a_null_key(self):
        # Chrome metadata keys are dynamic: an entry repeated in one bundle
        # is a row each time; its raw event's arg set keeps the last value.
        query = self.load(bundle_packet(
            300, chrome_meta('a', 's', 'x'), chrome_meta('a', 'i', 5),
            chrome_meta('a', 's', 'y'), pb_bytes(2, pb_int(4, 7))))
        self.assertEqual(
            query("select name, key_type, int_value, str_value from metadata "
                  "where name like 'cr-%' order by id"),
            '"name","key_type","int_value","str_value"\n'
            '"cr-a","single","[NULL]","x"\n'
            '"cr-a","single",5,"[NULL]"\n'
            '"cr-a","single","[NULL]","y"\n'
            '"cr-","single",7,"[NULL]"\n')
        self.assertEqual(
            query("select a.key, a.display_value from __intrinsic_chrome_raw r "
                  "join args a using(arg_set_id) order by a.id"),
            '"key","display_value"\n"a","y"\n"[NULL]","7"\n')

    def test_metadata_packet_rows(self):
        finch = b''.join(pb_bytes(4, pb_int(1, n) + pb_int(2, n + 1)) for n in (1, 3, 5))
        query = self.load(
            metadata_packet(pb_int(2, 77), pb_bytes(3, 'cat'), pb_bytes(5, 'pkg'),
                            pb_bytes(6, 'ver'), pb_int(7, 3), pb_bytes(8, 'os'), finch,
                            pb_bytes(1, b'\x1d\x07\x00\x00\x00')) +
            metadata_packet(pb_bytes(6, 'ver2')))
        self.assertEqual(
            query("select name, int_value, str_value from metadata "
                  "where name like 'cr-%' order by id"),
            '"name","int_value","str_value"\n'
            '"cr-a-playstore_version_code",77,"[NULL]"\n'
            '"cr-a-product-version","[NULL]","ver"\n'
            '"cr-a-os-name","[NULL]","os"\n'
            '"cr-a-package-name","[NULL]","pkg"\n'
            '"cr-a-channel",3,"[NULL]"\n'
            '"cr-a-enabled_categories","[NULL]","cat"\n'
            '"cr-a-field_trial_hashes","[NULL]","{ name: 1, group: 2 } { name: 3, group: 4 } \n'
            '{ name: 5, group: 6 } "\n'
            '"cr-background_tracing_metadata","[NULL]","HQcAAAA="\n'
            '"cr-scenario_name_hash",7,"[NULL]"\n'
            '"cr-b-product-version","[NULL]","ver2"\n')

    def test_benchmark_metadata_rows(self):
        bench = (pb_bytes(7, 'tag1') + pb_int(9, 1) + pb_int(1, 1234567) + pb_bytes(3, 'bname') +
                 pb_bytes(6, 'story') + pb_int(8, 3) + pb_bytes(7, 'tag2'))
        query = self.load(pb_packet(SEQ, pb_int(8, 10), pb_bytes(48, bench)))
        out = query("select name, key_type, int_value, str_value, machine_id, trace_id "
                    "from metadata where name glob 'benchmark_*' order by id")
        # strings, then the story tags (one row each), then the numbers;
        # what is absent writes nothing
        self.assertEqual(
            out, '"name","key_type","int_value","str_value","machine_id","trace_id"\n'
            '"benchmark_name","single","[NULL]","bname","[NULL]",0\n'
            '"benchmark_story_name","single","[NULL]","story","[NULL]",0\n'
            '"benchmark_story_tags","multi","[NULL]","tag1","[NULL]",0\n'
            '"benchmark_story_tags","multi","[NULL]","tag2","[NULL]",0\n'
            '"benchmark_start_time_us","single",1234567,"[NULL]","[NULL]",0\n'
            '"benchmark_story_run_index","single",3,"[NULL]","[NULL]",0\n'
            '"benchmark_had_failures","single",1,"[NULL]","[NULL]",0\n')


# The same packet written in Perfetto's text format (the schema's
# ChromeMetadataPacket and BackgroundTracingMetadata, TracePacket field 51).
CHROME_METADATA_TEXT = """
packet { trusted_packet_sequence_id: 1 timestamp: 100
  chrome_metadata {
    background_tracing_metadata {
      triggered_rule { name_hash: 9 }
      scenario_name_hash: 3005533841
    }
    chrome_version_code: -5
    enabled_categories: "a,b"
    field_trial_hashes { name: 1 group: 2 }
    app_package_name: "com.x"
    app_version: "1.2"
    channel: 2
    os_name: "Linux"
  }
}
packet { trusted_packet_sequence_id: 2 timestamp: 200 chrome_metadata { os_name: "Android" } }
"""


@unittest.skipIf(shutil.which('protoc') is None, 'protoc not installed')
class ProtoChromeMetadataTextTest(e.TempDirTest):
    def test_text_format_chrome_metadata(self):
        trace = e.textproto_trace(self.dir, 'meta.pb', CHROME_METADATA_TEXT)
        out = e.query("select name, int_value, str_value from metadata "
                      "where name like 'cr-%' order by id", trace)
        self.assertEqual(
            out, '"name","int_value","str_value"\n'
            '"cr-a-playstore_version_code",-5,"[NULL]"\n'
            '"cr-a-product-version","[NULL]","1.2"\n'
            '"cr-a-os-name","[NULL]","Linux"\n'
            '"cr-a-package-name","[NULL]","com.x"\n'
            '"cr-a-channel",2,"[NULL]"\n'
            '"cr-a-enabled_categories","[NULL]","a,b"\n'
            '"cr-a-field_trial_hashes","[NULL]","{ name: 1, group: 2 } "\n'
            '"cr-background_tracing_metadata","[NULL]","CgUlCQAAAB2RziSz"\n'
            '"cr-scenario_name_hash",3005533841,"[NULL]"\n'
            '"cr-b-os-name","[NULL]","Android"\n')


if __name__ == '__main__':
    e.main()
