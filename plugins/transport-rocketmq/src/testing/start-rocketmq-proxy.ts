import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ClusterProcessRecord } from './cluster-descriptor';
import { exitFailure } from './cluster-process';
import { pollUntilReady } from './cluster-readiness';
import { findFreePortGroup } from './free-port';
import { findJavaToolchain } from './java-toolchain';
import { rocketMqJvmArguments } from './jvm-arguments';
import { isProcessAlive, spawnProcess, stopProcess } from './process-control';
import { renderProxyConfig } from './proxy-config';
import type { ProbeCommand } from './probe-frame.codec';
import { sendProbeRequest } from './remoting-probe';
import type { RocketMqCluster } from './rocketmq-cluster';
import { RocketMqHarnessError } from './rocketmq-harness.error';
import { provisionRocketMqProxy } from './rocketmq-provisioner';
import { rocketMqRelease } from './rocketmq-releases';
import { tlsFilePaths } from './tls-material';

/** Options of {@link startRocketMqProxy}. */
export interface RocketMqProxyOptions {
  /** Heap of the proxy JVM (default 256 MiB). */
  readonly heapMb?: number;
  /** Where jars are cached (default `$MQKIT_CACHE_DIR` or ~/.cache/mqkit). */
  readonly cacheDir?: string;
  /** rmq-proxy.json keys to add or override (ProxyConfig and AuthConfig field names). */
  readonly config?: Readonly<Record<string, unknown>>;
  /** Extra JVM flags. */
  readonly jvmArgs?: readonly string[];
  /** Readiness timeout (default 120 s). */
  readonly startTimeoutMs?: number;
}

const PROXY_MAIN = 'org.apache.rocketmq.proxy.ProxyStartup';
const GET_ROUTEINFO_BY_TOPIC = 105;
const TOPIC_NOT_EXIST = 17;

/** A rocketmq-proxy (cluster mode) in front of a harness cluster. */
export class RocketMqProxy {
  readonly #cluster: RocketMqCluster;
  readonly #record: ClusterProcessRecord;
  readonly #grpcAddr: string;

  /** @internal Made by {@link startRocketMqProxy}. */
  constructor(cluster: RocketMqCluster, record: ClusterProcessRecord, grpcAddr: string) {
    this.#cluster = cluster;
    this.#record = record;
    this.#grpcAddr = grpcAddr;
  }

  /** `127.0.0.1:<port>` of the remoting protocol endpoint: a "name server" that routes every queue to itself. */
  get remotingAddr(): string {
    return this.#record.addr;
  }

  /** `127.0.0.1:<port>` of the gRPC endpoint (plain text unless the cluster enforces TLS). */
  get grpcAddr(): string {
    return this.#grpcAddr;
  }

  /** The JVM's pid while it runs; undefined once stopped. */
  get pid(): number | undefined {
    const { pid } = this.#record;
    return pid !== undefined && isProcessAlive(pid) ? pid : undefined;
  }

  /** Stops the proxy by pid (SIGTERM, then SIGKILL after `graceMs`, 3 s by default) and records it as stopped. */
  async stop(options: { graceMs?: number } = {}): Promise<void> {
    const { pid } = this.#record;
    if (pid !== undefined) await stopProcess(pid, this.#cluster.baseDir, { graceMs: options.graceMs ?? 3_000 });
    this.#record.pid = undefined;
    this.#cluster.recordProcess(this.#record);
  }
}

/**
 * Asks the proxy for a route it cannot have: it answers only once its servers and its name-server client are
 * up (ProxyStartup starts the messaging processor before the remoting server), with TOPIC_NOT_EXIST.
 */
async function proxyAnswers(remotingAddr: string, cluster: RocketMqCluster): Promise<ProbeCommand> {
  return sendProbeRequest(
    remotingAddr,
    {
      code: GET_ROUTEINFO_BY_TOPIC,
      extFields: { topic: 'mqkit_proxy_readiness', acceptStandardJsonOnly: 'true' },
    },
    cluster.probeOptions,
  );
}

/**
 * Provisions rocketmq-proxy (cached like the servers, in `rocketmq-proxy-<version>`) and starts it in cluster
 * mode in front of a running harness cluster, on two free ports (remoting and gRPC), with its folder, config and
 * logs under the cluster folder (`proxy-<port>/`: rmq-proxy.json, stdout.log, logs/rocketmq.log). Resolves once
 * the remoting endpoint answers. The proxy is recorded in the cluster's descriptor, so `cluster.stop()` ends it
 * too and a killed run's proxy is reaped with its cluster. A cluster with ACL gets a proxy that authenticates
 * its clients against the brokers' users (see `renderProxyConfig` (proxy-config.ts)).
 */
export async function startRocketMqProxy(
  cluster: RocketMqCluster,
  options: RocketMqProxyOptions = {},
): Promise<RocketMqProxy> {
  if (!cluster.managed)
    throw new RocketMqHarnessError('start', `the cluster at ${cluster.namesrvAddr} is not managed by the harness`);
  const release = rocketMqRelease(cluster.version);
  if (!release.proxy)
    throw new RocketMqHarnessError('start', `RocketMQ ${release.release} has no rocketmq-proxy (it came with 5.0)`);
  const toolchain = findJavaToolchain();
  const distribution = await provisionRocketMqProxy({
    version: cluster.version,
    cacheDir: options.cacheDir,
    toolchain,
  });
  const taken = new Set<number>();
  const remotingPort = await findFreePortGroup([0], taken);
  const grpcPort = await findFreePortGroup([0], taken);
  const name = `proxy-${remotingPort}`;
  const baseDir = cluster.baseDir;
  const home = join(baseDir, name);
  await mkdir(home, { recursive: true });
  // The TLS files startRocketMqCluster wrote: the remoting endpoint then enforces TLS with the same certificate.
  const tls = cluster.tlsCertificate ? tlsFilePaths(baseDir) : undefined;
  const configFile = join(home, 'rmq-proxy.json');
  await writeFile(
    configFile,
    renderProxyConfig({
      clusterName: cluster.clusterName,
      namesrvAddr: cluster.namesrvAddr,
      remotingPort,
      grpcPort,
      acl: cluster.acl,
      tls,
      overrides: options.config,
    }),
  );
  const jvm = rocketMqJvmArguments({
    heapMb: options.heapMb ?? 256,
    home,
    // The cluster's logback.xml: one capped file under the proxy's user.home (rmq.proxy.logback.xml from the jar
    // would write ~10 rolling files under logs/rocketmqlogs).
    logbackFile: join(baseDir, 'logback.xml'),
    tls,
    extra: [
      ...release.jvmArgs,
      // The proxy's home (ConfigurationManager): its default conf/ paths stay in its own folder.
      `-DRMQ_PROXY_HOME=${home}`,
      ...(options.jvmArgs ?? []),
    ],
  });
  const record: ClusterProcessRecord = {
    role: 'proxy',
    name,
    addr: `127.0.0.1:${remotingPort}`,
    pid: undefined,
    spec: {
      command: toolchain.java,
      args: [...jvm, '-cp', distribution.classpath, PROXY_MAIN, '-pc', configFile, '-pm', 'cluster'],
      cwd: home,
      logFile: join(home, 'stdout.log'),
    },
  };
  // From a worker (an attached cluster) the proxy must outlive the worker, as a restarted broker does.
  const pid = spawnProcess(record.spec, { detached: !cluster.isOwner });
  record.pid = pid;
  cluster.recordProcess(record);
  const proxy = new RocketMqProxy(cluster, record, `127.0.0.1:${grpcPort}`);
  let last: ProbeCommand | undefined;
  try {
    await pollUntilReady(
      `proxy at ${record.addr}`,
      async () => {
        last = await proxyAnswers(record.addr, cluster);
        return last.code === 0 || last.code === TOPIC_NOT_EXIST;
      },
      { timeoutMs: options.startTimeoutMs ?? 120_000, failure: exitFailure(pid, record.spec.logFile) },
    );
  } catch (error) {
    await proxy.stop({ graceMs: 0 });
    const answer = last ? ` (last answer: code ${last.code} ${last.remark ?? ''})` : '';
    throw new RocketMqHarnessError('start', `${(error as Error).message}${answer}`, error);
  }
  return proxy;
}
