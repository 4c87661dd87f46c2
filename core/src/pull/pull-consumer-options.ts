import type { DependencyContainer } from 'tsyringe';
import { ConfigurationError } from '../errors/configuration.error';
import type { ConsumeFromWhere, MessageModel } from '../model/constants';
import type { ResolvedGroupOptions } from '../options/consumer-options';
import type { ProfileOption } from '../options/profile';
import { wrapNamespace } from '../model/namespace';
import { GROUP_MAX_LENGTH, IssueCollector, checkName, checkNamespace } from '../options/option-checks';
import { resolveGroupOptions } from '../options/validate-consumer-options';
import type { StrategyOption } from '../spi/allocation-strategy';
import type { Codec } from '../spi/codec';
import type { OffsetStoreProvider } from '../spi/offset-store';
import type { MqkitPlugin } from '../spi/plugin';
import type { TransportPlugin } from '../spi/transport.plugin';

/**
 * Options of `createPullConsumer`: DefaultLitePullConsumer's names and defaults (pullBatchSize 10, autoCommit on
 * every 5 s, poll timeout 5 s), plus the client options every mqkit client has.
 */
export interface PullConsumerOptions {
  readonly transport: TransportPlugin;
  /** consumerGroup: 1-120 chars of `[%|a-zA-Z0-9_-]`. */
  readonly group: string;
  readonly messageModel?: MessageModel;
  /** Where a queue with no stored offset starts (default CONSUME_FROM_LAST_OFFSET). */
  readonly consumeFromWhere?: ConsumeFromWhere;
  /** For CONSUME_FROM_TIMESTAMP: `yyyyMMddHHmmss`, local time. */
  readonly consumeTimestamp?: string;
  /** Allocation of subscribed topics' queues among the group's members (default AVG). */
  readonly strategy?: StrategyOption;
  /** Store what poll returned every autoCommitIntervalMs (default true); else only `commit()` stores. */
  readonly autoCommit?: boolean;
  /** Default 5000; at least 1000 (Java ignores smaller values). */
  readonly autoCommitIntervalMs?: number;
  /** poll()'s timeout when none is given (default 5000 ms). */
  readonly pollTimeoutMs?: number;
  /** Messages per pull, and at most this many per poll (default 10). */
  readonly pullBatchSize?: number;
  readonly pullBatchSizeInBytes?: number;
  readonly pullThresholdForQueue?: number;
  /** MiB. */
  readonly pullThresholdSizeForQueue?: number;
  readonly pullThresholdForTopic?: number;
  /** MiB. */
  readonly pullThresholdSizeForTopic?: number;
  /** Decodes `payload`; JSON by default. */
  readonly codec?: Codec;
  /** Where offsets live; default the broker's own store. */
  readonly offsetStore?: OffsetStoreProvider;
  readonly plugins?: readonly MqkitPlugin[];
  /** Cap on cached message bytes across every queue (default 256 MiB). */
  readonly maxCachedBytes?: number;
  readonly profile?: ProfileOption;
  readonly instanceName?: string;
  readonly clientIp?: string;
  readonly container?: DependencyContainer;
  /** RocketMQ's namespace: the group and topics are `<namespace>%<name>` on the broker; the API shows plain names. */
  readonly namespace?: string;
}

export interface ResolvedPullConsumerOptions {
  readonly namespace: string | undefined;
  readonly group: ResolvedGroupOptions;
  readonly autoCommit: boolean;
  readonly autoCommitIntervalMs: number;
  readonly pollTimeoutMs: number;
  readonly maxCachedBytes: number;
}

const GROUP_KEYS = [
  'messageModel',
  'consumeFromWhere',
  'consumeTimestamp',
  'strategy',
  'pullBatchSize',
  'pullBatchSizeInBytes',
  'pullThresholdForQueue',
  'pullThresholdSizeForQueue',
  'pullThresholdForTopic',
  'pullThresholdSizeForTopic',
] as const;
const CLIENT_KEYS = [
  'transport',
  'group',
  'namespace',
  'autoCommit',
  'autoCommitIntervalMs',
  'pollTimeoutMs',
  'codec',
  'offsetStore',
  'plugins',
  'maxCachedBytes',
  'profile',
  'instanceName',
  'clientIp',
  'container',
] as const;
const KNOWN: ReadonlySet<string> = new Set<string>([...GROUP_KEYS, ...CLIENT_KEYS]);

/** Checks every option at once; throws one ConfigurationError listing each problem. */
export function resolvePullConsumerOptions(options: PullConsumerOptions): ResolvedPullConsumerOptions {
  const issues = new IssueCollector('createPullConsumer');
  for (const key of Object.keys(options)) {
    if (!KNOWN.has(key))
      issues.add(
        key,
        (options as unknown as Record<string, unknown>)[key],
        `a known createPullConsumer option (${[...KNOWN].join(', ')})`,
      );
  }
  const groupOptions: Record<string, unknown> = {
    group: wrapNamespace(options.namespace, options.group),
    pullBatchSize: 10,
  };
  for (const key of GROUP_KEYS) if (options[key] !== undefined) groupOptions[key] = options[key];
  const group = resolveGroupOptions(issues, groupOptions as { group: string });
  checkName(issues, 'group', options.group, GROUP_MAX_LENGTH);
  checkNamespace(issues, options.namespace);
  issues.boolean('autoCommit', options.autoCommit);
  issues.intRange('autoCommitIntervalMs', options.autoCommitIntervalMs, 1_000, 86_400_000);
  issues.intRange('pollTimeoutMs', options.pollTimeoutMs, 0, 2 ** 31 - 1);
  if (
    options.maxCachedBytes !== undefined &&
    !(Number.isInteger(options.maxCachedBytes) && options.maxCachedBytes > 0)
  ) {
    issues.add('maxCachedBytes', options.maxCachedBytes, 'an integer number of bytes > 0');
  }
  if (options.codec !== undefined && typeof options.codec?.decode !== 'function')
    issues.add('codec', options.codec, 'an object with decode(body, record) and encode(payload)');
  if (issues.issues.length > 0) throw new ConfigurationError(issues.issues);
  return {
    namespace: options.namespace,
    group,
    autoCommit: options.autoCommit ?? true,
    autoCommitIntervalMs: options.autoCommitIntervalMs ?? 5_000,
    pollTimeoutMs: options.pollTimeoutMs ?? 5_000,
    maxCachedBytes: options.maxCachedBytes ?? 256 * 1024 * 1024,
  };
}
