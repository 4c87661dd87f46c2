import type { ConfigurationIssue } from '../errors/configuration.error';
import { NAMESPACE_PATTERN } from '../model/namespace';

/** Collects configuration issues for one source (a class or a plugin), so every problem is reported at once. */
export class IssueCollector {
  readonly issues: ConfigurationIssue[] = [];

  constructor(private readonly source: string) {}

  add(option: string, value: unknown, allowed: string): void {
    this.issues.push({ source: this.source, option, value, allowed });
  }

  /** An integer in [min, max]; `orMinusOne` also allows -1 ("off"). */
  intRange(option: string, value: unknown, min: number, max: number, orMinusOne = false): void {
    if (value === undefined) return;
    const ok =
      typeof value === 'number' &&
      Number.isInteger(value) &&
      ((value >= min && value <= max) || (orMinusOne && value === -1));
    if (!ok) this.add(option, value, `${orMinusOne ? '-1 or ' : ''}an integer in [${min}, ${max}]`);
  }

  oneOf(option: string, value: unknown, allowed: readonly string[]): void {
    if (value === undefined) return;
    if (typeof value !== 'string' || !allowed.includes(value)) this.add(option, value, `one of ${allowed.join(', ')}`);
  }

  boolean(option: string, value: unknown): void {
    if (value !== undefined && typeof value !== 'boolean') this.add(option, value, 'true or false');
  }
}

/** RocketMQ's name rule for groups and topics (Validators): `[%|a-zA-Z0-9_-]+`. */
export const NAME_PATTERN = /^[%|a-zA-Z0-9_-]+$/;
export const GROUP_MAX_LENGTH = 120;
export const TOPIC_MAX_LENGTH = 127;

export function checkName(issues: IssueCollector, option: string, value: unknown, maxLength: number): void {
  if (typeof value !== 'string' || value.trim() === '') {
    issues.add(option, value, `a non-blank string of at most ${maxLength} characters from [%|a-zA-Z0-9_-]`);
  } else if (value.length > maxLength) {
    issues.add(option, value, `at most ${maxLength} characters (got ${value.length})`);
  } else if (!NAME_PATTERN.test(value)) {
    issues.add(option, value, 'only the characters [%|a-zA-Z0-9_-]');
  }
}

/** Parses RocketMQ's `yyyyMMddHHmmss` (local time); undefined when malformed. */
export function parseConsumeTimestamp(value: string): number | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/.exec(value);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  const date = new Date(y, mo - 1, d, h, mi, s);
  if (
    date.getFullYear() !== y ||
    date.getMonth() !== mo - 1 ||
    date.getDate() !== d ||
    date.getHours() !== h ||
    date.getMinutes() !== mi
  )
    return undefined;
  return date.getTime();
}

export function formatConsumeTimestamp(ms: number): string {
  const d = new Date(ms);
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${p(d.getFullYear(), 4)}${p(d.getMonth() + 1)}${p(d.getDate())}${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
}

/** A RocketMQ namespace: letters, digits, `_` and `-`, at most 64 (`%` separates it from the name). */
export function checkNamespace(issues: IssueCollector, value: unknown): void {
  if (value === undefined) return;
  if (typeof value !== 'string' || !NAMESPACE_PATTERN.test(value))
    issues.add('namespace', value, 'a namespace of 1-64 characters from [a-zA-Z0-9_-]');
}
