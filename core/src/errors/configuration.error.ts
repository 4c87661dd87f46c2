import { MqkitError } from './mqkit.error';

/** One invalid option: where it was declared, which option, the value given and what is allowed. */
export interface ConfigurationIssue {
  /** The class (or plugin) that declared the option, e.g. `OrderConsumer`. */
  readonly source: string;
  readonly option: string;
  readonly value: unknown;
  /** The allowed range or values, in words, e.g. `[1, 1000]` or `one of AVG, AVG_BY_CIRCLE`. */
  readonly allowed: string;
}

function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'function') return value.name ? `class ${value.name}` : 'a function';
  if (value === undefined) return 'undefined';
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

export function describeIssue(issue: ConfigurationIssue): string {
  return `${issue.source}: option ${issue.option} = ${show(issue.value)} is invalid; allowed: ${issue.allowed}`;
}

/**
 * Invalid or contradictory options. Thrown by `start()` before anything starts; lists every issue found,
 * the first one also in `source`, `option`, `value` and `allowed`.
 */
export class ConfigurationError extends MqkitError {
  readonly issues: readonly ConfigurationIssue[];
  readonly source: string;
  readonly option: string;
  readonly value: unknown;
  readonly allowed: string;

  constructor(issues: ConfigurationIssue | readonly ConfigurationIssue[], cause?: unknown) {
    const list = Array.isArray(issues) ? (issues as readonly ConfigurationIssue[]) : [issues as ConfigurationIssue];
    if (list.length === 0) throw new TypeError('ConfigurationError needs at least one issue');
    const message =
      list.length === 1
        ? describeIssue(list[0]!)
        : `${list.length} invalid options:\n  ${list.map(describeIssue).join('\n  ')}`;
    super(message, { code: 'CONFIGURATION', retriable: false, cause });
    this.issues = list;
    this.source = list[0]!.source;
    this.option = list[0]!.option;
    this.value = list[0]!.value;
    this.allowed = list[0]!.allowed;
  }
}
