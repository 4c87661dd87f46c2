import { DLQ_GROUP_TOPIC_PREFIX, RETRY_GROUP_TOPIC_PREFIX } from './constants';
import { isSystemTopic } from './system-topics';

/**
 * RocketMQ's namespaces (ClientConfig.namespace, NamespaceUtil): a shared cluster keeps tenants apart by naming
 * every topic and group `<namespace>%<name>`; retry and DLQ topics keep their prefix in front:
 * `%RETRY%<namespace>%<group>`. System topics (TBW102, RMQ_SYS_*, rmq_sys_*, ...) and system groups
 * (CID_RMQ_SYS_*) are never wrapped, and a name already wrapped stays as it is.
 */

/** A namespace: letters, digits, `_` and `-` (`%` is the separator). */
export const NAMESPACE_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

function isSystem(name: string): boolean {
  return isSystemTopic(name) || name.startsWith('CID_RMQ_SYS_');
}

function splitPrefix(name: string): [prefix: string, rest: string] {
  if (name.startsWith(RETRY_GROUP_TOPIC_PREFIX))
    return [RETRY_GROUP_TOPIC_PREFIX, name.slice(RETRY_GROUP_TOPIC_PREFIX.length)];
  if (name.startsWith(DLQ_GROUP_TOPIC_PREFIX))
    return [DLQ_GROUP_TOPIC_PREFIX, name.slice(DLQ_GROUP_TOPIC_PREFIX.length)];
  return ['', name];
}

/** `name` as the broker knows it in `namespace` (NamespaceUtil.wrapNamespace). */
export function wrapNamespace(namespace: string | undefined, name: string): string {
  if (!namespace || !name || isSystem(name)) return name;
  const [prefix, rest] = splitPrefix(name);
  if (rest.startsWith(`${namespace}%`)) return name;
  return `${prefix}${namespace}%${rest}`;
}

/** `name` as the application knows it (NamespaceUtil.withoutNamespace): names of other namespaces stay whole. */
export function withoutNamespace(namespace: string | undefined, name: string): string {
  if (!namespace || !name) return name;
  const [prefix, rest] = splitPrefix(name);
  if (!rest.startsWith(`${namespace}%`)) return name;
  return prefix + rest.slice(namespace.length + 1);
}
