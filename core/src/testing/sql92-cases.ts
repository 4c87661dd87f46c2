/**
 * One message set and SQL92 expressions over it, each with the messages RocketMQ 5.3.3 selects (worked out from
 * its evaluator's rules, see core/src/filter/sql92-evaluate.ts). Shared by the parser's unit spec and the
 * integration spec that runs the same table on the embedded broker and on a real broker.
 */
export interface Sql92Sample {
  readonly id: number;
  readonly tags?: string;
  readonly properties: Readonly<Record<string, string>>;
}

export const SQL92_SAMPLES: readonly Sql92Sample[] = [
  { id: 0, tags: 'TagA', properties: { region: 'eu', amount: '150', tier: 'gold' } },
  { id: 1, tags: 'TagB', properties: { region: 'us', amount: '50', tier: 'silver' } },
  { id: 2, tags: 'TagA', properties: { region: 'eu', amount: '99' } },
  { id: 3, tags: 'TagC', properties: { region: 'apac', amount: '1000', tier: 'gold', flag: 'true' } },
  { id: 4, tags: 'TagB', properties: { region: 'eu', amount: 'abc', tier: 'bronze' } },
  { id: 5, tags: 'TagA', properties: { amount: '100', tier: 'gold', flag: 'TRUE' } },
  { id: 6, properties: { region: 'us', amount: '5.5', tier: 'platinum', flag: 'false' } },
  { id: 7, tags: 'TagC', properties: { region: 'eu-west', amount: '-20', tier: 'silver' } },
  { id: 8, properties: { region: "it's", amount: '100000000000', tier: 'gold' } },
  { id: 9, properties: { region: 'eu', amount: '100', tier: 'gold', code: '007' } },
];

/** [expression, ids selected]. */
export const SQL92_CASES: ReadonlyArray<readonly [string, readonly number[]]> = [
  ["region = 'eu'", [0, 2, 4, 9]],
  // A missing property makes the comparison NULL: message 5 (no region) is not selected either way.
  ["region <> 'eu'", [1, 3, 6, 7, 8]],
  // Against an int literal a property is read with Integer.valueOf: 'abc', '5.5' and 100000000000 fail.
  ['amount > 100', [0, 3]],
  ['amount >= 100', [0, 3, 5, 9]],
  ['amount < 100.5', [1, 2, 5, 6, 7, 9]],
  ['amount <= 99', [1, 2, 7]],
  ['amount BETWEEN 50 AND 150', [0, 1, 2, 5, 9]],
  ['amount NOT BETWEEN 50 AND 150', [3, 7]],
  ["region IN ('eu', 'us')", [0, 1, 2, 4, 6, 9]],
  ["region NOT IN ('eu', 'us')", [3, 7, 8]],
  ['tier IS NULL', [2]],
  ['tier IS NOT NULL', [0, 1, 3, 4, 5, 6, 7, 8, 9]],
  ["region = 'eu' AND amount > 100", [0]],
  ["region = 'eu' OR tier = 'gold'", [0, 2, 3, 4, 5, 8, 9]],
  ["NOT (region = 'eu')", [1, 3, 6, 7, 8]],
  ["TAGS = 'TagA'", [0, 2, 5]],
  ["TAGS IN ('TagB', 'TagC')", [1, 3, 4, 7]],
  ["region CONTAINS 'eu'", [0, 2, 4, 7, 9]],
  // Unlike NOT (...), NOT CONTAINS on a missing property is FALSE.
  ["region NOT CONTAINS 'eu'", [1, 3, 6, 8]],
  ["region STARTSWITH 'eu-'", [7]],
  ["tier ENDSWITH 'er'", [1, 7]],
  ["tier NOT ENDSWITH 'd'", [1, 4, 6, 7]],
  // Boolean.valueOf: 'true' in any case.
  ['flag = TRUE', [3, 5]],
  ['flag = FALSE', [6]],
  ["region = 'it''s'", [8]],
  ['amount = 100000000000', [8]],
  ['amount > -30 AND amount < 0', [7]],
  ['code = 7', [9]],
  ["code = '7'", []],
  ["(region = 'eu' OR region = 'us') AND NOT (tier = 'gold')", [1, 4, 6]],
  ['region IS NULL OR amount >= 1000', [3, 5]],
  ['amount = 5.5', [6]],
  ["'eu' = region", [0, 2, 4, 9]],
  ["tier = 'gold' AND flag IS NOT NULL", [3, 5]],
  ["Region = 'eu'", []],
  ['amount > 99.5 AND amount < 150.5', [0, 5, 9]],
  ["region in ('apac') and tier = 'gold'", [3]],
];
