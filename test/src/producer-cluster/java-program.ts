import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureJavaBench } from '../../../apps/bench/java/build-java-bench.cjs';

/** What a Java program printed and how it ended. */
export interface JavaRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Lines `<prefix> {json}`, parsed. */
  lines<T>(prefix: string): T[];
}

/**
 * Runs one of apps/bench/java's programs (built by its Maven builder into the mqkit cache on first use; fails
 * naming Java or Maven when either is missing) and resolves when it exits. `input` is written to its stdin. The
 * program is killed if it outlives `timeoutMs`; its client logs go to a temp folder that is removed afterwards.
 */
export async function runJavaProgram(
  mainClass: string,
  args: readonly string[],
  options: { input?: string; timeoutMs?: number } = {},
): Promise<JavaRun> {
  const { classpath } = await ensureJavaBench();
  const logs = mkdtempSync(join(tmpdir(), 'mqkit-java-interop-'));
  const java = process.env.JAVA_HOME ? join(process.env.JAVA_HOME, 'bin', 'java') : 'java';
  const child = spawn(
    java,
    [
      '-Xmx256m',
      `-Drocketmq.log.root=${logs}`,
      '-Drocketmq.log.level=warn',
      '-cp',
      classpath,
      `mqkit.bench.${mainClass}`,
      ...args,
    ],
    {
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-20_000)));
  child.stdin.end(options.input ?? '');
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (c) => resolve(c));
    });
    return {
      code,
      stdout,
      stderr,
      lines: <T>(prefix: string) =>
        stdout
          .split('\n')
          .filter((l) => l.startsWith(`${prefix} {`))
          .map((l) => JSON.parse(l.slice(prefix.length + 1)) as T),
    };
  } finally {
    clearTimeout(timer);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    rmSync(logs, { recursive: true, force: true });
  }
}
