import { describe, expect, it } from 'vitest';
import { FEATURES, TARGETS, check, renderTable, summarize } from '../../tools/compat-table.mjs';

/** A vitest JSON report with one file holding the given tests (`[feature, title, status]`). */
const report = (tests: Array<[string, string, string, string?]>) => ({
  testResults: [
    {
      name: '/x/src/compat/a.spec.ts',
      assertionResults: tests.map(([feature, title, status, note]) => ({
        ancestorTitles: [feature],
        title,
        status,
        meta: note ? { compat: note } : {},
      })),
    },
  ],
});

describe("the README's release table", () => {
  it('is the table test/compat-results gives', () => {
    expect(check()).toEqual([]);
  });

  it('reads a feature as works, refused or fails from its tests, and one with no test as not run', () => {
    const [send, timer, acl, sql] = [FEATURES[0]!, FEATURES[8]!, FEATURES[11]!, FEATURES[2]!];
    const { features } = summarize('4.9.7', {
      ...report([
        [send, 'sends', 'passed'],
        [send, 'consumes', 'failed'],
        [timer, 'refused: a timer message', 'passed'],
        [acl, 'signs', 'passed', 'ACL 1.0'],
      ]),
    });
    expect(features[send]!.result).toBe('fails');
    expect(features[timer]!.result).toBe('refused');
    expect(features[acl]).toMatchObject({ result: 'works', note: 'ACL 1.0' });
    expect(features[sql]!.result).toBe('not run');
    const table = renderTable({ [TARGETS[0]!]: { target: TARGETS[0]!, features } });
    expect(table).toContain(`| ${send} | ✗ fails |`);
    expect(table).toContain(`| ${acl} | ✓ ACL 1.0 |`);
    // Features alike in every column share a row: here every one not run but the three above.
    const notRun = FEATURES.filter((f) => ![send, timer, acl].includes(f));
    expect(table).toContain(`| ${notRun.join('; ')} |`);
    expect(table.split('\n')).toHaveLength(2 + 4);
  });

  it('refuses a test outside the listed features, so a new one cannot go missing from the table', () => {
    expect(() => summarize('5.3.3', report([['Something new', 'works', 'passed']]))).toThrow(/Something new/);
  });
});
