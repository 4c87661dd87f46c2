import type { Codec } from '../spi/codec';
import type { TransactionListener } from './transaction';
import type { SendHook } from '../spi/send-hook';
import { ConfigurationError, type ConfigurationIssue } from '../errors/configuration.error';
import {
  COMPRESSION_LEVELS,
  COMPRESSION_TYPES,
  DEFAULT_COMPRESSION_LEVEL,
  type CompressionType,
} from '../codec/compression-type';
import { prepareCompression } from '../codec/body-codec';
import { wrapNamespace } from '../model/namespace';
import { GROUP_MAX_LENGTH, IssueCollector, checkName, checkNamespace } from '../options/option-checks';
import {
  checkTraceOptions,
  traceSettings,
  type MessageTraceOptions,
  type ResolvedTraceOptions,
} from '../options/trace-options';

/**
 * DefaultMQProducer's options (docs/rocketmq-producer-model.md#defaultmqproducer-options), message trace
 * (`enableMsgTrace`) included.
 */
export interface ProducerOptions extends MessageTraceOptions {
  /** producerGroup: 1-120 chars of `[%|a-zA-Z0-9_-]`, not `DEFAULT_PRODUCER`. */
  readonly group: string;
  /** Budget of one send call, retries included (3000 ms). */
  readonly sendMsgTimeout?: number;
  /** Extra attempts of a sync send after a retryable failure (2). */
  readonly retryTimesWhenSendFailed?: number;
  /** Body limit in bytes (4 MiB). */
  readonly maxMessageSize?: number;
  /** Encodes `payload`; JSON by default. */
  readonly codec?: Codec;
  /** Bodies of at least this many bytes are compressed with `compressType` (4096). */
  readonly compressMsgBodyOverHowmuch?: number;
  /**
   * How bodies over `compressMsgBodyOverHowmuch` are compressed: 'ZLIB' (the default, as Java's), 'LZ4' (the LZ4
   * frame format) or 'ZSTD'. Consumers on RocketMQ 5 clients read all three; a 4.x Java consumer reads only ZLIB.
   */
  readonly compressType?: CompressionType;
  /** The compression level (5, as Java's): ZLIB -1 to 9, ZSTD 1 to 22; LZ4 ignores it, as Java does. */
  readonly compressLevel?: number;
  /** Avoid brokers that were slow or failed, for a time from RocketMQ's latency table (false, as in RocketMQ). */
  readonly sendLatencyFaultEnable?: boolean;
  /** Retry on another broker when a sync send is stored but not confirmed (FLUSH_DISK_TIMEOUT...). Default false. */
  readonly retryAnotherBrokerWhenNotStoreOK?: boolean;
  /** RocketMQ's namespace: the group and every topic are sent as `<namespace>%<name>` (docs/namespaces.md). */
  readonly namespace?: string;
  /** Makes the producer transactional: answers the broker's check-backs of its group's half messages. */
  readonly transactionListener?: TransactionListener;
  /** Wrap every producer call (tracing, timing), first outermost; plugins' hooks come after these. */
  readonly hooks?: readonly SendHook[];
}

export interface ResolvedProducerOptions {
  /** Wrapped in the namespace. */
  readonly group: string;
  readonly namespace: string | undefined;
  readonly transactionListener: TransactionListener | undefined;
  readonly sendMsgTimeout: number;
  readonly retryTimesWhenSendFailed: number;
  readonly maxMessageSize: number;
  readonly codec: Codec | undefined;
  readonly compressMsgBodyOverHowmuch: number;
  readonly compressType: CompressionType;
  readonly compressLevel: number;
  readonly sendLatencyFaultEnable: boolean;
  readonly retryAnotherBrokerWhenNotStoreOK: boolean;
  readonly hooks: readonly SendHook[];
  /** Message trace settings; undefined when `enableMsgTrace` is off. */
  readonly trace: ResolvedTraceOptions | undefined;
}

export function resolveProducerOptions(options: ProducerOptions): ResolvedProducerOptions {
  const issues = new IssueCollector('Producer');
  checkName(issues, 'group', options.group, GROUP_MAX_LENGTH);
  if (options.group === 'DEFAULT_PRODUCER')
    issues.add('group', options.group, 'any group but DEFAULT_PRODUCER (reserved by RocketMQ)');
  issues.intRange('sendMsgTimeout', options.sendMsgTimeout, 1, 3_600_000);
  issues.intRange('retryTimesWhenSendFailed', options.retryTimesWhenSendFailed, 0, 100);
  issues.intRange('maxMessageSize', options.maxMessageSize, 1, 64 * 1024 * 1024);
  issues.intRange('compressMsgBodyOverHowmuch', options.compressMsgBodyOverHowmuch, 1, 64 * 1024 * 1024);
  issues.oneOf('compressType', options.compressType, COMPRESSION_TYPES);
  const levels = COMPRESSION_LEVELS[options.compressType ?? 'ZLIB'] ?? COMPRESSION_LEVELS.ZLIB;
  issues.intRange('compressLevel', options.compressLevel, levels[0], levels[1]);
  issues.boolean('sendLatencyFaultEnable', options.sendLatencyFaultEnable);
  issues.boolean('retryAnotherBrokerWhenNotStoreOK', options.retryAnotherBrokerWhenNotStoreOK);
  checkNamespace(issues, options.namespace);
  if (
    options.transactionListener !== undefined &&
    typeof options.transactionListener?.checkLocalTransaction !== 'function'
  ) {
    issues.add('transactionListener', options.transactionListener, 'an object with checkLocalTransaction(message)');
  }
  if (
    options.hooks !== undefined &&
    (!Array.isArray(options.hooks) || options.hooks.some((h) => typeof h?.around !== 'function'))
  ) {
    issues.add('hooks', options.hooks, 'an array of send hooks, each with around(invocation, proceed)');
  }
  checkTraceOptions(issues, options);
  if (issues.issues.length > 0) throw new ConfigurationError(issues.issues as ConfigurationIssue[]);
  return {
    group: wrapNamespace(options.namespace, options.group),
    namespace: options.namespace,
    transactionListener: options.transactionListener,
    sendMsgTimeout: options.sendMsgTimeout ?? 3000,
    retryTimesWhenSendFailed: options.retryTimesWhenSendFailed ?? 2,
    maxMessageSize: options.maxMessageSize ?? 4 * 1024 * 1024,
    codec: options.codec,
    compressMsgBodyOverHowmuch: options.compressMsgBodyOverHowmuch ?? 4096,
    compressType: options.compressType ?? 'ZLIB',
    compressLevel: options.compressLevel ?? DEFAULT_COMPRESSION_LEVEL,
    sendLatencyFaultEnable: options.sendLatencyFaultEnable ?? false,
    retryAnotherBrokerWhenNotStoreOK: options.retryAnotherBrokerWhenNotStoreOK ?? false,
    hooks: options.hooks ?? [],
    trace: traceSettings(options),
  };
}

/**
 * Loads what `compressType` needs before the first send (the WASM zstd encoder on a Node without zstd, LZ4's
 * platform binary), so that sends compress synchronously; a platform that cannot is refused at start.
 */
export async function prepareProducerCompression(options: ResolvedProducerOptions, source = 'Producer'): Promise<void> {
  try {
    await prepareCompression(options.compressType);
  } catch (error) {
    throw new ConfigurationError(
      {
        source,
        option: 'compressType',
        value: options.compressType,
        allowed: `ZLIB, or a type this platform can load (${(error as Error).message})`,
      },
      error,
    );
  }
}
