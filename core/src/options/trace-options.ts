import { ConfigurationError, type ConfigurationIssue } from '../errors/configuration.error';
import { IssueCollector, TOPIC_MAX_LENGTH, checkName } from './option-checks';
import { RMQ_SYS_TRACE_TOPIC } from '../model/system-topics';

/**
 * RocketMQ's message trace settings (ClientConfig `enableTrace`/`traceTopic`/`traceMsgBatchNum`, set through the
 * DefaultMQProducer and DefaultMQPushConsumer constructors' `enableMsgTrace` and `customizedTraceTopic`), shared by
 * producers and consumer apps.
 */
export interface MessageTraceOptions {
  /**
   * Records every send (Pub, EndTransaction) or handler call (SubBefore, SubAfter) in RocketMQ's trace format and
   * sends the records, asynchronously and in batches, to the trace topic, where `mqadmin queryMsgTraceById` and the
   * dashboard read them. Default false. The broker needs `traceTopicEnable=true` for RMQ_SYS_TRACE_TOPIC.
   */
  readonly enableMsgTrace?: boolean;
  /** The trace topic (default RMQ_SYS_TRACE_TOPIC); it must exist: create it like any topic. */
  readonly customizedTraceTopic?: string;
  /** Trace contexts per flush, as Java's traceMsgBatchNum (10, at most 20). */
  readonly traceMsgBatchNum?: number;
  /**
   * Trace contexts waiting to be sent, at most (2048, the capacity of Java's queue). Past it new records are dropped
   * and counted (`trace.dropped`, the status' `dropped`): a trace never holds up a send or a handler.
   */
  readonly traceQueueSize?: number;
}

export interface ResolvedTraceOptions {
  readonly traceTopic: string;
  readonly batchNum: number;
  readonly queueSize: number;
}

/** The option checks, added to a client's other issues. */
export function checkTraceOptions(issues: IssueCollector, options: MessageTraceOptions): void {
  issues.boolean('enableMsgTrace', options.enableMsgTrace);
  if (options.customizedTraceTopic !== undefined)
    checkName(issues, 'customizedTraceTopic', options.customizedTraceTopic, TOPIC_MAX_LENGTH);
  issues.intRange('traceMsgBatchNum', options.traceMsgBatchNum, 1, 20);
  issues.intRange('traceQueueSize', options.traceQueueSize, 1, 1_000_000);
}

/** The resolved settings when trace is on, undefined when off; throws ConfigurationError naming `source`. */
export function resolveTraceOptions(source: string, options: MessageTraceOptions): ResolvedTraceOptions | undefined {
  const issues = new IssueCollector(source);
  checkTraceOptions(issues, options);
  if (issues.issues.length > 0) throw new ConfigurationError(issues.issues as ConfigurationIssue[]);
  return traceSettings(options);
}

/** The settings of options already checked ({@link checkTraceOptions}): undefined when trace is off. */
export function traceSettings(options: MessageTraceOptions): ResolvedTraceOptions | undefined {
  if (options.enableMsgTrace !== true) return undefined;
  return {
    traceTopic: options.customizedTraceTopic ?? RMQ_SYS_TRACE_TOPIC,
    batchNum: options.traceMsgBatchNum ?? 10,
    queueSize: options.traceQueueSize ?? 2048,
  };
}
