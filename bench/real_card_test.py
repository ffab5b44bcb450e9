#!/usr/bin/env python3
"""bench/real_card.py without a GPU: its reading of nvidia-smi and its checks
of gpulint, on the H200's captures (testdata/gpu/h200), with the gpulint
binary given (ctest real-card). What needs the card itself (libcuda) is not
run here: no GPU machine is at hand for this suite."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import real_card  # noqa: E402

H200 = os.path.join(HERE, '..', 'testdata', 'gpu', 'h200')
GPULINT = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(HERE, '..', 'build', 'gpulint')


def read(name):
    with open(os.path.join(H200, name)) as f:
        return f.read()


class Reading(unittest.TestCase):
    def test_queries(self):
        four = real_card.parse_query(read('query-index-name-total-reserved.csv'))
        self.assertEqual(four, [{'index': 0, 'name': 'NVIDIA H200', 'memory_total_mib': 143771,
                                 'memory_reserved_mib': 616}])
        three = real_card.parse_query(read('query-index-name-total.csv'))
        self.assertEqual(three, [{'index': 0, 'name': 'NVIDIA H200', 'memory_total_mib': 143771}])
        # With a header and units, as nvidia-smi prints without noheader,nounits.
        full = real_card.parse_query(read('query-full.csv'))
        self.assertEqual(full[0]['memory_total_mib'], 143771)
        self.assertEqual(full[0]['memory_reserved_mib'], 616)
        self.assertEqual(real_card.parse_query('0, Tesla T4, 15360, [N/A]\n')[0]['memory_reserved_mib'], None)
        with self.assertRaises(ValueError):
            real_card.parse_query('nonsense\n')

    def test_smi_q(self):
        q = real_card.parse_smi_q(read('smi-q.txt'))
        self.assertEqual(q['driver'], '580.159.04')
        self.assertEqual(q['product'], 'NVIDIA H200')
        self.assertEqual(q['architecture'], 'Hopper')
        self.assertEqual(q['fb_total_mib'], 143771)
        self.assertEqual(q['fb_reserved_mib'], 616)

    def test_lgip(self):
        self.assertEqual(real_card.parse_lgip(read('mig-lgip.txt')),
                         {'1g.18gb': 16384, '1g.35gb': 33280, '2g.35gb': 33280, '3g.71gb': 71424,
                          '4g.71gb': 71424, '7g.141gb': 143360})
        # Two decimals stand for the largest size they can: 19.62 is 19.625 GiB.
        line = '|   0  MIG 2g.20gb         14     3/3        19.62      No     32     2     0   |\n'
        self.assertEqual(real_card.parse_lgip(line), {'2g.20gb': 20096})

    def test_cgroup_steps(self):
        # What escapes the cgroup on the H200, as docs/gpus.md and
        # docs/incidents.md quote it.
        steps = {s['step']: s for s in real_card.cgroup_steps(read('measure.jsonl'))}
        self.assertEqual(steps['cuda-context'], {'step': 'cuda-context', 'node_mib': 438.8,
                                                 'cgroup_mib': 316.0, 'outside_mib': 122.9})
        self.assertEqual(steps['pinned-8GiB']['outside_mib'], 108.7)
        self.assertEqual(steps['pinned-8GiB']['cgroup_mib'], 8235.5)
        self.assertEqual(steps['hostregister-4GiB']['outside_mib'], 49.3)
        with open(os.path.join(HERE, '..', 'docs', 'gpus.md')) as f:
            doc = f.read()
        for figure in ('**+122.9 MiB**', '**+108.7 MiB**', '+49.3 MiB', '+438.8 MiB', '+316.0 MiB'):
            self.assertIn(figure, doc)

    def test_gfd_product(self):
        self.assertEqual(real_card.gfd_product('NVIDIA H100 80GB HBM3'), 'NVIDIA-H100-80GB-HBM3')


class AgainstGpulint(unittest.TestCase):
    """gpulint against the H200 as it was measured on 2026-11-28."""

    @classmethod
    def setUpClass(cls):
        cls.result = real_card.check(GPULINT, real_card.collect_captures(H200))

    def check_named(self, name):
        found = [c for c in self.result['checks'] if c['check'] == name]
        self.assertEqual(len(found), 1, name)
        return found[0]

    def test_every_check_passes(self):
        failed = [c for c in self.result['checks'] if not c['ok']]
        self.assertEqual(failed, [])
        self.assertTrue(self.result['ok'])
        # Two of node-patch, two of vram-exceeds-gpu, one per MIG profile.
        self.assertEqual(len(self.result['checks']), 4 + 6)
        self.assertEqual(self.check_named("gpulint's figure for one process is what it got, within 1%")['percent'], 0)

    def test_node_patch_within_one_percent(self):
        self.assertEqual(self.result['node_patch']['advertised_mib'], 143155)  # 143771 - 616
        self.assertEqual(self.result['measured']['max_alloc_mib'], 142534)  # 149457731584 B
        c = self.check_named('node-patch advertises what a process can get, within 1%')
        self.assertEqual(c['percent'], 0.44)
        self.assertEqual(self.result['node_patch']['process_share_bytes'] // real_card.MiB, 142534)
        self.assertEqual(self.result['measured']['context_mib'], 620.8)  # CUDA's total less what was free

    def test_vram_exceeds_gpu(self):
        self.assertEqual(self.check_named('vram-exceeds-gpu passes what a process got')['findings'], [])
        refused = self.check_named('vram-exceeds-gpu refuses memory.total')['findings']
        self.assertEqual(len(refused), 1)
        self.assertIn('143771Mi per GPU less 616Mi the driver reserves, less a 621Mi CUDA context',
                      refused[0])

    def test_mig_slices(self):
        c = self.check_named('MIG 1g.18gb: gpulint judges it at its real size, 16384 MiB')
        self.assertEqual(c['fits'], [])
        self.assertEqual(len(c['over']), 1)
        self.assertIn('16Gi per 1g.18gb slice', c['over'][0])

    def test_a_wrong_gpulint_fails(self):
        # The checks can fail: against a card whose process got 140000 MiB,
        # node-patch's 143155Mi would be 2.25 % too much.
        card = real_card.collect_captures(H200)
        card['maxdev'] = dict(card['maxdev'], max_alloc_bytes=140000 * real_card.MiB)
        result = real_card.check(GPULINT, card)
        self.assertFalse(result['ok'])
        failed = [c['check'] for c in result['checks'] if not c['ok']]
        self.assertIn('node-patch advertises what a process can get, within 1%', failed)


class Main(unittest.TestCase):
    def test_writes_a_dated_result(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, 'result.json')
            p = subprocess.run([sys.executable, os.path.join(HERE, 'real_card.py'), '--gpulint', GPULINT,
                                '--captures', H200, '--out', out], capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            with open(out) as f:
                result = json.load(f)
            self.assertRegex(result['date'], r'^\d{4}-\d\d-\d\d$')
            self.assertEqual(result['card']['name'], 'NVIDIA H200')
            self.assertEqual(result['card']['driver'], '580.159.04')
            self.assertIn('ok   node-patch advertises what a process can get, within 1%', p.stdout)


if __name__ == '__main__':
    unittest.main()
