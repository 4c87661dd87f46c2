import { ConfigurationError, type ConfigurationIssue } from '../errors/configuration.error';
import { parseSubscription, sqlSubscription } from '../model/subscription';
import { GROUP_OPTION_KEYS, type ConsumerOptions } from '../options/consumer-options';
import { IssueCollector } from '../options/option-checks';
import { checkDeclaration, resolveGroupOptions } from '../options/validate-consumer-options';
import type { ConsumerDeclaration, ConsumerDefinition, SubscriptionDefinition } from './consumer-definition';
import { jsonCodec } from './json.codec';

/**
 * Merges declarations by group into consumer definitions and validates every option. Collects all issues and
 * throws one ConfigurationError, so a start never gets half-way.
 */
export function buildDefinitions(declarations: readonly ConsumerDeclaration[], now = Date.now()): ConsumerDefinition[] {
  const issues: ConfigurationIssue[] = [];
  const byGroup = new Map<string, ConsumerDeclaration[]>();
  for (const declaration of declarations) {
    const collector = new IssueCollector(declaration.handler.className);
    checkDeclaration(collector, declaration.options);
    issues.push(...collector.issues);
    // An invalid declaration is reported, not built (its subscription could not be parsed).
    if (collector.issues.length > 0) continue;
    const list = byGroup.get(declaration.options.group) ?? [];
    list.push(declaration);
    byGroup.set(declaration.options.group, list);
  }
  const definitions: ConsumerDefinition[] = [];
  for (const [group, list] of byGroup) {
    const first = list[0]!;
    const collector = new IssueCollector(first.handler.className);
    const merged = mergeGroupOptions(group, list, issues);
    const options = resolveGroupOptions(collector, merged, now);
    issues.push(...collector.issues);
    const subscriptions: SubscriptionDefinition[] = [];
    const seenTopics = new Map<string, string>();
    for (const d of list) {
      const previous = seenTopics.get(d.options.topic);
      if (previous !== undefined) {
        issues.push({
          source: d.handler.className,
          option: 'topic',
          value: d.options.topic,
          allowed: `a topic not already subscribed by group ${group} (${previous} subscribes it)`,
        });
        continue;
      }
      seenTopics.set(d.options.topic, `${d.handler.className}.${String(d.handler.method)}`);
      subscriptions.push({
        topic: d.options.topic,
        subscription:
          d.options.sql !== undefined
            ? sqlSubscription(d.options.topic, d.options.sql, now)
            : parseSubscription(d.options.topic, d.options.tags, now),
        batch: d.options.batch ?? false,
        codec: d.options.codec ?? jsonCodec,
        reply: d.options.reply ?? false,
        handler: d.handler,
      });
    }
    definitions.push({ group, options, subscriptions, sources: [...new Set(list.map((d) => d.handler.className))] });
  }
  if (issues.length > 0) throw new ConfigurationError(issues);
  return definitions;
}

/** Group options may be given by any declaration of the group; two different values for one option conflict. */
function mergeGroupOptions(
  group: string,
  list: readonly ConsumerDeclaration[],
  issues: ConfigurationIssue[],
): Partial<ConsumerOptions> & { group: string } {
  const merged: Partial<ConsumerOptions> & { group: string } = { group };
  const givenBy = new Map<string, string>();
  for (const d of list) {
    for (const key of GROUP_OPTION_KEYS) {
      const value = d.options[key];
      if (value === undefined) continue;
      const current = merged[key];
      if (current !== undefined && current !== value) {
        issues.push({
          source: d.handler.className,
          option: key,
          value,
          allowed: `the same value in every declaration of group ${group} (${givenBy.get(key)} says ${JSON.stringify(current) ?? String(current)})`,
        });
        continue;
      }
      (merged as Record<string, unknown>)[key] = value;
      givenBy.set(key, d.handler.className);
    }
  }
  return merged;
}
