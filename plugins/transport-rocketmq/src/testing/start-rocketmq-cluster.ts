import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AclCredentials } from './acl-signature';
import { renderBrokerConfig, renderNamesrvConfig } from './broker-config';
import { writeDescriptor, type ClusterDescriptor, type ClusterProcessRecord } from './cluster-descriptor';
import { launchProcess } from './cluster-process';
import { assertDiskHasRoom } from './disk-usage';
import { findFreePortGroup } from './free-port';
import { findJavaToolchain } from './java-toolchain';
import { rocketMqJvmArguments, type TlsFiles } from './jvm-arguments';
import { renderLogbackConfig } from './logback-config';
import { reapOrphanClusters } from './orphan-reaper';
import { stopProcess } from './process-control';
import { provisionRocketMq } from './rocketmq-provisioner';
import { descriptorPath, RocketMqCluster } from './rocketmq-cluster';
import { createTlsMaterial } from './tls-material';

/** Options of {@link startRocketMqCluster}; every one has a test-friendly default. */
export interface RocketMqClusterOptions {
  /** Broker names, one master each (default `['broker-a', 'broker-b']`). */
  readonly brokers?: readonly string[];
  readonly clusterName?: string;
  /** RocketMQ version (default 5.3.3, or `MQKIT_ROCKETMQ_VERSION`). */
  readonly version?: string;
  /** Where jars are cached (default `$MQKIT_CACHE_DIR` or ~/.cache/mqkit). */
  readonly cacheDir?: string;
  /** Parent of the cluster folder (default the OS temp dir); its disk must be at most 85 % full. */
  readonly tmpDir?: string;
  /** Turn on ACL 2.0 with these credentials as a SUPER user; clients must sign requests. */
  readonly acl?: AclCredentials;
  /** Enforce TLS on the name server and brokers with a fresh self-signed certificate for 127.0.0.1. */
  readonly tls?: boolean;
  readonly namesrvHeapMb?: number;
  readonly brokerHeapMb?: number;
  /** rocketmq.broker.rebalance.lockMaxLiveTime (RocketMQ's default 60 s; here 10 s so failover tests are quick). */
  readonly lockMaxLiveTimeMs?: number;
  /** broker.conf keys to add or override. */
  readonly brokerConfig?: Readonly<Record<string, string>>;
  /** Extra JVM flags for every process. */
  readonly jvmArgs?: readonly string[];
  /** Per-process readiness timeout (default 120 s: a first JVM start on a busy 2-core box is slow). */
  readonly startTimeoutMs?: number;
}

const NAMESRV_MAIN = 'org.apache.rocketmq.namesrv.NamesrvStartup';
const BROKER_MAIN = 'org.apache.rocketmq.broker.BrokerStartup';

/**
 * Provisions RocketMQ from Maven Central (cached) and starts one name server and its brokers on loopback, each
 * JVM with its own user.home and store under a fresh temp folder; resolves when every process answers the
 * remoting protocol and every broker is registered. On failure everything started is stopped again.
 *
 * @example
 * const cluster = await startRocketMqCluster();
 * try { ...use cluster.namesrvAddr... } finally { await cluster.stop(); }
 */
export async function startRocketMqCluster(options: RocketMqClusterOptions = {}): Promise<RocketMqCluster> {
  const toolchain = findJavaToolchain();
  const distribution = await provisionRocketMq({ version: options.version, cacheDir: options.cacheDir, toolchain });
  const parent = options.tmpDir ?? tmpdir();
  await reapOrphanClusters(parent);
  await assertDiskHasRoom(parent);
  const baseDir = await mkdtemp(join(parent, 'mqkit-rocketmq-'));
  const logbackFile = join(baseDir, 'logback.xml');
  await writeFile(logbackFile, renderLogbackConfig());
  const tls: (TlsFiles & { certPem: string }) | undefined = options.tls ? await createTlsMaterial(baseDir) : undefined;
  const taken = new Set<number>();
  const namesrvPort = await findFreePortGroup([0], taken);
  const namesrvAddr = `127.0.0.1:${namesrvPort}`;

  const processRecord = async (role: 'namesrv' | 'broker', name: string, port: number): Promise<ClusterProcessRecord> => {
    const home = join(baseDir, name);
    await mkdir(home, { recursive: true });
    const confFile = join(home, `${role}.conf`);
    const conf =
      role === 'namesrv'
        ? renderNamesrvConfig({ listenPort: port, rocketmqHome: baseDir })
        : renderBrokerConfig({
            clusterName: options.clusterName ?? 'DefaultCluster',
            brokerName: name,
            listenPort: port,
            namesrvAddr,
            storeRoot: join(home, 'store'),
            rocketmqHome: baseDir,
            acl: options.acl,
            overrides: options.brokerConfig,
          });
    await writeFile(confFile, conf);
    const jvm = rocketMqJvmArguments({
      heapMb: role === 'namesrv' ? (options.namesrvHeapMb ?? 128) : (options.brokerHeapMb ?? 256),
      home,
      logbackFile,
      tls,
      lockMaxLiveTimeMs: role === 'broker' ? (options.lockMaxLiveTimeMs ?? 10_000) : undefined,
      extra: options.jvmArgs,
    });
    const main = role === 'namesrv' ? NAMESRV_MAIN : BROKER_MAIN;
    const args = [...jvm, '-cp', distribution.classpath, main, '-c', confFile];
    const spec = { command: toolchain.java, args, cwd: home, logFile: join(home, 'stdout.log') };
    return { role, name, addr: `127.0.0.1:${port}`, pid: undefined, spec };
  };

  const processes: ClusterProcessRecord[] = [await processRecord('namesrv', 'namesrv', namesrvPort)];
  for (const name of options.brokers ?? ['broker-a', 'broker-b']) {
    // The broker also binds listenPort − 2 (fast server) and listenPort + 1 (HA): all three must be free.
    processes.push(await processRecord('broker', name, await findFreePortGroup([-2, 0, 1], taken)));
  }
  const descriptor: ClusterDescriptor = {
    version: distribution.version,
    baseDir,
    clusterName: options.clusterName ?? 'DefaultCluster',
    namesrvAddr,
    ownerPid: process.pid,
    tls: tls ? { certPem: tls.certPem } : undefined,
    acl: options.acl,
    processes,
  };
  const file = descriptorPath(baseDir);
  const context = {
    namesrvAddr,
    probe: { tls: tls ? { ca: tls.certPem } : undefined, credentials: options.acl },
    timeoutMs: options.startTimeoutMs ?? 120_000,
  };
  try {
    await launchProcess(processes[0]!, context);
    writeDescriptor(file, descriptor);
    await Promise.all(processes.slice(1).map((record) => launchProcess(record, context).finally(() => writeDescriptor(file, descriptor))));
  } catch (error) {
    await Promise.all(processes.map(async (p) => (p.pid !== undefined ? stopProcess(p.pid, baseDir, { force: true }) : undefined)));
    if (process.env['MQKIT_ROCKETMQ_KEEP'] !== '1') await rm(baseDir, { recursive: true, force: true });
    throw error;
  }
  return RocketMqCluster.create(descriptor, file, true);
}
