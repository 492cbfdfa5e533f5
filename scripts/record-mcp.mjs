#!/usr/bin/env node
// Records the tool catalogs of real MCP servers into data/mcp/tools.jsonl.
//
// Installs pinned npm versions into .tools/mcp-servers/ (git-ignored), starts each server over stdio,
// performs the MCP handshake with a minimal JSON-RPC client written here (newline-delimited JSON on the
// child's stdin/stdout), lists every tool (following nextCursor) and writes one line per tool.
// Credentials are dummies: the servers below only need one to start, not to list their tools.
//
//   node scripts/record-mcp.mjs                 install, record every server, write the file
//   node scripts/record-mcp.mjs --no-install    reuse what is already installed
//   node scripts/record-mcp.mjs github notion   record only these (prints, does not write the file)
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const INSTALL_DIR = join(ROOT, '.tools', 'mcp-servers');
const OUT_FILE = join(ROOT, 'data', 'mcp', 'tools.jsonl');
const PROTOCOL_VERSION = '2025-06-18';
const DEFAULT_TIMEOUT_MS = 60_000;

// A scratch directory the filesystem server may "serve"; it only needs to exist.
const scratchDir = mkdtempSync(join(tmpdir(), 'record-mcp-'));

/**
 * The servers, in output order. `args` follow the package's bin; `env` holds the dummy credentials
 * each one checks at start-up. `skip` keeps a server in the table (so the README can say why) without
 * running it.
 */
export const SERVERS = [
  { server: 'github', pkg: '@modelcontextprotocol/server-github', version: '2025.4.8',
    env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'dummy' } },
  { server: 'gitlab', pkg: '@modelcontextprotocol/server-gitlab', version: '2025.4.25',
    env: { GITLAB_PERSONAL_ACCESS_TOKEN: 'dummy', GITLAB_API_URL: 'https://gitlab.example.invalid/api/v4' } },
  { server: 'slack', pkg: '@modelcontextprotocol/server-slack', version: '2025.4.25',
    env: { SLACK_BOT_TOKEN: 'xoxb-dummy', SLACK_TEAM_ID: 'T00000000' } },
  { server: 'filesystem', pkg: '@modelcontextprotocol/server-filesystem', version: '2026.8.31',
    args: [scratchDir] },
  { server: 'memory', pkg: '@modelcontextprotocol/server-memory', version: '2026.8.31',
    env: { MEMORY_FILE_PATH: join(scratchDir, 'memory.jsonl') } },
  { server: 'everything', pkg: '@modelcontextprotocol/server-everything', version: '2026.8.31',
    args: ['stdio'] },
  { server: 'postgres', pkg: '@modelcontextprotocol/server-postgres', version: '0.6.2',
    args: ['postgresql://dummy:dummy@127.0.0.1:1/dummy'] },
  { server: 'playwright', pkg: '@playwright/mcp', version: '0.0.86', args: ['--headless'] },
  { server: 'notion', pkg: '@notionhq/notion-mcp-server', version: '2.5.2',
    env: { NOTION_TOKEN: 'ntn_dummy',
      OPENAPI_MCP_HEADERS: JSON.stringify({ Authorization: 'Bearer ntn_dummy', 'Notion-Version': '2022-06-28' }) } },
  { server: 'stripe', pkg: '@stripe/mcp', version: '0.2.5', args: ['--tools=all', '--api-key=sk_test_dummy'],
    env: { STRIPE_SECRET_KEY: 'sk_test_dummy' } },
  { server: 'supabase', pkg: '@supabase/mcp-server-supabase', version: '0.13.0',
    // Every feature group but `docs`: that one fetches the docs GraphQL schema before it can list tools.
    args: ['--access-token=sbp_dummy', '--features=account,database,debugging,development,functions,branching,storage'],
    env: { SUPABASE_ACCESS_TOKEN: 'sbp_dummy' } },
  { server: 'plane', pkg: '@makeplane/plane-mcp-server', version: '0.1.5',
    env: { PLANE_API_KEY: 'dummy', PLANE_WORKSPACE_SLUG: 'dummy', PLANE_API_HOST_URL: 'https://plane.example.invalid/' } },
  { server: 'hubspot', pkg: '@hubspot/mcp-server', version: '0.4.0',
    env: { PRIVATE_APP_ACCESS_TOKEN: 'pat-na1-dummy' } },
  { server: 'sentry', pkg: '@sentry/mcp-server', version: '0.39.0',
    args: ['--access-token=dummy'], env: { SENTRY_ACCESS_TOKEN: 'dummy' } },
  { server: 'apify', pkg: '@apify/actors-mcp-server', version: '0.16.0',
    env: { APIFY_TOKEN: 'dummy', TELEMETRY_ENABLED: 'false' },
    skip: 'refuses to start on Node.js < 22 (this machine has Node 20); it also loads its Actor tools from api.apify.com' },
  // 'all' mode lists every command as its own tool (the default 'namespace' mode gives one tool per
  // service). A dozen common services keep Azure from outweighing the other servers.
  { server: 'azure', pkg: '@azure/mcp', version: '2.0.5',
    args: ['server', 'start', '--mode', 'all',
      ...['storage', 'keyvault', 'sql', 'compute', 'eventhubs', 'appconfig', 'cosmos', 'redis', 'aks', 'group',
        'subscription', 'workbooks'].flatMap((ns) => ['--namespace', ns])],
    env: { AZURE_MCP_COLLECT_TELEMETRY: 'false' }, timeoutMs: 120_000 },
  { server: 'upstash', pkg: '@upstash/mcp-server', version: '0.3.0',
    args: ['--email', 'dummy@example.com', '--api-key', 'dummy'],
    env: { UPSTASH_EMAIL: 'dummy@example.com', UPSTASH_API_KEY: 'dummy' },
    skip: 'calls api.upstash.com at start-up to check the API key, and exits when it cannot' },
  { server: 'cloudflare', pkg: '@cloudflare/mcp-server-cloudflare', version: '0.2.0',
    args: ['run', '00000000000000000000000000000000'], env: { CLOUDFLARE_API_TOKEN: 'dummy' } },
  { server: 'kubernetes', pkg: 'mcp-server-kubernetes', version: '4.1.7' },
  { server: 'mysql', pkg: '@benborla29/mcp-server-mysql', version: '2.0.9',
    env: { MYSQL_HOST: '127.0.0.1', MYSQL_PORT: '1', MYSQL_USER: 'dummy', MYSQL_PASS: 'dummy', MYSQL_DB: 'dummy' },
    skip: 'exits at start-up, before answering initialize, when no MySQL server is reachable' },
];

function install(servers) {
  mkdirSync(INSTALL_DIR, { recursive: true });
  const manifest = join(INSTALL_DIR, 'package.json');
  if (!existsSync(manifest)) writeFileSync(manifest, JSON.stringify({ name: 'mcp-servers-scratch', private: true }) + '\n');
  // --ignore-scripts: no browser or binary downloads at install time (only npm is reachable here).
  const specs = servers.map((s) => `${s.pkg}@${s.version}`);
  const r = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--legacy-peer-deps', '--save-exact', ...specs],
    { cwd: INSTALL_DIR, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`npm install failed (${r.status})`);
}

function binPath(pkg) {
  const dir = join(INSTALL_DIR, 'node_modules', pkg);
  const meta = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const bin = typeof meta.bin === 'string' ? meta.bin : Object.values(meta.bin ?? {})[0];
  if (!bin) throw new Error(`${pkg} has no bin`);
  return { file: join(dir, bin), version: meta.version, license: meta.license };
}

/** Starts one server and returns its tools, or throws with the server's last stderr lines. */
export function listTools(spec) {
  const { file, version } = binPath(spec.pkg);
  if (version !== spec.version) throw new Error(`installed ${spec.pkg}@${version}, pinned ${spec.version}`);
  const child = spawn(process.execPath, [file, ...(spec.args ?? [])], {
    cwd: scratchDir,
    env: { ...process.env, ...spec.env, NODE_NO_WARNINGS: '1' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr = (stderr + d).slice(-4000); });

  const pending = new Map();
  let nextId = 1;
  let buffer = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    buffer += chunk;
    let nl;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl).trim();
      buffer = buffer.slice(nl + 1);
      if (!line.startsWith('{')) continue; // some servers print banners on stdout
      let msg;
      try { msg = JSON.parse(line); } catch { continue; }
      if (msg.id !== undefined && pending.has(msg.id) && (msg.result !== undefined || msg.error !== undefined)) {
        const { resolve: ok, reject } = pending.get(msg.id);
        pending.delete(msg.id);
        msg.error ? reject(new Error(`${msg.error.code}: ${msg.error.message}`)) : ok(msg.result);
      } else if (msg.id !== undefined && msg.method) {
        // A request from the server (roots/list, ping…): answer so it does not wait on us.
        const result = msg.method === 'roots/list' ? { roots: [] } : {};
        child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }) + '\n');
      }
    }
  });
  const send = (method, params) => new Promise((ok, reject) => {
    const id = nextId++;
    pending.set(id, { resolve: ok, reject });
    child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
  });
  const notify = (method, params) => child.stdin.write(JSON.stringify({ jsonrpc: '2.0', method, params }) + '\n');

  const exited = new Promise((_, reject) => child.on('exit', (code, signal) =>
    reject(new Error(`exited (${code ?? signal}) before listing tools`))));
  child.stdin.on('error', () => {}); // EPIPE when the server dies; reported by `exited`
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${(spec.timeoutMs ?? DEFAULT_TIMEOUT_MS) / 1000} s`)),
      spec.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  });

  const session = (async () => {
    const init = await send('initialize', {
      protocolVersion: PROTOCOL_VERSION,
      capabilities: { roots: { listChanged: false } },
      clientInfo: { name: 'record-mcp', version: '1.0.0' },
    });
    notify('notifications/initialized', {});
    const tools = [];
    let cursor;
    do {
      const page = await send('tools/list', cursor ? { cursor } : {});
      tools.push(...(page.tools ?? []));
      cursor = page.nextCursor;
    } while (cursor);
    return { serverInfo: init.serverInfo, tools };
  })();

  return Promise.race([session, exited, timeout])
    .catch((e) => {
      const tail = stderr.trim().split('\n').slice(-3).join(' | ');
      throw new Error(tail ? `${e.message}; stderr: ${tail}` : e.message);
    })
    .finally(() => {
      clearTimeout(timer);
      child.kill('SIGKILL');
    });
}

async function main() {
  const argv = process.argv.slice(2);
  const only = argv.filter((a) => !a.startsWith('--'));
  const servers = SERVERS.filter((s) => !s.skip && (only.length === 0 || only.includes(s.server)));
  if (!argv.includes('--no-install')) install(servers);

  const lines = [];
  const summary = [];
  for (const spec of servers) {
    const started = Date.now();
    try {
      const { tools } = await listTools(spec);
      const names = new Set();
      for (const t of tools) {
        if (names.has(t.name)) throw new Error(`duplicate tool name ${t.name}`);
        names.add(t.name);
        lines.push(JSON.stringify({
          server: spec.server, package: spec.pkg, version: spec.version, name: t.name,
          description: t.description ?? '', inputSchema: t.inputSchema ?? { type: 'object' },
        }));
      }
      summary.push({ server: spec.server, tools: tools.length, license: binPath(spec.pkg).license });
      console.error(`ok   ${spec.server.padEnd(12)} ${String(tools.length).padStart(4)} tools  ${Date.now() - started} ms`);
    } catch (e) {
      summary.push({ server: spec.server, error: e.message });
      console.error(`FAIL ${spec.server.padEnd(12)} ${e.message}`);
    }
  }
  rmSync(scratchDir, { recursive: true, force: true });
  if (only.length === 0) {
    mkdirSync(dirname(OUT_FILE), { recursive: true });
    writeFileSync(OUT_FILE, lines.join('\n') + '\n');
    console.error(`wrote ${lines.length} tools to ${OUT_FILE}`);
  }
  console.log(JSON.stringify(summary, null, 1));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((e) => { console.error(e); process.exit(1); });
}
