import { afterAll, beforeAll } from 'vitest';
import type { OffsetAdmin, RouteResolver, StandaloneProducerOptions, TransportPlugin } from '@mqkit/core';
import { rocketmqTransport, type RocketMqTransportOptions } from '@mqkit/transport-rocketmq';
import {
  findJavaToolchain,
  provisionRocketMq,
  rocketMqTestCluster,
  sendProbeRequest,
  type RocketMqCluster,
} from '@mqkit/transport-rocketmq/testing';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { BrokerSetup } from './scenarios';
import { TestBroker } from './test-broker';

/** The run's real cluster (started by the global setup). */
export async function testCluster(): Promise<RocketMqCluster> {
  return rocketMqTestCluster();
}

/** A transport to the cluster, with its TLS certificate and ACL credentials when it has them. */
export function clusterTransport(
  cluster: RocketMqCluster,
  extra: Partial<RocketMqTransportOptions> = {},
): TransportPlugin {
  return rocketmqTransport({
    nameServer: cluster.namesrvAddr,
    tls: cluster.tlsCertificate ? { ca: cluster.tlsCertificate } : undefined,
    credentials: cluster.acl,
    ...extra,
  });
}

/** Runs RocketMQ's own `mqadmin` (MQAdminStartup from rocketmq-tools 5.3.3, on the harness's classpath). */
export async function mqadmin(args: readonly string[]): Promise<string> {
  const java = findJavaToolchain();
  const { classpath } = await provisionRocketMq({ toolchain: java });
  // Its own user.home, so the tool's logs (~/logs/rocketmqlogs) land in a temp folder removed afterwards.
  const home = await mkdtemp(join(tmpdir(), 'mqkit-mqadmin-'));
  try {
    const { stdout } = await promisify(execFile)(
      java.java,
      [
        '-Xmx128m',
        `-Duser.home=${home}`,
        '-cp',
        classpath,
        'org.apache.rocketmq.tools.command.MQAdminStartup',
        ...args,
      ],
      {
        env: { ...process.env, ROCKETMQ_HOME: home },
        cwd: home,
        timeout: 60_000,
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    return stdout;
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

const UPDATE_BROKER_CONFIG = 25;

/** Sets broker config keys at runtime on every broker (UPDATE_BROKER_CONFIG, as `mqadmin updateBrokerConfig`). */
export async function updateBrokerConfig(cluster: RocketMqCluster, entries: Record<string, string>): Promise<void> {
  const body = Buffer.from(
    Object.entries(entries)
      .map(([k, v]) => `${k}=${v}\n`)
      .join(''),
    'utf8',
  );
  for (const broker of cluster.brokers) {
    const response = await sendProbeRequest(broker.addr, { code: UPDATE_BROKER_CONFIG, body }, cluster.probeOptions);
    if (response.code !== 0)
      throw new Error(`updateBrokerConfig on ${broker.name}: code ${response.code} ${response.remark ?? ''}`);
  }
}

const GET_BROKER_CONFIG = 26;

/** Each broker's running config, by broker name (GET_BROKER_CONFIG, as `mqadmin getBrokerConfig`). */
export async function brokerConfigs(cluster: RocketMqCluster): Promise<Map<string, Map<string, string>>> {
  const configs = new Map<string, Map<string, string>>();
  for (const broker of cluster.brokers) {
    const response = await sendProbeRequest(broker.addr, { code: GET_BROKER_CONFIG }, cluster.probeOptions);
    if (response.code !== 0)
      throw new Error(`getBrokerConfig on ${broker.name}: code ${response.code} ${response.remark ?? ''}`);
    // The body is Java properties text with one `key=value` a line (MixAll.properties2String).
    const entries = response.body
      .toString('utf8')
      .split('\n')
      .map((line) => /^([^=]+)=(.*)$/.exec(line))
      .filter((match) => match !== null)
      .map((match): [string, string] => [match[1]!, match[2]!]);
    configs.set(broker.name, new Map(entries));
  }
  return configs;
}

/** Apps, producers and an admin client on one real cluster; `close()` stops them all (the cluster runs on). */
export class RocketMqHarness extends TestBroker {
  readonly kind = 'rocketmq';
  readonly timeoutMs = 90_000;
  protected readonly sendWindow = 64;

  /** `defaults` apply to every transport the harness makes (the compatibility suite points them at a proxy). */
  constructor(
    readonly cluster: RocketMqCluster,
    private readonly defaults: Partial<RocketMqTransportOptions> = {},
  ) {
    super();
  }

  get brokerNames(): readonly string[] {
    return [...new Set(this.cluster.brokers.map((b) => b.brokerName))];
  }

  transport(extra: Partial<RocketMqTransportOptions> = {}): TransportPlugin {
    return clusterTransport(this.cluster, { ...this.defaults, ...extra });
  }

  // A generous send timeout: the test brokers share two cores with everything else running on the box.
  protected override producerDefaults(): Partial<StandaloneProducerOptions> {
    return { profile: 'fast', sendMsgTimeout: 10_000 };
  }

  async createTopic(topic: string, queues: number, brokers?: readonly string[]): Promise<void> {
    const admin = await this.adminApp();
    await admin.transport.topicAdmin!.createTopic({ topic, queues, brokers });
  }

  async routes(): Promise<RouteResolver> {
    return (await this.adminApp()).transport.routes;
  }

  async offsetAdmin(): Promise<OffsetAdmin> {
    return (await this.adminApp()).transport.offsetAdmin!;
  }
}

/** The scenarios' real cluster: the run's, shared by every test (each gets fresh topics and groups). */
export function rocketMqBroker(): BrokerSetup {
  return {
    kind: 'rocketmq',
    label: 'a real cluster',
    open: async () => new RocketMqHarness(await testCluster()),
  };
}

/**
 * The suite's cluster and harness: the run's cluster before the suite's tests, the harness's apps stopped after
 * them. `set` hands both to the suite's own variables.
 */
export function useRocketMqHarness(set: (cluster: RocketMqCluster, harness: RocketMqHarness) => void): void {
  let harness: RocketMqHarness | undefined;
  beforeAll(async () => {
    const cluster = await testCluster();
    harness = new RocketMqHarness(cluster);
    set(cluster, harness);
  });
  afterAll(async () => harness?.close());
}
