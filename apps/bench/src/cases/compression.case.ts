import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { BenchCase } from './bench-case';
import { flag, log } from './bench-util';
import { javaRunner, runNodeChild } from './bench-process';

const TYPES = ['ZLIB', 'LZ4', 'ZSTD'] as const;

/**
 * The corpus: 1 MiB of JSON order lines, the kind of body a producer compresses (over 4 KiB). Deterministic, so
 * every run and both clients compress the same bytes.
 */
function corpus(): Buffer {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < 1024 * 1024; i++) {
    const line = JSON.stringify({
      orderId: `order-${i}`,
      customer: `customer-${(i * 7919) % 5003}`,
      amount: ((i * 104729) % 100_000) / 100,
      items: [`sku-${i % 97}`, `sku-${(i * 31) % 211}`],
      status: ['NEW', 'PAID', 'SHIPPED'][i % 3],
    });
    lines.push(line);
    size += line.length + 1;
  }
  return Buffer.from(lines.join('\n')).subarray(0, 1024 * 1024);
}

/** The newest Node CI tests on (.ci/newest-node.sh fetches it into the cache), or undefined when it cannot. */
function newestNode(): string | undefined {
  try {
    const script = resolve(__dirname, '..', '..', '..', '..', '.ci', 'newest-node.sh');
    return execFileSync('bash', [script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

interface CodecFigure {
  readonly client: string;
  readonly runtime: string;
  readonly type: string;
  readonly provider: string;
  readonly encodeMsPerMiB: number;
  readonly decodeMsPerMiB: number;
  readonly ratio: number;
}

/**
 * `npm run bench -- compression [--level 5] [--seconds 2]`: what each compression type costs per MiB, to compress
 * (a producer) and to inflate (a consumer), for mqkit on this Node and on the newest Node, and for RocketMQ's own
 * Java compressors on the same corpus, each type in its own process.
 */
export const compressionCase: BenchCase = {
  name: 'compression',
  embedded: true,
  description: 'compress and inflate cost per MiB, ZLIB, LZ4 and ZSTD: mqkit on two Nodes and RocketMQ Java',
  async run(args) {
    const level = flag(args, '--level', 5);
    const measureMs = flag(args, '--seconds', 2) * 1000;
    const warmupMs = 1000;
    const dir = mkdtempSync(join(tmpdir(), 'mqkit-bench-codec-'));
    const corpusFile = join(dir, 'corpus.json');
    writeFileSync(corpusFile, corpus());
    log(
      `settings: a 1 MiB corpus of JSON order lines, level ${level}, ${warmupMs} ms warm-up then ${measureMs} ms per step`,
    );
    const nodes = [process.execPath, newestNode()].filter((n): n is string => n !== undefined);
    if (nodes.length === 1) log('settings: the newest Node could not be fetched (.ci/newest-node.sh); this Node only');
    const figures: CodecFigure[] = [];
    const java = await javaRunner(log);
    try {
      for (const type of TYPES) {
        for (const node of nodes) {
          const r = await runNodeChild(
            'codec-cost.child.cjs',
            { type, level, corpusFile, warmupMs, measureMs },
            { timeoutMs: 120_000, node, nodeFlags: [] },
          ).result;
          figures.push(figure(r, `Node ${String(r.node)}`, String(r.provider)));
        }
        const j = await java.run(
          'CompressionBench',
          [type, String(level), corpusFile, String(warmupMs), String(measureMs)],
          120_000,
        ).result;
        figures.push(figure(j, `Java ${String(j.java)}`, 'rocketmq-common'));
      }
    } finally {
      java.close();
      rmSync(dir, { recursive: true, force: true });
    }
    for (const f of figures)
      log(
        `${f.type} ${f.client} (${f.runtime}, ${f.provider}): compress ${f.encodeMsPerMiB} ms/MiB, inflate ${f.decodeMsPerMiB} ms/MiB, ratio ${f.ratio}`,
      );
    return { level, figures };
  },
  tableRow(file) {
    const figures = file.result.figures as CodecFigure[];
    const cell = (type: string) =>
      figures
        .filter((f) => f.type === type)
        .map(
          (f) =>
            `${f.client === 'java' ? 'Java' : f.runtime.replace('Node ', 'Node ')} ${f.encodeMsPerMiB}/${f.decodeMsPerMiB}`,
        )
        .join(', ');
    return {
      measured: `compress/inflate cost of a 1 MiB JSON corpus at level ${String(file.result.level)}, ms per MiB of the original body, each type and client in its own process, after a warm-up`,
      result: TYPES.map((t) => `${t}: ${cell(t)}`).join('; '),
      target: 'a figure, no target',
    };
  },
};

function figure(r: Record<string, unknown>, runtime: string, provider: string): CodecFigure {
  return {
    client: String(r.client),
    runtime,
    type: String(r.type),
    provider,
    encodeMsPerMiB: Number(r.encodeMsPerMiB),
    decodeMsPerMiB: Number(r.decodeMsPerMiB),
    ratio: Math.round((Number(r.corpusBytes) / Number(r.compressedBytes)) * 100) / 100,
  };
}
