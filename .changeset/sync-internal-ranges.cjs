#!/usr/bin/env node
// After `changeset version`: points every workspace package's @mqkit dependency at the version the fixed group
// now has. Changesets is told to leave these ranges alone (bumpVersionsWithWorkspaceProtocolOnly): for a peer
// dependency it would otherwise bump every plugin, and so the whole fixed group, a major version on each release
// of core. The policy here is the one test/src/packaging checks:
// - peerDependencies: `^<version>` (the app brings core; any patch of the same minor fits);
// - dependencies of a published package (the CLI): `^<version>`;
// - everything else (devDependencies, private apps): exactly `<version>`, the workspace's own copy.
// `--check` changes nothing and exits 1 when a range is off (CI could run it; `version-packages` fixes it).
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const check = process.argv.includes('--check');

function workspaceDirs() {
  const { workspaces } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  return workspaces.flatMap((pattern) => {
    if (!pattern.endsWith('/*')) return [path.join(root, pattern)];
    const parent = path.join(root, pattern.slice(0, -2));
    return fs
      .readdirSync(parent, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => path.join(parent, entry.name));
  });
}

const packages = workspaceDirs()
  .map((dir) => ({ dir, file: path.join(dir, 'package.json') }))
  .filter(({ file }) => fs.existsSync(file))
  .map((p) => ({ ...p, text: fs.readFileSync(p.file, 'utf8') }))
  .map((p) => ({ ...p, manifest: JSON.parse(p.text) }));
const versions = new Map(packages.map(({ manifest }) => [manifest.name, manifest.version]));

function wanted(section, published, version) {
  if (section === 'peerDependencies') return `^${version}`;
  if (section === 'dependencies' && published) return `^${version}`;
  return version;
}

const off = [];
for (const pkg of packages) {
  const published = pkg.manifest.private !== true;
  let changed = false;
  for (const section of ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies']) {
    const deps = pkg.manifest[section];
    if (!deps) continue;
    for (const name of Object.keys(deps)) {
      const version = versions.get(name);
      if (version === undefined) continue;
      const range = wanted(section, published, version);
      if (deps[name] === range) continue;
      off.push(`${path.relative(root, pkg.file)}: ${section}.${name} is ${deps[name]}, should be ${range}`);
      deps[name] = range;
      changed = true;
    }
  }
  if (changed && !check) fs.writeFileSync(pkg.file, `${JSON.stringify(pkg.manifest, null, 2)}\n`);
}

for (const line of off) console.error(`${check ? '' : 'updated '}${line}`);
if (check && off.length > 0) process.exit(1);
