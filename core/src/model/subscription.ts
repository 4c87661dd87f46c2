import { compileSql92 } from '../filter/sql92';
import { javaStringHashCode } from '../util/java-hash';

/**
 * A parsed subscription expression, as RocketMQ's FilterAPI builds it. TAG: `*` or empty means all; otherwise
 * tags split on `||`, trimmed, empty parts dropped; codes are Java String.hashCode of each tag. SQL92: the
 * broker evaluates the expression over the message properties; tags and codes are empty.
 */
export interface SubscriptionData {
  readonly topic: string;
  readonly expression: string;
  readonly expressionType: 'TAG' | 'SQL92';
  /** Empty means every message matches (always empty for SQL92). */
  readonly tags: ReadonlySet<string>;
  readonly codes: ReadonlySet<number>;
  readonly subVersion: number;
}

export function parseSubscription(
  topic: string,
  expression: string | undefined,
  subVersion = Date.now(),
): SubscriptionData {
  const raw = (expression ?? '').trim();
  const tags = new Set<string>();
  const codes = new Set<number>();
  if (raw !== '' && raw !== '*') {
    for (const part of raw.split('||')) {
      const tag = part.trim();
      if (tag === '') continue;
      tags.add(tag);
      codes.add(javaStringHashCode(tag));
    }
  }
  return { topic, expression: tags.size === 0 ? '*' : raw, expressionType: 'TAG', tags, codes, subVersion };
}

/** An SQL92 subscription (`MessageSelector.bySql`); throws Sql92Error when the expression cannot be used. */
export function sqlSubscription(topic: string, expression: string, subVersion = Date.now()): SubscriptionData {
  compileSql92(expression);
  return { topic, expression, expressionType: 'SQL92', tags: new Set(), codes: new Set(), subVersion };
}

/** The client-side exact re-check after the broker's hash filter (PullAPIWrapper.processPullResult). */
export function tagMatches(sub: SubscriptionData, tag: string | undefined): boolean {
  return sub.tags.size === 0 || (tag !== undefined && sub.tags.has(tag));
}
