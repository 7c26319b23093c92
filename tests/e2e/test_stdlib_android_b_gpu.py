"""End-to-end: android.gpu.frequency and android.gpu.memory on a small
ftrace trace whose answers Perfetto's trace processor gives too."""
import weft_e2e as e
from test_stdlib_linux import bundle, ftrace_event, process_tree
from weft_e2e import pb_int

GPU_FREQUENCY, GPU_MEM_TOTAL = 332, 340


def freq(ts, gpu, khz):
    return ftrace_event(ts, 0, GPU_FREQUENCY, pb_int(1, gpu), pb_int(2, khz))


def mem(ts, gpu, pid, size):
    return ftrace_event(ts, 0, GPU_MEM_TOTAL, pb_int(1, gpu), pb_int(2, pid), pb_int(3, size))


def gpu_trace():
    return (process_tree(500, [(1, 0, 'init'), (100, 1, 'app'), (200, 1, 'game')]) +
            bundle(0, freq(1000, 0, 300), freq(1100, 0, 200), freq(1200, 0, 200),
                   freq(1300, 0, 200), freq(1400, 0, 200), freq(1450, 0, 500),
                   freq(1500, 1, 100), freq(2000, 0, 300), freq(2500, 0, 300),
                   freq(3000, 0, 600), freq(3500, 1, 100), freq(4000, 0, 300),
                   mem(1000, 0, 0, 4096), mem(1200, 0, 100, 100), mem(1300, 0, 200, 50),
                   mem(2000, 0, 100, 300), mem(2500, 0, 100, 300), mem(3000, 0, 100, 200),
                   mem(3100, 0, 999, 7), mem(5000, 0, 0, 10)))


class AndroidGpuTest(e.TempDirTest):
    def setUp(self):
        super().setUp()
        self.path = e.write_temp(self.dir, 'gpu.pb', gpu_trace())

    def test_frequency_per_gpu(self):
        # of the run of 200s at 1100..1400 the sample at 1300 collapses; prev
        # and next are the neighbouring kept samples' frequencies
        self.assertEqual(e.query(
            'INCLUDE PERFETTO MODULE android.gpu.frequency; '
            'select * from android_gpu_frequency', self.path),
            '"ts","dur","gpu_id","gpu_freq","prev_gpu_freq","next_gpu_freq"\n'
            '1000,100,0,300,"[NULL]",200\n'
            '1100,100,0,200,300,200\n'
            '1200,200,0,200,200,200\n'
            '1400,50,0,200,200,500\n'
            '1450,550,0,500,200,300\n'
            '2000,500,0,300,500,300\n'
            '2500,500,0,300,300,600\n'
            '3000,1000,0,600,300,300\n'
            '4000,1000,0,300,600,"[NULL]"\n'
            '1500,2000,1,100,"[NULL]",100\n'
            '3500,1500,1,100,100,"[NULL]"\n')

    def test_memory_per_process(self):
        # the gpu's own total (pid 0) and an unknown pid are not processes';
        # a last sample lasts to the trace's end + 1
        self.assertEqual(e.query(
            'INCLUDE PERFETTO MODULE android.gpu.memory; '
            'select * from android_gpu_memory_per_process', self.path),
            '"ts","dur","upid","gpu_memory"\n'
            '1200,800,2,100\n2000,500,2,300\n2500,500,2,300\n3000,2001,2,200\n'
            '1300,3701,3,50\n')


if __name__ == '__main__':
    e.main()
