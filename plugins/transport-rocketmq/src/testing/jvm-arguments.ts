import { join } from 'node:path';

/** TLS material the processes use when the cluster runs with TLS enforced. */
export interface TlsFiles {
  readonly certPath: string;
  readonly keyPath: string;
}

/** Inputs for one harness JVM's command-line flags. */
export interface JvmArgumentsInput {
  readonly heapMb: number;
  /** The process's own directory: its user.home (logs go to `<home>/logs`). */
  readonly home: string;
  readonly logbackFile: string;
  readonly tls?: TlsFiles;
  /** Broker only: how long a broker keeps an orderly-consumption queue lock without renewal. */
  readonly lockMaxLiveTimeMs?: number;
  readonly extra?: readonly string[];
}

/**
 * JVM flags verified on Java 17 with RocketMQ 5.3.3 (see HARNESS.md): no --add-opens or --add-exports is needed
 * for a name server and a plain (non-controller) broker; a 64 MiB name server and 128 MiB broker heap boot.
 * - `user.home` sandboxes logs, the name server's kv files and the store defaults per process.
 * - TLS: the servers default to `permissive` with a self-signed test certificate, which costs seconds of startup
 *   (RSA key generation, JDK SSL init) on a 2-core box; so it is `disabled` unless TLS is asked for, then
 *   `enforcing` with our certificate. `tls.enable` makes the broker's own client (to the name server) use TLS.
 * - `tls.config.file` points at a file that does not exist so a machine's /etc/rocketmq/tls.properties is ignored.
 */
export function rocketMqJvmArguments(input: JvmArgumentsInput): string[] {
  const args = [
    `-Xms${input.heapMb}m`,
    `-Xmx${input.heapMb}m`,
    `-XX:MaxDirectMemorySize=${Math.max(input.heapMb, 128)}m`,
    '-XX:+UseSerialGC',
    '-XX:-OmitStackTraceInFastThrow',
    '-XX:+ExitOnOutOfMemoryError',
    `-Duser.home=${input.home}`,
    `-Drmq.logback.configurationFile=${input.logbackFile}`,
    `-Dtls.config.file=${join(input.home, 'no-tls.properties')}`,
  ];
  if (input.tls) {
    args.push(
      '-Dtls.server.mode=enforcing',
      '-Dtls.test.mode.enable=false',
      `-Dtls.server.certPath=${input.tls.certPath}`,
      `-Dtls.server.keyPath=${input.tls.keyPath}`,
      '-Dtls.server.need.client.auth=none',
      '-Dtls.enable=true',
      '-Dtls.client.authServer=true',
      `-Dtls.client.trustCertPath=${input.tls.certPath}`,
    );
  } else {
    args.push('-Dtls.server.mode=disabled');
  }
  if (input.lockMaxLiveTimeMs !== undefined)
    args.push(`-Drocketmq.broker.rebalance.lockMaxLiveTime=${input.lockMaxLiveTimeMs}`);
  return [...args, ...(input.extra ?? [])];
}
