"""End-to-end: Perfetto service/system packets (proto_misc)."""
import os
import shutil
import subprocess
import unittest

import weft_e2e as e

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
DATA = os.path.join(ROOT, 'tests', 'data', 'proto_import')
ENCODE = os.path.join(ROOT, 'scripts', 'encode_textproto.sh')


@unittest.skipIf(shutil.which('protoc') is None, 'protoc not installed')
class ProtoSystemTest(e.TempDirTest):
    def setUp(self):
        super().setUp()
        self.trace = os.path.join(self.dir, 'system_packets.pb')
        subprocess.run(['sh', ENCODE, os.path.join(DATA, 'system_packets.textproto'),
                        self.trace], check=True)

    def query(self, sql):
        rc, out, err = e.run('-Q', sql, self.trace)
        self.assertEqual(rc, 0, err)
        return out

    def test_machine_from_system_info(self):
        out = self.query('select sysname, release, arch, num_cpus, android_sdk_version, '
                         'system_ram_bytes, system_ram_gb from machine')
        self.assertEqual(out, '"sysname","release","arch","num_cpus","android_sdk_version",'
                         '"system_ram_bytes","system_ram_gb"\n'
                         '"Linux","6.1.0","aarch64",2,30,7999999999,8\n')

    def test_metadata_scopes(self):
        out = self.query("select name, int_value, str_value, machine_id, trace_id from metadata "
                         "where name in ('system_name', 'android_incremental_build', "
                         "'trace_uuid', 'all_data_source_flushed_ns', 'timezone_off_mins') "
                         "order by name")
        self.assertEqual(out, '"name","int_value","str_value","machine_id","trace_id"\n'
                         '"all_data_source_flushed_ns",2500,"[NULL]",0,0\n'
                         '"android_incremental_build","[NULL]","1234567",0,"[NULL]"\n'
                         '"system_name","[NULL]","Linux",0,"[NULL]"\n'
                         '"timezone_off_mins",-60,"[NULL]",0,"[NULL]"\n'
                         '"trace_uuid","[NULL]","01234567-89ab-cdef-0123-456789abcdef",'
                         '"[NULL]",0\n')
        out = self.query("select extract_metadata('system_name') as a, "
                         "extract_metadata_for_machine(0, 'system_machine') as b, "
                         "extract_metadata_for_machine(1, 'system_machine') as c")
        self.assertEqual(out, '"a","b","c"\n"Linux","aarch64","[NULL]"\n')

    def test_cpu_info(self):
        out = self.query("select cpu, cluster_id, processor, "
                         "extract_arg(arg_set_id, 'cpu_features.mte') as mte, "
                         "extract_arg(arg_set_id, 'arm_cpu_part') as part from cpu order by cpu")
        self.assertEqual(out, '"cpu","cluster_id","processor","mte","part"\n'
                         '0,0,"little",1,"[NULL]"\n1,1,"big","[NULL]",3336\n')
        out = self.query('select freq, group_concat(cpu) as cpus from '
                         'cpu_available_frequencies group by freq order by freq')
        self.assertEqual(out, '"freq","cpus"\n100,"0,1"\n500,"0"\n900,"1"\n')

    def test_diagnostics(self):
        out = self.query('select key from __intrinsic_trace_diagnostics order by key')
        self.assertEqual(out, '"key"\n"discard_buffer_for_streaming"\n'
                         '"events_require_symbolize_ksyms"\n')

    def test_buffer_and_loss_stats(self):
        out = self.query("select name, idx, value from stats where (name glob 'traced_buf_*' "
                         "or name glob 'long_trace*') and value > 0 order by name, idx")
        self.assertEqual(out, '"name","idx","value"\n'
                         '"long_trace_mode_bytes_overwritten",0,7\n'
                         '"traced_buf_bytes_overwritten",0,7\n'
                         '"traced_buf_bytes_written",0,100\n'
                         '"traced_buf_data_loss_overwrite",0,1\n'
                         '"traced_buf_data_loss_read_gap",0,1\n'
                         '"traced_buf_sequence_packet_loss",0,2\n')

    def test_trigger_and_sessions(self):
        out = self.query("select s.ts, s.name, extract_arg(s.arg_set_id, 'producer_name') "
                         "as producer from slice s join track t on s.track_id = t.id "
                         "where t.name = 'Trace Triggers'")
        self.assertEqual(out, '"ts","name","producer"\n1000,"go","prod"\n')
        out = self.query("select t.name, s.ts, s.dur, s.value from state s "
                         "join track t on s.track_id = t.id order by s.ts")
        self.assertEqual(out, '"name","ts","dur","value"\n'
                         '"Session 4",2000,1000,"STARTED"\n"Session 4",3000,0,"DISABLED"\n')


if __name__ == '__main__':
    e.main()
