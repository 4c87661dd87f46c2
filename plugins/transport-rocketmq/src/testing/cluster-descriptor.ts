import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { AclCredentials } from './acl-signature';
import type { ProcessSpec } from './process-control';

/** One process of a harness cluster, as recorded in its descriptor file. */
export interface ClusterProcessRecord {
  /** A proxy is started next to a running cluster (`startRocketMqProxy`) and recorded so stop() and the reaper end it. */
  readonly role: 'namesrv' | 'broker' | 'proxy';
  /**
   * The process's name: the broker name for a master-only cluster, `<brokerName>-replica` for a second member,
   * `proxy-<remoting port>` for a proxy.
   */
  readonly name: string;
  /** The RocketMQ broker name it serves (brokers); absent in older descriptors, where it is `name`. */
  readonly brokerName?: string;
  /** `127.0.0.1:<listenPort>` (a proxy's remoting port). */
  readonly addr: string;
  /** Set while running; cleared after a stop. */
  pid: number | undefined;
  readonly spec: ProcessSpec;
}

/**
 * Everything needed to use, restart and stop a harness cluster from another process (a vitest worker, the CLI):
 * written as `cluster.json` in the cluster folder and kept current when a broker is stopped or restarted.
 */
export interface ClusterDescriptor {
  readonly version: string;
  readonly baseDir: string;
  readonly clusterName: string;
  readonly namesrvAddr: string;
  /** The controller's address (controller mode: embedded in the name server, on a port of its own). */
  readonly controllerAddr?: string;
  /** The process that started the cluster; a cluster whose owner died is an orphan to reap. */
  readonly ownerPid: number;
  readonly tls?: { readonly certPem: string };
  readonly acl?: AclCredentials;
  readonly processes: ClusterProcessRecord[];
}

/** Reads a descriptor file. */
export function readDescriptor(file: string): ClusterDescriptor {
  return JSON.parse(readFileSync(file, 'utf8')) as ClusterDescriptor;
}

/** Writes a descriptor atomically (temp file + rename) so a concurrent reader never sees half a file. */
export function writeDescriptor(file: string, descriptor: ClusterDescriptor): void {
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(descriptor, null, 1)}\n`);
  renameSync(temp, file);
}
