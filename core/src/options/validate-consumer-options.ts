import { compileSql92 } from '../filter/sql92';
import { Sql92Error } from '../filter/sql92-error';
import { ConsumeFromWhere, ConsumeMode, MessageModel } from '../model/constants';
import {
  CONSUMER_DEFAULTS,
  GROUP_OPTION_KEYS,
  type ConsumerOptions,
  type ResolvedGroupOptions,
} from './consumer-options';
import {
  GROUP_MAX_LENGTH,
  IssueCollector,
  TOPIC_MAX_LENGTH,
  checkName,
  formatConsumeTimestamp,
  parseConsumeTimestamp,
} from './option-checks';

const KNOWN_KEYS: ReadonlySet<string> = new Set<string>([
  'group',
  'topic',
  'tags',
  'sql',
  'batch',
  'codec',
  'reply',
  ...GROUP_OPTION_KEYS,
]);

/** Checks what one declaration says about its own subscription (topic, tags or sql, batch, codec, reply) and spots unknown keys. */
export function checkDeclaration(issues: IssueCollector, options: ConsumerOptions): void {
  for (const key of Object.keys(options)) {
    if (!KNOWN_KEYS.has(key))
      issues.add(
        key,
        (options as unknown as Record<string, unknown>)[key],
        `a known @Consumer option (${[...KNOWN_KEYS].join(', ')})`,
      );
  }
  checkName(issues, 'group', options.group, GROUP_MAX_LENGTH);
  if (options.group === 'DEFAULT_CONSUMER')
    issues.add('group', options.group, 'any group but DEFAULT_CONSUMER (reserved by RocketMQ)');
  checkName(issues, 'topic', options.topic, TOPIC_MAX_LENGTH);
  if (options.tags !== undefined && typeof options.tags !== 'string')
    issues.add('tags', options.tags, "a TAG expression such as '*' or 'TagA || TagB'");
  checkSql(issues, options);
  issues.boolean('batch', options.batch);
  issues.boolean('reply', options.reply);
  if (options.reply === true && options.batch === true)
    issues.add('reply', options.reply, 'no reply with batch: a reply answers one request message');
  if (
    options.codec !== undefined &&
    (typeof options.codec !== 'object' || typeof options.codec?.decode !== 'function')
  ) {
    issues.add('codec', options.codec, 'an object with decode(body, record) and encode(payload)');
  }
}

function checkSql(issues: IssueCollector, options: ConsumerOptions): void {
  if (options.sql === undefined) return;
  if (options.tags !== undefined) {
    issues.add(
      'sql',
      options.sql,
      'no sql when tags is given: a subscription filters by TAG or by SQL92, not both (TAGS is a property in SQL92)',
    );
    return;
  }
  if (typeof options.sql !== 'string') {
    issues.add('sql', options.sql, 'an SQL92 expression such as "region = \'eu\' AND amount > 100"');
    return;
  }
  try {
    compileSql92(options.sql);
  } catch (error) {
    if (!(error instanceof Sql92Error)) throw error;
    issues.add('sql', options.sql, `an SQL92 expression RocketMQ's broker accepts (${error.message})`);
  }
}

/**
 * Applies defaults to a group's options and checks every range of Java's checkConfig, plus the contradictions
 * rocketmq-spring rejects (ORDERLY with BROADCASTING). Strategy names are checked later, against the registry.
 */
export function resolveGroupOptions(
  issues: IssueCollector,
  options: Partial<ConsumerOptions> & { group: string },
  now = Date.now(),
): ResolvedGroupOptions {
  const o = {
    ...CONSUMER_DEFAULTS,
    consumeTimestamp: formatConsumeTimestamp(now - 30 * 60_000),
    ...stripUndefined(options),
  } as ResolvedGroupOptions;
  // Java fails a lone consumeThreadMax below the default min (20); a default should never cause an error.
  if (
    options.consumeThreadMin === undefined &&
    typeof options.consumeThreadMax === 'number' &&
    options.consumeThreadMax >= 1 &&
    options.consumeThreadMax < o.consumeThreadMin
  ) {
    (o as { consumeThreadMin: number }).consumeThreadMin = Math.max(1, options.consumeThreadMax);
  }
  issues.oneOf('messageModel', options.messageModel, Object.values(MessageModel));
  issues.oneOf('consumeMode', options.consumeMode, Object.values(ConsumeMode));
  issues.oneOf('consumeFromWhere', options.consumeFromWhere, Object.values(ConsumeFromWhere));
  if (
    options.consumeTimestamp !== undefined &&
    (typeof options.consumeTimestamp !== 'string' || parseConsumeTimestamp(options.consumeTimestamp) === undefined)
  ) {
    issues.add(
      'consumeTimestamp',
      options.consumeTimestamp,
      'a local time formatted yyyyMMddHHmmss, e.g. 20261129153000',
    );
  }
  issues.intRange('consumeThreadMin', options.consumeThreadMin, 1, 1000);
  issues.intRange('consumeThreadMax', options.consumeThreadMax, 1, 1000);
  const inRange = (n: unknown) => Number.isInteger(n) && (n as number) >= 1 && (n as number) <= 1000;
  if (inRange(o.consumeThreadMin) && inRange(o.consumeThreadMax) && o.consumeThreadMin > o.consumeThreadMax) {
    issues.add('consumeThreadMin', o.consumeThreadMin, `at most consumeThreadMax (${o.consumeThreadMax})`);
  }
  issues.intRange('consumeConcurrentlyMaxSpan', options.consumeConcurrentlyMaxSpan, 1, 65535);
  issues.intRange('pullThresholdForQueue', options.pullThresholdForQueue, 1, 65535);
  issues.intRange('pullThresholdSizeForQueue', options.pullThresholdSizeForQueue, 1, 1024);
  issues.intRange('pullThresholdForTopic', options.pullThresholdForTopic, 1, 6553500, true);
  issues.intRange('pullThresholdSizeForTopic', options.pullThresholdSizeForTopic, 1, 102400, true);
  issues.intRange('pullInterval', options.pullInterval, 0, 65535);
  issues.intRange('consumeMessageBatchMaxSize', options.consumeMessageBatchMaxSize, 1, 1024);
  issues.intRange('pullBatchSize', options.pullBatchSize, 1, 1024);
  issues.intRange('pullBatchSizeInBytes', options.pullBatchSizeInBytes, 1, 64 * 1024 * 1024);
  issues.intRange('maxReconsumeTimes', options.maxReconsumeTimes, 0, 2 ** 31 - 1, true);
  issues.intRange('suspendCurrentQueueTimeMillis', options.suspendCurrentQueueTimeMillis, 10, 30000);
  if (
    options.consumeTimeout !== undefined &&
    !(typeof options.consumeTimeout === 'number' && options.consumeTimeout > 0 && options.consumeTimeout <= 24 * 60)
  ) {
    issues.add('consumeTimeout', options.consumeTimeout, 'minutes in (0, 1440]; fractions allowed');
  }
  issues.boolean('exclusiveHandoff', options.exclusiveHandoff);
  if (o.consumeMode === 'ORDERLY' && o.messageModel === 'BROADCASTING') {
    issues.add(
      'consumeMode',
      o.consumeMode,
      'CONCURRENTLY when messageModel is BROADCASTING (ORDERLY needs CLUSTERING, as in rocketmq-spring)',
    );
  }
  if (o.exclusiveHandoff && o.messageModel === 'BROADCASTING') {
    issues.add('exclusiveHandoff', true, 'false when messageModel is BROADCASTING (every member reads every queue)');
  }
  const strategy = options.strategy;
  if (
    strategy !== undefined &&
    typeof strategy !== 'string' &&
    typeof strategy !== 'function' &&
    (typeof strategy !== 'object' || typeof strategy?.allocate !== 'function')
  ) {
    issues.add('strategy', strategy, 'a registered strategy name, an AllocationStrategy instance, or its class');
  }
  return o;
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(value)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}
