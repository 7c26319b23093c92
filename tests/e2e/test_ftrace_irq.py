"""End-to-end: irq and softirq slices (category "irq") on the cpu's Irq /
SoftIrq tracks, their exits adding ret ("handled" when 1, else
"unhandled") and vec args, as Perfetto's ftrace parser makes them."""
import weft_e2e as e

TRACE = '''
packet { ftrace_events { cpu: 1
  event { timestamp: 100 pid: 0 irq_handler_entry { irq: 7 name: "ufs" } }
  event { timestamp: 150 pid: 0 irq_handler_exit { irq: 7 ret: 1 } }
  event { timestamp: 200 pid: 0 irq_handler_entry { irq: 8 name: "dsi" } }
  event { timestamp: 250 pid: 0 irq_handler_exit { irq: 8 ret: 0 } }
  event { timestamp: 260 pid: 0 irq_handler_exit { irq: 8 ret: 1 } }
  event { timestamp: 300 pid: 0 softirq_entry { vec: 1 } }
  event { timestamp: 350 pid: 0 softirq_exit { vec: 1 } }
  event { timestamp: 400 pid: 0 softirq_entry { vec: 12 } }
  event { timestamp: 450 pid: 0 softirq_exit { vec: 12 } }
  event { timestamp: 500 pid: 0 irq_handler_entry { irq: 9 name: "open" } }
} }
'''

SLICES = ("select s.ts, s.dur, s.name, s.category, t.name as track, "
          "(select group_concat(key || '=' || display_value || ':' || value_type) from args a "
          "where a.arg_set_id = s.arg_set_id) as args from slice s join track t "
          "on s.track_id = t.id order by s.ts")


class FtraceIrqTest(e.TempDirTest):
    def test_irq_category_and_exit_args(self):
        p = e.textproto_trace(self.dir, 'trace', TRACE)
        self.assertEqual(e.query(SLICES, p), (
            '"ts","dur","name","category","track","args"\n'
            '100,50,"IRQ (ufs)","irq","Irq Cpu 1","ret=handled:string"\n'
            '200,50,"IRQ (dsi)","irq","Irq Cpu 1","ret=unhandled:string"\n'
            '300,50,"TIMER","irq","SoftIrq Cpu 1","vec=1:int"\n'
            '500,-1,"IRQ (open)","irq","Irq Cpu 1","[NULL]"\n'))


if __name__ == '__main__':
    e.main()
