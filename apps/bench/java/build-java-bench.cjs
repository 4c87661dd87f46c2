#!/usr/bin/env node
'use strict';
/**
 * Builds the Java bench programs (pom.xml + src/) with Maven into a cache folder outside the repository and
 * returns the classpath, so bench cases can run `java -Xmx512m -cp <classpath> mqkit.bench.PushConsumerBench …`.
 *
 * - Cache: $MQKIT_CACHE_DIR, else $XDG_CACHE_HOME/mqkit, else ~/.cache/mqkit; then bench-java/<hash of the
 *   sources>, so an edited program is rebuilt and an unchanged one is reused.
 * - Tries `mvn -q -B -o package` first (no network when ~/.m2 has everything), then online.
 * - Only the bench script calls this: the nx build never needs Java or Maven.
 *
 * CLI: `node apps/bench/java/build-java-bench.cjs` prints {"classpath": …} or fails saying what to install.
 */
const { spawn, spawnSync } = require('node:child_process');
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const PROJECT_DIR = __dirname;

function cacheRoot(env = process.env) {
  if (env.MQKIT_CACHE_DIR) return env.MQKIT_CACHE_DIR;
  return env.XDG_CACHE_HOME ? path.join(env.XDG_CACHE_HOME, 'mqkit') : path.join(os.homedir(), '.cache', 'mqkit');
}

function listSources(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? listSources(full) : [full];
  });
}

/** Hash of pom.xml and every file under src/: the build folder's name. */
function sourceHash() {
  const hash = createHash('sha256');
  for (const file of [path.join(PROJECT_DIR, 'pom.xml'), ...listSources(path.join(PROJECT_DIR, 'src')).sort()]) {
    hash.update(path.relative(PROJECT_DIR, file)).update('\0').update(fs.readFileSync(file)).update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

function requireTool(command, args, what) {
  const probe = spawnSync(command, args, { encoding: 'utf8', timeout: 60_000 });
  if (probe.error || probe.status !== 0) {
    throw new Error(
      `${what} was not found (${command} ${args.join(' ')} failed): install a Java 17+ JDK and Maven ` +
        '(Debian/Ubuntu: apt-get install openjdk-17-jdk-headless maven) to run the Java comparison benchmarks',
    );
  }
}

function runMaven(args) {
  return new Promise((resolve, reject) => {
    const child = spawn('mvn', args, { cwd: PROJECT_DIR, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (chunk) => {
      output = (output + chunk.toString()).slice(-20_000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

/**
 * Ensures the programs are built; resolves with { classpath, buildDir }. `log` receives progress lines.
 * @param {{ cacheDir?: string, log?: (line: string) => void }} [options]
 */
async function ensureJavaBench(options = {}) {
  const log = options.log ?? (() => undefined);
  const buildDir = path.join(options.cacheDir ?? cacheRoot(), 'bench-java', sourceHash());
  const jar = path.join(buildDir, 'mqkit-bench.jar');
  const classpath = `${jar}${path.delimiter}${path.join(buildDir, 'lib', '*')}`;
  const marker = path.join(buildDir, 'complete');
  if (fs.existsSync(marker) && fs.existsSync(jar)) return { classpath, buildDir };

  requireTool(process.env.JAVA_HOME ? path.join(process.env.JAVA_HOME, 'bin', 'java') : 'java', ['-version'], 'Java');
  requireTool('mvn', ['-v'], 'Maven');
  fs.rmSync(buildDir, { recursive: true, force: true });
  const base = ['-q', '-B', '-f', path.join(PROJECT_DIR, 'pom.xml'), 'package', `-Dmqkit.bench.buildDir=${buildDir}`];
  log(`building Java bench programs into ${buildDir}`);
  let result = await runMaven(['-o', ...base]);
  if (result.code !== 0) {
    log('offline Maven build failed (e.g. artifacts not in ~/.m2 yet); trying online');
    result = await runMaven(base);
  }
  if (result.code !== 0 || !fs.existsSync(jar)) {
    throw new Error(`Maven could not build the Java bench programs (exit ${result.code}):\n${result.output}`);
  }
  fs.writeFileSync(marker, `${new Date().toISOString()}\n`);
  return { classpath, buildDir };
}

/**
 * Picks the `RESULT {…}` line a bench program printed last and parses it.
 * @param {string} stdout
 */
function parseBenchResult(stdout) {
  const line = stdout
    .split('\n')
    .reverse()
    .find((l) => l.startsWith('RESULT {'));
  if (!line) throw new Error(`no RESULT line in the Java program's output:\n${stdout.slice(-2000)}`);
  return JSON.parse(line.slice('RESULT '.length));
}

module.exports = { ensureJavaBench, parseBenchResult, cacheRoot };

if (require.main === module) {
  const started = Date.now();
  ensureJavaBench({ log: (line) => process.stderr.write(`${line}\n`) }).then(
    (result) => process.stdout.write(`${JSON.stringify({ ...result, ms: Date.now() - started })}\n`),
    (error) => {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    },
  );
}
