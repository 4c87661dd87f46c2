import { wrapNamespace } from '../model/namespace';
import type { ConsumerDefinition } from './consumer-definition';

/**
 * The definitions as the broker knows them in a namespace: every group and topic `<namespace>%<name>` (the retry
 * topic follows from the group: `%RETRY%<namespace>%<group>`). Handlers still see their own topic names.
 */
export function inNamespace(
  definitions: readonly ConsumerDefinition[],
  namespace: string | undefined,
): readonly ConsumerDefinition[] {
  if (!namespace) return definitions;
  const wrap = (name: string) => wrapNamespace(namespace, name);
  return definitions.map((d) => ({
    ...d,
    group: wrap(d.group),
    options: { ...d.options, group: wrap(d.options.group) },
    subscriptions: d.subscriptions.map((s) => ({
      ...s,
      topic: wrap(s.topic),
      subscription: { ...s.subscription, topic: wrap(s.subscription.topic) },
    })),
  }));
}
