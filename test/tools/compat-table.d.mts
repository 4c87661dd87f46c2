/** Types of compat-table.mjs (the README's release table from the compatibility suite's reports). */
export interface FeatureResult {
  result: 'works' | 'refused' | 'not relayed' | 'not served' | 'fails' | 'not run';
  note?: string;
  tests: string[];
}
export interface TargetResults {
  target: string;
  features: Record<string, FeatureResult>;
}
export const TARGETS: readonly string[];
export const FEATURES: readonly string[];
export function summarize(target: string, report: unknown): TargetResults;
export function renderTable(results: Record<string, TargetResults>): string;
export function check(reportsDir?: string): string[];
