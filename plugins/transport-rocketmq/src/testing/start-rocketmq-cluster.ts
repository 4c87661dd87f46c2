import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AclCredentials } from './acl-signature';
import {
  PLAIN_ACL_FILE,
  renderBrokerConfig,
  renderNamesrvConfig,
  renderPlainAclConfig,
  type ReplicaMember,
} from './broker-config';
import { writeDescriptor, type ClusterDescriptor, type ClusterProcessRecord } from './cluster-descriptor';
import { launchProcess, waitForInSync, waitForMaster } from './cluster-process';
import { assertDiskHasRoom } from './disk-usage';
import { findFreePortGroup } from './free-port';
import { findJavaToolchain } from './java-toolchain';
import { rocketMqJvmArguments, type TlsFiles } from './jvm-arguments';
import { renderLogbackConfig } from './logback-config';
import { reapOrphanClusters } from './orphan-reaper';
import { stopProcess } from './process-control';
import { RocketMqHarnessError } from './rocketmq-harness.error';
import { provisionRocketMq } from './rocketmq-provisioner';
import { rocketMqRelease } from './rocketmq-releases';
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
  /**
   * A master and a slave per broker name, with fixed roles (brokerId 0 and 1). The slave is the process
   * `<brokerName>-replica`. `replication` is the master's role: ASYNC_MASTER (default) or SYNC_MASTER (a send waits
   * for the slave). `slaveReadEnable` (default true) lets the master send pulls to the slave and the slave serve
   * them, also while the master is down.
   */
  readonly replicas?: { readonly replication?: 'ASYNC' | 'SYNC'; readonly slaveReadEnable?: boolean };
  /**
   * RocketMQ 5's controller mode: a DLedger controller embedded in the name server, two brokers per broker name
   * (`<brokerName>` and `<brokerName>-replica`) whose ids and roles the controller assigns; killing the master
   * promotes the other. Sends are acknowledged once the whole sync-state set has them (allAckInSyncStateSet).
   */
  readonly controller?: boolean;
}

/** The process name of a broker name's second member. */
export function replicaName(brokerName: string): string {
  return `${brokerName}-replica`;
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
  const release = rocketMqRelease(distribution.version);
  if (options.controller && !release.controller)
    throw new RocketMqHarnessError('start', `RocketMQ ${release.release} has no controller mode (it came with 5.0)`);
  const parent = options.tmpDir ?? tmpdir();
  await reapOrphanClusters(parent);
  await assertDiskHasRoom(parent);
  const baseDir = await mkdtemp(join(parent, 'mqkit-rocketmq-'));
  const logbackFile = join(baseDir, 'logback.xml');
  await writeFile(logbackFile, renderLogbackConfig());
  // The cluster folder is every process's rocketmqHome: files a release reads from <home>/conf/ go there.
  await mkdir(join(baseDir, 'conf'), { recursive: true });
  for (const file of release.logbackFiles) await writeFile(join(baseDir, 'conf', file), renderLogbackConfig());
  if (options.acl && release.acl === 'acl-1.0')
    await writeFile(join(baseDir, PLAIN_ACL_FILE), renderPlainAclConfig(options.acl));
  const tls: (TlsFiles & { certPem: string }) | undefined = options.tls ? await createTlsMaterial(baseDir) : undefined;
  const taken = new Set<number>();
  const namesrvPort = await findFreePortGroup([0], taken);
  const namesrvAddr = `127.0.0.1:${namesrvPort}`;
  const controllerPort = options.controller ? await findFreePortGroup([0], taken) : undefined;
  const replicated = options.controller === true || options.replicas !== undefined;
  const slaveReadEnable = options.replicas?.slaveReadEnable ?? true;

  const processRecord = async (
    role: 'namesrv' | 'broker',
    name: string,
    port: number,
    brokerName = name,
    member?: ReplicaMember,
  ): Promise<ClusterProcessRecord> => {
    const home = join(baseDir, name);
    await mkdir(home, { recursive: true });
    const confFile = join(home, `${role}.conf`);
    const conf =
      role === 'namesrv'
        ? renderNamesrvConfig({
            listenPort: port,
            rocketmqHome: baseDir,
            controller: controllerPort ? { port: controllerPort, storePath: join(home, 'controller') } : undefined,
            release,
          })
        : renderBrokerConfig({
            clusterName: options.clusterName ?? 'DefaultCluster',
            brokerName,
            listenPort: port,
            namesrvAddr,
            storeRoot: join(home, 'store'),
            rocketmqHome: baseDir,
            acl: options.acl,
            member,
            overrides: options.brokerConfig,
            release,
          });
    await writeFile(confFile, conf);
    const jvm = rocketMqJvmArguments({
      // Up to four broker JVMs next to a name server on two cores: smaller heaps when replicated.
      heapMb: role === 'namesrv' ? (options.namesrvHeapMb ?? 128) : (options.brokerHeapMb ?? (replicated ? 192 : 256)),
      home,
      logbackFile,
      tls,
      lockMaxLiveTimeMs: role === 'broker' ? (options.lockMaxLiveTimeMs ?? 10_000) : undefined,
      // The embedded controller's serializer reflects into java.lang (InaccessibleObjectException traces otherwise).
      extra: [
        ...release.jvmArgs,
        // ACL 1.0 finds conf/plain_acl.yml under this property (or ROCKETMQ_HOME), not under broker.conf's rocketmqHome.
        `-Drocketmq.home.dir=${baseDir}`,
        ...(role === 'namesrv' && controllerPort ? ['--add-opens', 'java.base/java.lang=ALL-UNNAMED'] : []),
        ...(options.jvmArgs ?? []),
      ],
    });
    const main = role === 'namesrv' ? NAMESRV_MAIN : BROKER_MAIN;
    const args = [...jvm, '-cp', distribution.classpath, main, '-c', confFile];
    const spec = { command: toolchain.java, args, cwd: home, logFile: join(home, 'stdout.log') };
    return { role, name, brokerName, addr: `127.0.0.1:${port}`, pid: undefined, spec };
  };

  const processes: ClusterProcessRecord[] = [await processRecord('namesrv', 'namesrv', namesrvPort)];
  // The broker also binds listenPort − 2 (fast server) and listenPort + 1 (HA): all three must be free.
  const brokerPort = () => findFreePortGroup([-2, 0, 1], taken);
  for (const brokerName of options.brokers ?? ['broker-a', 'broker-b']) {
    if (options.controller) {
      const member: ReplicaMember = {
        mode: 'controller',
        controllerAddr: `127.0.0.1:${controllerPort}`,
        slaveReadEnable,
      };
      processes.push(await processRecord('broker', brokerName, await brokerPort(), brokerName, member));
      processes.push(await processRecord('broker', replicaName(brokerName), await brokerPort(), brokerName, member));
    } else if (options.replicas) {
      const replication = options.replicas.replication ?? 'ASYNC';
      processes.push(
        await processRecord('broker', brokerName, await brokerPort(), brokerName, {
          mode: 'classic',
          brokerId: 0,
          replication,
          slaveReadEnable,
        }),
      );
      processes.push(
        await processRecord('broker', replicaName(brokerName), await brokerPort(), brokerName, {
          mode: 'classic',
          brokerId: 1,
          replication,
          slaveReadEnable,
        }),
      );
    } else {
      processes.push(await processRecord('broker', brokerName, await brokerPort()));
    }
  }
  const descriptor: ClusterDescriptor = {
    version: distribution.version,
    baseDir,
    clusterName: options.clusterName ?? 'DefaultCluster',
    namesrvAddr,
    controllerAddr: controllerPort ? `127.0.0.1:${controllerPort}` : undefined,
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
    await Promise.all(
      processes
        .slice(1)
        .map((record) => launchProcess(record, context).finally(() => writeDescriptor(file, descriptor))),
    );
    // Every member is registered; a replicated name also needs its master, and in controller mode both members in
    // the sync-state set: a master killed before its replica joined the set has nobody to hand over to.
    for (const name of options.brokers ?? ['broker-a', 'broker-b']) {
      if (replicated) await waitForMaster(name, context);
      if (controllerPort) await waitForInSync(`127.0.0.1:${controllerPort}`, name, 2, context);
    }
  } catch (error) {
    await Promise.all(
      processes.map(async (p) => (p.pid !== undefined ? stopProcess(p.pid, baseDir, { force: true }) : undefined)),
    );
    if (process.env.MQKIT_ROCKETMQ_KEEP !== '1') await rm(baseDir, { recursive: true, force: true });
    throw error;
  }
  return RocketMqCluster.create(descriptor, file, true);
}
