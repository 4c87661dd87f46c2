import type { DependencyContainer } from 'tsyringe';
import { ConfigurationError } from '../errors/configuration.error';
import { NAMESPACE_PATTERN } from '../model/namespace';
import type { ConsumerDeclaration } from '../definition/consumer-definition';
import type { Constructor } from '../definition/explore-consumers';
import type { MessageQueue } from '../model/message-queue';
import type { ProfileOption } from '../options/profile';
import type { ProducerOptions } from '../producer/producer-options';
import type { ConsumeHook } from '../spi/consume-hook';
import type { OffsetStoreProvider } from '../spi/offset-store';
import type { MqkitPlugin, TransportPlugin } from '../spi/plugin';
import { resolveTraceOptions, type MessageTraceOptions } from '../options/trace-options';

/** RocketMQ's MessageQueueListener: called when a consumer's assignment for a topic changes. */
export type MessageQueueListener = (event: {
  readonly group: string;
  readonly topic: string;
  /** Every queue of the topic (BROADCASTING: the same as mqAssigned). */
  readonly mqAll: readonly MessageQueue[];
  readonly mqAssigned: readonly MessageQueue[];
}) => void;

/** The app's options; `enableMsgTrace` traces its consumer groups' handler calls (the producer has its own). */
export interface ConsumerAppOptions extends MessageTraceOptions {
  /** The broker transport, e.g. `memoryTransport()` (embedded) or `rocketmqTransport({ nameServer })`. */
  readonly transport: TransportPlugin;
  /** `@Consumer` classes, or declarations discovered by another container (the NestJS integration). */
  readonly consumers: ReadonlyArray<Constructor | ConsumerDeclaration>;
  /** Where offsets live. Default: the broker's own store (CLUSTERING). BROADCASTING needs one that serves it. */
  readonly offsetStore?: OffsetStoreProvider;
  readonly plugins?: readonly MqkitPlugin[];
  /** 'default' (RocketMQ's intervals), 'fast' (tests) or overrides. */
  readonly profile?: ProfileOption;
  /** Keeps the client id stable across restarts; default `<pid>#<n>`. */
  readonly instanceName?: string;
  /** The IP part of the client id; default the first non-internal IPv4. */
  readonly clientIp?: string;
  /** Parent of the app's own child container; default tsyringe's root container. */
  readonly container?: DependencyContainer;
  readonly hooks?: readonly ConsumeHook[];
  /** App-wide cap on cached message bytes across every queue of every consumer (default 256 MiB). */
  readonly maxCachedBytes?: number;
  /** Registers an injectable, started `Producer` with these options. */
  readonly producer?: ProducerOptions;
  readonly messageQueueListener?: MessageQueueListener;
  /**
   * RocketMQ's namespace (ClientConfig.namespace): every group and topic of the app, its producer's included, is
   * `<namespace>%<name>` on the broker; handlers see their own topic names. Letters, digits, `_` and `-`.
   */
  readonly namespace?: string;
}

export interface StopOptions {
  /** How long to wait for running handler calls before committing and leaving (default 30 s). */
  readonly timeoutMs?: number;
}

/** The app-wide options' own checks (a group's options are checked with its declarations). */
export function checkAppOptions(options: ConsumerAppOptions): void {
  if (
    options.namespace !== undefined &&
    (typeof options.namespace !== 'string' || !NAMESPACE_PATTERN.test(options.namespace))
  ) {
    throw new ConfigurationError({
      source: 'createConsumerApp',
      option: 'namespace',
      value: options.namespace,
      allowed: 'a namespace of 1-64 characters from [a-zA-Z0-9_-]',
    });
  }
  if (
    options.maxCachedBytes !== undefined &&
    !(Number.isInteger(options.maxCachedBytes) && options.maxCachedBytes > 0)
  ) {
    throw new ConfigurationError({
      source: 'createConsumerApp',
      option: 'maxCachedBytes',
      value: options.maxCachedBytes,
      allowed: 'an integer number of bytes > 0',
    });
  }
  resolveTraceOptions('createConsumerApp', options);
}
