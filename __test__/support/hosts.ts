// The host matrix: every @mastra/core this package supports, installed side by side in
// hosts/<version>/ (scripts/hosts.mjs), with this package staged into each. `loadHost(v)` loads
// one host's modules and our package *from that host's folder*, so our processors run against
// exactly that host (its createTool, its version in the capability table).
import { createRequire } from 'node:module';
import { readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

export const HOSTS_DIR = resolve(__dirname, '../../hosts');

/** Host versions in the matrix, oldest first. */
export const HOST_VERSIONS: string[] = readdirSync(HOSTS_DIR)
  .filter((name) => /^\d+\.\d+\.\d+$/.test(name))
  .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));

export type Host = {
  version: string;
  dir: string;
  agent: any;
  processors: any;
  tools: any;
  requestContext: any;
  workspace: any;
  memory: any;
  libsql: any;
  zod: any;
  /** This package, staged into the host folder and loaded from there. */
  ours: any;
  /** Our host capability module as loaded by `ours` (the table the processors ask). */
  ourHost: any;
  /** require() relative to the host folder, for anything else. */
  require: NodeRequire;
};

const cache = new Map<string, Host>();

/** Loads @mastra/core, @mastra/memory, @mastra/libsql, zod and our package from hosts/<version>. */
export function loadHost(version: string): Host {
  const cached = cache.get(version);
  if (cached) return cached;
  const dir = join(HOSTS_DIR, version);
  const req = createRequire(join(dir, 'package.json'));
  const installed = req('@mastra/core/package.json').version;
  if (installed !== version) throw new Error(`hosts/${version} holds @mastra/core ${installed}; run node scripts/hosts.mjs setup`);
  const host: Host = {
    version,
    dir,
    agent: req('@mastra/core/agent'),
    processors: req('@mastra/core/processors'),
    tools: req('@mastra/core/tools'),
    requestContext: req('@mastra/core/request-context'),
    workspace: req('@mastra/core/workspace'),
    memory: req('@mastra/memory'),
    libsql: req('@mastra/libsql'),
    zod: req('zod'),
    ours: req('mastra-native-processors'),
    ourHost: req(join(dirname(req.resolve('mastra-native-processors')), 'js', 'host.js')),
    require: req,
  };
  cache.set(version, host);
  return host;
}
