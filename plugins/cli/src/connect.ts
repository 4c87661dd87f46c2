import {
  createAdmin,
  createProducer,
  createPullConsumer,
  type Admin,
  type PullConsumer,
  type PullConsumerOptions,
  type StandaloneProducer,
  type TransportPlugin,
} from '@mqkit/core';
import { rocketmqTransport } from '@mqkit/transport-rocketmq';
import { UsageError } from './usage-error';

/** The options every command takes. */
export interface GlobalOptions {
  readonly namesrv?: string;
  readonly json?: boolean;
}

/** Makes the transport of every connection; the CLI's is RocketMQ's remoting protocol to the name server. */
export type TransportFactory = (nameServer: string) => TransportPlugin;

/** One command's connections to the cluster, opened on first use and closed together. */
export class Cluster {
  private readonly closers: (() => Promise<void>)[] = [];
  private adminClient: Promise<Admin> | undefined;
  readonly nameServer: string;

  constructor(
    options: GlobalOptions,
    env: NodeJS.ProcessEnv = process.env,
    private readonly makeTransport: TransportFactory = (nameServer) => rocketmqTransport({ nameServer }),
  ) {
    const nameServer = options.namesrv ?? env.MQKIT_NAMESRV;
    if (!nameServer || nameServer.trim() === '')
      throw new UsageError('no name server: give --namesrv host:port (several: a;b) or set MQKIT_NAMESRV');
    this.nameServer = nameServer;
  }

  /** An admin client, after a first route lookup proved a name server answers (else a UsageError, exit 2). */
  admin(): Promise<Admin> {
    this.adminClient ??= this.openAdmin();
    return this.adminClient;
  }

  async producer(group: string): Promise<StandaloneProducer> {
    await this.admin(); // fails fast, with the usage error, when no name server answers
    const producer = await createProducer({
      transport: this.transport(),
      group,
      instanceName: instanceName('producer'),
    });
    this.closers.push(() => producer.stop());
    return producer;
  }

  async pullConsumer(options: Omit<PullConsumerOptions, 'transport'>): Promise<PullConsumer> {
    await this.admin();
    const consumer = await createPullConsumer({
      ...options,
      transport: this.transport(),
      instanceName: instanceName('tail'),
    });
    this.closers.push(() => consumer.close());
    return consumer;
  }

  /** Closes what was opened, last first. */
  async close(): Promise<void> {
    while (this.closers.length > 0) await this.closers.pop()!().catch(() => undefined);
  }

  private transport(): TransportPlugin {
    return this.makeTransport(this.nameServer);
  }

  private async openAdmin(): Promise<Admin> {
    const admin = await createAdmin({ transport: this.transport(), instanceName: instanceName('admin') });
    this.closers.push(() => admin.close());
    try {
      // The topic list is one name server request: an answer proves the cluster is there.
      await admin.topics();
    } catch (error) {
      throw new UsageError(
        `cannot reach the name server ${this.nameServer}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    return admin;
  }
}

/** Each connection gets its own client id: RocketMQ refuses two clients of one group with the same id. */
function instanceName(role: string): string {
  return `mqkit-cli-${role}-${process.pid}-${Date.now().toString(36)}`;
}
