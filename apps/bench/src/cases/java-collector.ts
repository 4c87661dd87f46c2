import { spawnSync } from 'node:child_process';
import { placeCommand } from './cpu-placement';

/**
 * Which garbage collector the JVM of the Java clients runs with. The benches fix only the heap (-Xmx512m): the
 * collector is the JVM's ergonomic choice for the CPUs it is given, and with the client pinned to one CPU that is
 * SerialGC (no concurrent or parallel GC threads), where the same JVM picks G1 on two. V8 has no such switch: on
 * one CPU it still runs its parallel scavenges and concurrent marking and sweeping on helper threads that take
 * turns with the main thread (`--single-threaded-gc` turns them off). Printed with the settings because it is a
 * difference in what the two clients' collectors do with the same core.
 */
export function javaCollector(java: string, heapFlag = '-Xmx512m'): string {
  const placed = placeCommand(java, [heapFlag, '-XX:+PrintFlagsFinal', '-version']);
  const r = spawnSync(placed.command, placed.args, { encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0)
    return `unknown (java -XX:+PrintFlagsFinal failed: ${(r.stderr || r.error?.message || String(r.status)).trim().split('\n')[0]})`;
  return collectorOf(r.stdout) ?? 'unknown (no Use*GC flag set in -XX:+PrintFlagsFinal)';
}

/** The collector named by the `bool Use<Name>GC = true` line of `-XX:+PrintFlagsFinal`'s output, e.g. "SerialGC". */
export function collectorOf(flagsFinal: string): string | undefined {
  // Named one by one: other flags end in GC too (UseMaximumCompactionOnSystemGC is true by default).
  const m = /^\s*bool\s+Use(Serial|Parallel|G1|Z|Shenandoah|Epsilon)GC\s*=\s*true\b/m.exec(flagsFinal);
  return m ? `${m[1]}GC` : undefined;
}
