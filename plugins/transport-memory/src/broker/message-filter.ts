import { compileSql92, type Sql92Filter, type SubscriptionData } from '@mqkit/core';
import type { StoredMessage } from './stored-message';

/** Compiled SQL92 filters by expression; bounded as RocketMQ's parse cache (100 entries). */
const compiled = new Map<string, Sql92Filter>();
const CACHE_SIZE = 100;

function sqlFilter(expression: string): Sql92Filter {
  let filter = compiled.get(expression);
  if (!filter) {
    filter = compileSql92(expression);
    if (compiled.size >= CACHE_SIZE) compiled.delete(compiled.keys().next().value!);
    compiled.set(expression, filter);
  }
  return filter;
}

/**
 * The broker-side filter of a pull: undefined when every message matches; otherwise RocketMQ's tag-hash check
 * (the client re-checks the exact tag) or the SQL92 expression over the stored properties, TAGS included.
 */
export function messageFilter(subscription: SubscriptionData): ((m: StoredMessage) => boolean) | undefined {
  if (subscription.expressionType === 'SQL92') {
    const filter = sqlFilter(subscription.expression);
    return (m) => filter.matches(m.properties);
  }
  const codes = subscription.codes;
  if (codes.size === 0) return undefined;
  return (m) => codes.has(m.tagsCode);
}
