import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// The layout rules of docs/architecture.md ("Where the code lives"), checked on the source itself: core has no
// import cycle, the consumer's three rooms import one way (delivery, then queue, then progress), and files stay
// small. Type-only imports count: a cycle of types is still a cycle for the reader.

const SRC = resolve(__dirname);

/** Every source file under `dir` that ships (specs and fixtures are tests, not code). */
function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sources(path));
    else if (name.endsWith('.ts') && !name.endsWith('.spec.ts') && !name.includes('.fixture.')) out.push(path);
  }
  return out;
}

const IMPORT = /^\s*(?:import|export)\b[^;]*?\bfrom\s+['"](\.{1,2}\/[^'"]+)['"]/gm;

/** The relative imports of one file, resolved to files (relative to core/src). */
function importsOf(file: string, text: string): string[] {
  const out: string[] = [];
  for (const match of text.matchAll(IMPORT)) {
    const base = resolve(dirname(file), match[1]!.replace(/\.js$/, ''));
    const target = [`${base}.ts`, join(base, 'index.ts')].find((candidate) => existsSync(candidate));
    if (target) out.push(relative(SRC, target));
  }
  return out;
}

type Graph = ReadonlyMap<string, readonly string[]>;

/** The strongly connected components with more than one file (Tarjan): each one is an import cycle. */
export function importCycles(graph: Graph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return cycles;
}

/** The consumer's rooms, lowest first: a room may import only rooms below it. */
const ROOMS = ['consumer/progress', 'consumer/queue', 'consumer/delivery'] as const;
const roomOf = (file: string): number => ROOMS.findIndex((room) => file.startsWith(`${room}/`));

/** Imports that go against the rooms' direction, or from a room up into the consumer's assembly (consumer/*.ts). */
export function upwardImports(graph: Graph): string[] {
  const out: string[] = [];
  for (const [from, targets] of graph) {
    const level = roomOf(from);
    if (level < 0) continue;
    for (const to of targets) {
      const target = roomOf(to);
      const assembly = target < 0 && to.startsWith('consumer/');
      if (target > level || assembly) out.push(`${from} -> ${to}`);
    }
  }
  return out;
}

const files = sources(SRC);
const graph: Graph = new Map(files.map((file) => [relative(SRC, file), importsOf(file, readFileSync(file, 'utf8'))]));

describe("core's layout", () => {
  it('finds a cycle, and only a cycle, in a made-up graph (the check itself)', () => {
    const made = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(importCycles(made)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
    expect(
      upwardImports(
        new Map([
          ['consumer/progress/p.ts', ['consumer/queue/q.ts']],
          ['consumer/delivery/d.ts', ['consumer/queue/q.ts', 'consumer/consumer-runtime.ts']],
        ]),
      ),
    ).toEqual([
      'consumer/progress/p.ts -> consumer/queue/q.ts',
      'consumer/delivery/d.ts -> consumer/consumer-runtime.ts',
    ]);
  });

  it('reads the imports of the real tree (the graph is not empty)', () => {
    expect(graph.get('consumer/queue/process-queue.ts')).toContain('consumer/progress/consume-progress.ts');
  });

  it('has no import cycle', () => {
    expect(importCycles(graph)).toEqual([]);
  });

  it('keeps the consumer in three rooms whose imports go one way: delivery, then queue, then progress', () => {
    expect(existsSync(join(SRC, 'runtime'))).toBe(false);
    for (const room of ROOMS) expect(statSync(join(SRC, room)).isDirectory()).toBe(true);
    expect(upwardImports(graph)).toEqual([]);
  });

  it('has no source file over 300 lines', () => {
    const lines = (file: string) => readFileSync(join(SRC, file), 'utf8').split('\n').length - 1;
    expect([...graph.keys()].filter((file) => lines(file) > 300)).toEqual([]);
  });
});
