import { readFileSync } from 'node:fs';

/** Peak resident set of this process (VmHWM), in MiB. */
export function peakRssMb(): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    if (m) return Math.round((Number(m[1]) / 1024) * 10) / 10;
  } catch {
    // not Linux: fall back to the current RSS
  }
  return Math.round((process.memoryUsage().rss / 1024 / 1024) * 10) / 10;
}

export { median } from '../report/run-stats';

/** The value after `--name`, or undefined when the flag (or its value) is absent. */
export function textFlag(args: readonly string[], name: string): string | undefined {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : undefined;
}

/** `--name value` flags. */
export function flag(args: readonly string[], name: string, fallback: number): number {
  const text = textFlag(args, name);
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} needs a positive number (got ${text})`);
  return n;
}

/** Every `settings:` line a case logged in this process, for its results file. */
export const settingsLines: string[] = [];

export function log(line: string): void {
  if (line.startsWith('settings')) settingsLines.push(line);
  process.stderr.write(`${line}\n`);
}

/** Resolves when `check` is true, polling every `ms` (benchmarks only; tests use waitFor). */
export async function until(check: () => boolean, ms = 5): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, ms));
}

/** Collects garbage left by setup (with --expose-gc), so a timed phase does not pay for the fill before it. */
export function settleHeap(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) {
    gc();
    gc();
  }
}
