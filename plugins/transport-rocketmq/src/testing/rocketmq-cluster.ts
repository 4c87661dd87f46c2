import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { AclCredentials } from './acl-signature';
import {
  readDescriptor,
  writeDescriptor,
  type ClusterDescriptor,
  type ClusterProcessRecord,
} from './cluster-descriptor';
import { launchProcess, waitForInSync, waitForMaster, waitForUnregistered } from './cluster-process';
import { readClusterInfo } from './cluster-readiness';
import { isProcessAlive, stopProcess } from './process-control';
import type { ProbeOptions } from './remoting-probe';
import { RocketMqHarnessError } from './rocketmq-harness.error';

/** One broker process of a cluster. */
export interface RocketMqBrokerInfo {
  /** The process name: the broker name, or `<brokerName>-replica` for a replica cluster's second member. */
  readonly name: string;
  /** The RocketMQ broker name it serves. */
  readonly brokerName: string;
  /** `127.0.0.1:<listenPort>`, as the name server hands it to clients. */
  readonly addr: string;
  /** The JVM's pid while the harness runs it; undefined when stopped or not managed by the harness. */
  readonly pid: number | undefined;
}

/**
 * A RocketMQ cluster for tests: one name server and its brokers. Made by `startRocketMqCluster` (the owner,
 * which alone may `stop()` it), `attachRocketMqCluster` (another process, e.g. a vitest worker: may stop and
 * restart brokers) or `connectRocketMqCluster` (an existing cluster the harness does not manage).
 */
export class RocketMqCluster {
  private constructor(
    private descriptor: ClusterDescriptor,
    /** The descriptor file, or undefined for a cluster the harness does not manage. */
    readonly descriptorFile: string | undefined,
    private readonly owner: boolean,
  ) {}

  /** @internal Used by the start/attach/connect functions. */
  static create(descriptor: ClusterDescriptor, descriptorFile: string | undefined, owner: boolean): RocketMqCluster {
    return new RocketMqCluster(descriptor, descriptorFile, owner);
  }

  /** `127.0.0.1:<port>` of the name server. */
  get namesrvAddr(): string {
    return this.descriptor.namesrvAddr;
  }

  get clusterName(): string {
    return this.descriptor.clusterName;
  }

  /** RocketMQ version of the processes (for a connected cluster: unknown, `''`). */
  get version(): string {
    return this.descriptor.version;
  }

  /** True when the harness started the processes and can stop and restart them. */
  get managed(): boolean {
    return this.descriptorFile !== undefined;
  }

  /** The PEM certificate to trust when the cluster enforces TLS; undefined for plain TCP. */
  get tlsCertificate(): string | undefined {
    return this.descriptor.tls?.certPem;
  }

  /** ACL credentials (a SUPER user) when the cluster has ACL on. */
  get acl(): AclCredentials | undefined {
    return this.descriptor.acl;
  }

  /** Options for the harness's own probe requests against this cluster (TLS, signing). */
  get probeOptions(): ProbeOptions {
    return {
      tls: this.descriptor.tls ? { ca: this.descriptor.tls.certPem } : undefined,
      credentials: this.descriptor.acl,
    };
  }

  get brokers(): readonly RocketMqBrokerInfo[] {
    this.refresh();
    return this.descriptor.processes
      .filter((p) => p.role === 'broker')
      .map((p) => ({
        name: p.name,
        brokerName: p.brokerName ?? p.name,
        addr: p.addr,
        pid: p.pid !== undefined && isProcessAlive(p.pid) ? p.pid : undefined,
      }));
  }

  /** The pids of every process of the cluster that is still running. */
  pids(): number[] {
    this.refresh();
    return this.descriptor.processes.flatMap((p) => (p.pid !== undefined && isProcessAlive(p.pid) ? [p.pid] : []));
  }

  /**
   * Stops one broker by pid (SIGTERM, so it flushes offsets; `force` = SIGKILL, a crash) and waits until the
   * name server no longer lists it. Its ports and store are kept for {@link startBroker}.
   */
  async stopBroker(name: string, options: { force?: boolean } = {}): Promise<void> {
    const record = this.record(name);
    if (record.pid !== undefined) await stopProcess(record.pid, this.descriptor.baseDir, { force: options.force });
    record.pid = undefined;
    this.save();
    await waitForUnregistered(record.brokerName ?? record.name, record.addr, {
      namesrvAddr: this.namesrvAddr,
      probe: this.probeOptions,
      timeoutMs: 30_000,
    });
  }

  /**
   * Stops the name server by pid (SIGTERM; `force` = SIGKILL). Brokers and clients keep running on what they
   * know; {@link startNameServer} brings it back on the same port (brokers register again within their
   * registration period, 30 s by default).
   */
  async stopNameServer(options: { force?: boolean } = {}): Promise<void> {
    const record = this.namesrvRecord();
    if (record.pid !== undefined) await stopProcess(record.pid, this.descriptor.baseDir, { force: options.force });
    record.pid = undefined;
    this.save();
  }

  async startNameServer(options: { timeoutMs?: number } = {}): Promise<void> {
    const record = this.namesrvRecord();
    if (record.pid !== undefined && isProcessAlive(record.pid)) return;
    await launchProcess(record, {
      namesrvAddr: this.namesrvAddr,
      probe: this.probeOptions,
      timeoutMs: options.timeoutMs ?? 120_000,
      detached: !this.owner,
    }).finally(() => this.save());
  }

  private namesrvRecord(): ClusterProcessRecord {
    if (!this.descriptorFile)
      throw new RocketMqHarnessError('start', `the cluster at ${this.namesrvAddr} is not managed by the harness`);
    this.refresh();
    return this.descriptor.processes.find((p) => p.role === 'namesrv')!;
  }

  /** Controller mode: waits until `count` replicas of `brokerName` are in the sync-state set (after a restart). */
  async waitForInSync(brokerName: string, count = 2, options: { timeoutMs?: number } = {}): Promise<void> {
    const controller = this.descriptor.controllerAddr;
    if (!controller) throw new RocketMqHarnessError('start', 'this cluster has no controller');
    await waitForInSync(controller, brokerName, count, {
      probe: this.probeOptions,
      timeoutMs: options.timeoutMs ?? 60_000,
    });
  }

  /** The process that is the master (brokerId 0) of `brokerName` now, as the name server lists it; undefined while none is. */
  async masterOf(brokerName: string): Promise<string | undefined> {
    const addr = (await readClusterInfo(this.namesrvAddr, this.probeOptions)).find(
      (b) => b.brokerName === brokerName,
    )?.addr;
    return this.descriptor.processes.find((p) => p.role === 'broker' && p.addr === addr)?.name;
  }

  /**
   * Waits until the name server lists a master of `brokerName` other than the process `notName` (after a
   * controller failover: the promoted one); resolves with its process name.
   */
  async waitForMaster(brokerName: string, options: { notName?: string; timeoutMs?: number } = {}): Promise<string> {
    const not = options.notName ? this.record(options.notName).addr : undefined;
    const addr = await waitForMaster(
      brokerName,
      { namesrvAddr: this.namesrvAddr, probe: this.probeOptions, timeoutMs: options.timeoutMs ?? 60_000 },
      not,
    );
    return this.descriptor.processes.find((p) => p.role === 'broker' && p.addr === addr)?.name ?? addr;
  }

  /** Starts a stopped broker again on the same ports and store; resolves once it answers and is registered. */
  async startBroker(name: string, options: { timeoutMs?: number } = {}): Promise<void> {
    const record = this.record(name);
    if (record.pid !== undefined && isProcessAlive(record.pid)) return;
    // From a worker the broker must outlive the worker: detach it. The owner's stop() ends it by pid.
    await launchProcess(record, {
      namesrvAddr: this.namesrvAddr,
      probe: this.probeOptions,
      timeoutMs: options.timeoutMs ?? 120_000,
      detached: !this.owner,
    }).finally(() => this.save());
  }

  /**
   * Stops every process by pid (brokers first, in parallel, then the name server) and removes the cluster
   * folder; set MQKIT_ROCKETMQ_KEEP=1 to keep it (logs, stores). Each gets SIGTERM, then SIGKILL after `graceMs`:
   * 3 s by default since the stores are deleted anyway (a clean broker shutdown takes 7–12 s of service-thread
   * waits), 15 s when they are kept. Only the owner stops: elsewhere this does nothing, so a test file cannot end
   * the run's shared cluster.
   */
  async stop(options: { graceMs?: number } = {}): Promise<void> {
    if (!this.owner || !this.descriptorFile) return;
    this.refresh();
    const keep = process.env.MQKIT_ROCKETMQ_KEEP === '1';
    const graceMs = options.graceMs ?? (keep ? 15_000 : 3_000);
    const marker = this.descriptor.baseDir;
    const stopAll = (role: ClusterProcessRecord['role']): Promise<unknown> =>
      Promise.all(
        this.descriptor.processes
          .filter((p) => p.role === role && p.pid !== undefined)
          .map((p) => stopProcess(p.pid!, marker, { graceMs })),
      );
    // A proxy first: its clients would otherwise log failures against brokers going away.
    await stopAll('proxy');
    await stopAll('broker');
    await stopAll('namesrv');
    for (const p of this.descriptor.processes) p.pid = undefined;
    if (keep) this.save();
    else await rm(this.descriptor.baseDir, { recursive: true, force: true });
  }

  /** @internal The cluster folder: every process's command line names it (the stop and reap marker). */
  get baseDir(): string {
    return this.descriptor.baseDir;
  }

  /** @internal True in the process that started the cluster; a process started elsewhere must be detached. */
  get isOwner(): boolean {
    return this.owner;
  }

  /**
   * @internal Records a process started next to the cluster (a proxy), replacing the record of the same role and
   * name: {@link stop} ends it by pid, and the descriptor tells the orphan reaper's runs what ran.
   */
  recordProcess(record: ClusterProcessRecord): void {
    if (!this.descriptorFile)
      throw new RocketMqHarnessError('start', `the cluster at ${this.namesrvAddr} is not managed by the harness`);
    this.refresh();
    const others = this.descriptor.processes.filter((p) => p.role !== record.role || p.name !== record.name);
    this.descriptor = { ...this.descriptor, processes: [...others, record] };
    this.save();
  }

  private record(name: string): ClusterProcessRecord {
    if (!this.descriptorFile)
      throw new RocketMqHarnessError('start', `the cluster at ${this.namesrvAddr} is not managed by the harness`);
    this.refresh();
    const record = this.descriptor.processes.find((p) => p.role === 'broker' && p.name === name);
    if (!record)
      throw new RocketMqHarnessError(
        'start',
        `no broker ${name}; brokers: ${this.descriptor.processes.map((p) => p.name).join(', ')}`,
      );
    return record;
  }

  /** Another process may have restarted a broker: the file is the truth. */
  private refresh(): void {
    if (this.descriptorFile && existsSync(this.descriptorFile)) this.descriptor = readDescriptor(this.descriptorFile);
  }

  private save(): void {
    if (this.descriptorFile && existsSync(this.descriptor.baseDir))
      writeDescriptor(this.descriptorFile, this.descriptor);
  }
}

/** Uses the cluster whose `cluster.json` another process wrote (see {@link RocketMqCluster}). */
export function attachRocketMqCluster(descriptorFile: string): RocketMqCluster {
  return RocketMqCluster.create(readDescriptor(descriptorFile), descriptorFile, false);
}

/**
 * Uses an existing cluster the harness did not start (e.g. from `MQKIT_ROCKETMQ_NAMESRV`): asks its name server
 * which brokers it has. Such a cluster cannot be stopped or restarted by the harness.
 */
export async function connectRocketMqCluster(
  namesrvAddr: string,
  options: { tlsCertificate?: string; acl?: AclCredentials } = {},
): Promise<RocketMqCluster> {
  const probe: ProbeOptions = {
    tls: options.tlsCertificate ? { ca: options.tlsCertificate } : undefined,
    credentials: options.acl,
  };
  const brokers = await readClusterInfo(namesrvAddr, probe);
  const descriptor: ClusterDescriptor = {
    version: '',
    baseDir: '',
    clusterName: brokers[0]?.clusterName ?? 'DefaultCluster',
    namesrvAddr,
    ownerPid: 0,
    tls: options.tlsCertificate ? { certPem: options.tlsCertificate } : undefined,
    acl: options.acl,
    processes: brokers.map((b) => ({
      role: 'broker' as const,
      name: b.brokerName,
      brokerName: b.brokerName,
      addr: b.addr ?? '',
      pid: undefined,
      spec: { command: '', args: [], cwd: '', logFile: '' },
    })),
  };
  return RocketMqCluster.create(descriptor, undefined, false);
}

/** The descriptor file name inside a cluster folder. */
export const DESCRIPTOR_FILE = 'cluster.json';

/** Path of the descriptor of the cluster in `baseDir`. */
export function descriptorPath(baseDir: string): string {
  return join(baseDir, DESCRIPTOR_FILE);
}
