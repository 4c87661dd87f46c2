import type { Sql92Node } from './sql92-ast';
import { EvaluationFailure, evaluateSql92 } from './sql92-evaluate';
import { parseSql92 } from './sql92-parser';

/** A compiled SQL92 selector: RocketMQ's property filter (`MessageSelector.bySql`). */
export interface Sql92Filter {
  readonly expression: string;
  /**
   * Whether a message with these properties (user and system ones: TAGS, KEYS, ...) is selected: the expression
   * is TRUE. NULL, FALSE and an evaluation that fails (text compared with a number) do not select, as on the
   * broker.
   */
  matches(properties: Readonly<Record<string, string | undefined>>): boolean;
}

/** Parses and checks an expression; throws Sql92Error naming the column and the reason. */
export function compileSql92(expression: string): Sql92Filter {
  const root: Sql92Node = parseSql92(expression);
  return {
    expression,
    matches(properties) {
      try {
        return evaluateSql92(root, properties) === true;
      } catch (error) {
        if (error instanceof EvaluationFailure) return false;
        throw error;
      }
    },
  };
}
