#!/usr/bin/env python3
"""Checks gpulint against a real NVIDIA card (docs/gpus.md).

On a machine with an NVIDIA GPU and its driver (nothing else: the largest
allocation is measured through the CUDA driver API, libcuda.so.1, by ctypes):

  bench/real_card.py [--gpulint build/gpulint] [--gpu 0] [--out FILE]

  1. reads the card from nvidia-smi: the query gpulint node-patch prints
     (index, name, memory.total, memory.reserved), and nvidia-smi mig -lgip
     where MIG is on;
  2. measures what one process gets: the device's total and what is free once
     its CUDA context exists (the context's size), then the largest device
     memory it can allocate, 1 GiB at a time, then 1 MiB;
  3. runs gpulint node-patch on the query's output, and gpulint check with a
     Node labelled as GPU Feature Discovery labels that card and pods
     declaring VRAM: what the process got must pass vram-exceeds-gpu and
     memory.total must not; what node-patch advertises must be within 1 % of
     what the process got; with MIG, each slice's real size against
     gpulint's table;
  4. writes the result, dated, to testdata/gpu/<card>/result-<date>.json
     (or --out), and exits 1 when a check failed.

Without a GPU, --captures DIR takes steps 1 and 2 from files recorded on the
card (testdata/gpu/h200: query-index-name-total-reserved.csv, maxdev.json,
mig-lgip.txt, smi-q.txt), which is how bench/real_card_test.py checks this
script's reading and arithmetic.
"""
import argparse
import ctypes
import datetime
import json
import os
import re
import subprocess
import sys
import tempfile

MiB = 1 << 20
GiB = 1 << 30
QUERY = ['nvidia-smi', '--query-gpu=index,name,memory.total,memory.reserved,mig.mode.current,driver_version',
         '--format=csv,noheader,nounits']


# ---- reading what nvidia-smi prints -------------------------------------------------------

def parse_query(text):
    """GPUs of the query gpulint node-patch prints (3 or 4 columns), and the
    extra columns this script asks for: a list of dicts."""
    gpus = []
    for line in text.splitlines():
        fields = [f.strip() for f in line.split(',')]
        if not line.strip() or fields[0] == 'index':
            continue
        if len(fields) < 3:
            raise ValueError(f'not an nvidia-smi query line: {line!r}')
        gpu = {'index': int(fields[0]), 'name': fields[1], 'memory_total_mib': mib(fields[2])}
        if len(fields) > 3:
            gpu['memory_reserved_mib'] = mib(fields[3])
        if len(fields) > 4:
            gpu['mig_mode'] = fields[4]
        if len(fields) > 5:
            gpu['driver'] = fields[5]
        gpus.append(gpu)
    return gpus


def mib(text):
    text = text.strip()
    if text.startswith('['):
        return None  # [N/A], [Not Supported]
    return int(text.split()[0])


def parse_smi_q(text):
    """The fields of nvidia-smi -q this script reports: driver, product,
    architecture, FB memory total and reserved."""
    out = {}
    section = ''
    for line in text.splitlines():
        m = re.match(r'^(\s*)([^:]+?)\s*:\s*(.*)$', line)
        if not m:
            section = line.strip()
            continue
        key, value = m.group(2).strip(), m.group(3).strip()
        if key == 'Driver Version':
            out['driver'] = value
        elif key == 'CUDA Version':
            out['cuda'] = value
        elif key == 'Product Name':
            out['product'] = value
        elif key == 'Product Architecture':
            out['architecture'] = value
        elif section == 'FB Memory Usage' and key in ('Total', 'Reserved'):
            out['fb_' + key.lower() + '_mib'] = mib(value)
    return out


def parse_lgip(text):
    """nvidia-smi mig -lgip: {profile: MiB}, GiB printed with two decimals
    read as the largest size they stand for (as gpulint's table keeps them)."""
    sizes = {}
    for line in text.splitlines():
        m = re.match(r'^\|\s+\d+\s+MIG (\S+)\s+\d+\s+\d+/\d+\s+(\d+)\.(\d\d)\s', line)
        if not m or '+' in m.group(1):
            continue
        hundredths = int(m.group(2)) * 100 + int(m.group(3))
        # Sizes are whole multiples of 1/8 GiB (128 MiB) at most as fine as
        # nvidia-smi can print: 19.62 is 19.625.
        sizes[m.group(1)] = -(-(hundredths * 1024 // 100) // 128) * 128 if hundredths % 25 else \
            hundredths * 1024 // 100
    return sizes


def cgroup_steps(jsonl):
    """testdata/gpu/h200/measure.jsonl (mem.py measure): for each step, the
    rise of the node's used memory, of the process's cgroup (memory.current)
    and the difference, the memory outside the cgroup, in MiB."""
    snaps = [json.loads(line) for line in jsonl.splitlines() if line.strip()]
    steps = []
    for before, after in zip(snaps, snaps[1:]):
        node = (after['host_used'] - before['host_used']) / MiB
        cgroup = (after['cg_current'] - before['cg_current']) / MiB
        steps.append({'step': after['label'], 'node_mib': round(node, 1),
                      'cgroup_mib': round(cgroup, 1), 'outside_mib': round(node - cgroup, 1)})
    return steps


def gfd_product(name):
    """nvidia-smi's name as GPU Feature Discovery labels it."""
    return name.replace(' ', '-')


# ---- measuring, on the card itself -------------------------------------------------------

def measure_max_alloc(gpu):
    """What one process gets of GPU `gpu` (an index among the devices CUDA
    sees): the device's total, free after the context, and the largest
    allocation, through libcuda.so.1 alone."""
    cuda = ctypes.CDLL('libcuda.so.1')

    def check(rc, what):
        if rc != 0:
            raise RuntimeError(f'{what} failed: CUresult {rc}')

    check(cuda.cuInit(0), 'cuInit')
    dev = ctypes.c_int()
    check(cuda.cuDeviceGet(ctypes.byref(dev), gpu), 'cuDeviceGet')
    ctx = ctypes.c_void_p()
    check(cuda.cuCtxCreate_v2(ctypes.byref(ctx), 0, dev), 'cuCtxCreate')
    free, total = ctypes.c_size_t(), ctypes.c_size_t()
    check(cuda.cuMemGetInfo_v2(ctypes.byref(free), ctypes.byref(total)), 'cuMemGetInfo')
    held, got = [], 0
    for step in (GiB, MiB):
        while True:
            ptr = ctypes.c_uint64()
            if cuda.cuMemAlloc_v2(ctypes.byref(ptr), ctypes.c_size_t(step)) != 0:
                break
            held.append(ptr)
            got += step
    for ptr in held:
        cuda.cuMemFree_v2(ptr)
    cuda.cuCtxDestroy_v2(ctx)
    return {'dev_total': total.value, 'dev_free_after_context': free.value, 'max_alloc_bytes': got}


def run(cmd, stdin=None):
    p = subprocess.run(cmd, input=stdin, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def collect_live(gpu):
    rc, query, err = run(QUERY)
    if rc != 0:
        raise RuntimeError(f'nvidia-smi failed: {err.strip()}')
    card = {'query': query}
    _, card['smi_q'], _ = run(['nvidia-smi', '-q', '-i', str(gpu)])
    gpus = parse_query(query)
    if any(g.get('mig_mode') == 'Enabled' for g in gpus):
        _, card['lgip'], _ = run(['nvidia-smi', 'mig', '-lgip', '-i', str(gpu)])
        card['maxdev'] = None  # CUDA sees MIG devices, not the GPU: measured slice by slice elsewhere
    else:
        card['maxdev'] = measure_max_alloc(gpu)
    return card


def collect_captures(directory):
    def read(name):
        path = os.path.join(directory, name)
        if not os.path.exists(path):
            return None
        with open(path) as f:
            return f.read()
    card = {'query': read('query-index-name-total-reserved.csv'), 'smi_q': read('smi-q.txt'),
            'lgip': read('mig-lgip.txt')}
    maxdev = read('maxdev.json')
    card['maxdev'] = json.loads(maxdev) if maxdev else None
    return card


# ---- gpulint against the card ------------------------------------------------------------

def quantity_bytes(q):
    m = re.fullmatch(r'(\d+)(Ki|Mi|Gi|Ti)?', q)
    if not m:
        raise ValueError(f'not a plain binary quantity: {q}')
    return int(m.group(1)) * {None: 1, 'Ki': 1 << 10, 'Mi': MiB, 'Gi': GiB, 'Ti': 1 << 40}[m.group(2)]


def node_patch(gpulint, query_text):
    """What gpulint node-patch advertises for the query's output, in bytes."""
    rc, out, err = run([gpulint, 'node-patch', '--node', 'card'], stdin=query_text)
    if rc != 0:
        raise RuntimeError(f'gpulint node-patch failed ({rc}): {err.strip()}')
    patch = json.loads(out)
    return quantity_bytes(patch[0]['value']), err


NODE = '''apiVersion: v1
kind: Node
metadata:
  name: card
  labels:
    nvidia.com/gpu.count: "1"
    nvidia.com/gpu.product: {product}
    nvidia.com/gpu.memory: "{memory}"
{extra}status:
  allocatable: {{cpu: "64", memory: 512Gi, nvidia.com/gpu: "1"{allocatable}}}
'''

POD = '''apiVersion: v1
kind: Pod
metadata:
  name: {name}
  annotations: {{gpulint.io/vram: {vram}}}
spec:
  containers:
  - name: main
    image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04
    resources:
      limits: {{memory: 8Gi, {resource}: 1}}
'''


def vram_verdicts(gpulint, product, memory_mib, pods, mig_profiles=()):
    """gpulint check of `pods` ([(name, vram, resource)]) against one Node
    labelled as GFD labels this card: {name: [vram-exceeds-gpu messages]}."""
    extra = ''
    allocatable = ''
    if mig_profiles:
        extra = '    nvidia.com/mig.strategy: mixed\n'
        allocatable = ''.join(f', nvidia.com/mig-{p}: "1"' for p in mig_profiles)
    with tempfile.TemporaryDirectory() as tmp:
        nodes = os.path.join(tmp, 'nodes.yaml')
        with open(nodes, 'w') as f:
            f.write(NODE.format(product=product, memory=memory_mib, extra=extra, allocatable=allocatable))
        manifests = os.path.join(tmp, 'pods.yaml')
        with open(manifests, 'w') as f:
            f.write('---\n'.join(POD.format(name=n, vram=v, resource=r) for n, v, r in pods))
        rc, out, err = run([gpulint, 'check', '--nodes', nodes, '--format', 'json', '--fail-on', 'none',
                            manifests])
        if rc != 0:
            raise RuntimeError(f'gpulint check failed ({rc}): {err.strip()}')
    verdicts = {n: [] for n, _, _ in pods}
    for finding in json.loads(out)['findings']:
        if finding['rule'] == 'vram-exceeds-gpu':
            verdicts[finding['object']['name']].append(finding['message'])
    return verdicts


def check(gpulint, card, gpu=0):
    result = {'checks': [], 'ok': True}

    def record(name, ok, **detail):
        result['checks'].append(dict(check=name, ok=bool(ok), **detail))
        result['ok'] = result['ok'] and bool(ok)

    gpus = parse_query(card['query'])
    this = next(g for g in gpus if g['index'] == gpu)
    result['card'] = {'name': this['name'], 'gfd_product': gfd_product(this['name']),
                      'memory_total_mib': this['memory_total_mib'],
                      'memory_reserved_mib': this.get('memory_reserved_mib')}
    if card.get('smi_q'):
        result['card'].update(parse_smi_q(card['smi_q']))
    # node-patch reads the query it prints: the four columns of this GPU.
    line = f"{this['index']}, {this['name']}, {this['memory_total_mib']}, " + (
        str(this['memory_reserved_mib']) if this.get('memory_reserved_mib') is not None else '[N/A]')
    advertised, said = node_patch(gpulint, line + '\n')
    result['node_patch'] = {'advertised_bytes': advertised, 'advertised_mib': advertised // MiB,
                            'stderr': said.strip().splitlines()}
    m = re.search(r'a process gets at most (\d+) B', said)
    process_share = int(m.group(1)) if m else None
    result['node_patch']['process_share_bytes'] = process_share

    maxdev = card.get('maxdev')
    if maxdev:
        got = maxdev['max_alloc_bytes']
        context = maxdev['dev_total'] - maxdev['dev_free_after_context']
        result['measured'] = {'max_alloc_bytes': got, 'max_alloc_mib': got / MiB,
                              'cuda_total_mib': round(maxdev['dev_total'] / MiB, 1),
                              'context_mib': round(context / MiB, 1)}
        off = (advertised - got) / got * 100
        record('node-patch advertises what a process can get, within 1%', abs(off) <= 1,
               advertised_mib=advertised // MiB, max_alloc_mib=got // MiB, percent=round(off, 2))
        if process_share is not None:
            share_off = (process_share - got) / got * 100
            record("gpulint's figure for one process is what it got, within 1%", abs(share_off) <= 1,
                   process_share_mib=process_share // MiB, max_alloc_mib=got // MiB,
                   percent=round(share_off, 2))
        pods = [('what-a-process-got', f'{got // MiB}Mi', 'nvidia.com/gpu'),
                ('memory-total', f"{this['memory_total_mib']}Mi", 'nvidia.com/gpu')]
        verdicts = vram_verdicts(gpulint, gfd_product(this['name']), this['memory_total_mib'], pods)
        record('vram-exceeds-gpu passes what a process got', not verdicts['what-a-process-got'],
               declared=pods[0][1], findings=verdicts['what-a-process-got'])
        record('vram-exceeds-gpu refuses memory.total', len(verdicts['memory-total']) == 1,
               declared=pods[1][1], findings=verdicts['memory-total'])

    if card.get('lgip'):
        sizes = parse_lgip(card['lgip'])
        result['mig'] = {'lgip_mib': sizes}
        context = 621  # gpulint's default vram.contextPerGpu, as the checks below assume
        pods = []
        for profile, size in sizes.items():
            pods.append((f'{profile}-fits', f'{size - context}Mi', f'nvidia.com/mig-{profile}'))
            pods.append((f'{profile}-over', f'{size - context + 1}Mi', f'nvidia.com/mig-{profile}'))
        verdicts = vram_verdicts(gpulint, gfd_product(this['name']), this['memory_total_mib'], pods,
                                 mig_profiles=list(sizes))
        for profile, size in sizes.items():
            over = verdicts[f'{profile}-over']
            known = any(f'per {profile} slice' in msg for msg in over)
            record(f'MIG {profile}: gpulint judges it at its real size, {size} MiB',
                   known and not verdicts[f'{profile}-fits'],
                   fits=verdicts[f'{profile}-fits'], over=over,
                   note='' if over else 'gpulint does not know this profile: add it to its table')
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--gpulint', default=os.path.join(os.path.dirname(__file__), '..', 'build', 'gpulint'))
    ap.add_argument('--gpu', type=int, default=0)
    ap.add_argument('--captures', help='a directory of captures instead of the card (no GPU needed)')
    ap.add_argument('--out', help='where to write the result (default: testdata/gpu/<card>/result-<date>.json)')
    args = ap.parse_args()
    card = collect_captures(args.captures) if args.captures else collect_live(args.gpu)
    result = check(args.gpulint, card, args.gpu)
    result['date'] = datetime.date.today().isoformat()
    result['source'] = f'captures in {args.captures}' if args.captures else 'measured on this machine'
    out = args.out
    if not out:
        slug = re.sub(r'[^a-z0-9]+', '-', result['card']['name'].lower().replace('nvidia', '')).strip('-')
        out = os.path.join(os.path.dirname(__file__), '..', 'testdata', 'gpu', slug, f"result-{result['date']}.json")
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, 'w') as f:
        json.dump(result, f, indent=2, sort_keys=True)
        f.write('\n')
    for c in result['checks']:
        print(('ok   ' if c['ok'] else 'FAIL ') + c['check'])
    print(f'result: {out}')
    return 0 if result['ok'] else 1


if __name__ == '__main__':
    sys.exit(main())
