#!/usr/bin/env node
// `prepublishOnly`: refuses `npm publish` of the repository folder unless its manifest carries the
// exact-version optionalDependencies on every platform package (package.json "napi.targets").
// Without them, an install of the published package gets no native binary on any platform, and
// a plain `npm publish` from a clone is exactly that. Releases publish the tarballs
// `npm run pack:release` writes into release/ (they carry the platform packages, and no scripts
// or devDependencies), as the release workflow does.
//   node scripts/publish-guard.mjs [path/to/package.json]   (default: the repository's)
import { readFileSync } from 'node:fs';
import { optionalDependencies } from './pack-release.mjs';
import { pkg } from './lib/tools.mjs';

const p = process.argv[2] ? JSON.parse(readFileSync(process.argv[2], 'utf8')) : pkg();
const wanted = optionalDependencies(p);
const have = p.optionalDependencies ?? {};
const wrong = Object.entries(wanted).filter(([name, version]) => have[name] !== version);
if (wrong.length > 0) {
  console.error(
    [
      `npm publish refused: package.json does not list the platform packages as optionalDependencies`,
      `(${wrong.map(([name, version]) => `${name}@${version}`).join(', ')} ${wrong.length === 1 ? 'is' : 'are'} missing or at another version),`,
      `so an install would get no native binary. Publish the release tarballs instead:`,
      `  npm run pack:release     # writes release/*.tgz: the platform packages and the main package with them`,
      `  npm publish release/<name>-<version>.tgz   # each platform package first, then the main package`,
    ].join('\n'),
  );
  process.exit(1);
}
