// Import cost in a fresh process: an app that already uses Mastra (`@mastra/core/agent` loaded)
// then loads the processors, from @mastra/core/processors (reference) or from this package.
// Each sample is its own child process; medians of `samples` runs.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './util.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function sample(kind, specifier) {
  const code =
    kind === 'esm'
      ? `await import('@mastra/core/agent'); const t0 = performance.now(); await import('${specifier}'); console.log(performance.now() - t0);`
      : `require('@mastra/core/agent'); const t0 = performance.now(); require('${specifier}'); console.log(performance.now() - t0);`;
  const args = kind === 'esm' ? ['--input-type=module', '-e', code] : ['-e', code];
  const r = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`import-time sample failed: ${r.stderr}`);
  return Number(r.stdout.trim());
}

export async function run({ samples = 7 } = {}) {
  const rows = [];
  for (const [kind, label] of [
    ['esm', 'import in an ESM app (after @mastra/core/agent)'],
    ['cjs', 'require in a CommonJS app (after @mastra/core/agent)'],
  ]) {
    const reference = [];
    const ours = [];
    for (let i = 0; i < samples; i++) {
      reference.push(sample(kind, '@mastra/core/processors'));
      ours.push(sample(kind, 'mastra-native-processors'));
    }
    const reference_ms = median(reference);
    const native_ms = median(ours);
    rows.push({ name: label, reference_ms, native_ms, ratio: reference_ms / native_ms });
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { printTable } = await import('./util.mjs');
  printTable('Import time', await run());
}
