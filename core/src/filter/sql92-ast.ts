/**
 * Values and expression nodes of an SQL92 selector, typed as RocketMQ's Java evaluator types them: message
 * properties are strings, integer literals are Integer (Long beyond int range), decimal literals are Double.
 */
export type Sql92Number =
  | { readonly type: 'int'; readonly value: number }
  | { readonly type: 'long'; readonly value: bigint }
  | { readonly type: 'double'; readonly value: number };

export type Sql92Value = string | boolean | null | Sql92Number;

export type ComparisonOperator = '=' | '<>' | '>' | '>=' | '<' | '<=';
export type TextOperator = 'CONTAINS' | 'STARTSWITH' | 'ENDSWITH';

export type Sql92Node =
  | { readonly kind: 'literal'; readonly value: Sql92Value }
  | { readonly kind: 'property'; readonly name: string }
  | { readonly kind: 'negate'; readonly operand: Sql92Node }
  | { readonly kind: 'not'; readonly operand: Sql92Node }
  | { readonly kind: 'and' | 'or'; readonly left: Sql92Node; readonly right: Sql92Node }
  | { readonly kind: 'compare'; readonly op: ComparisonOperator; readonly left: Sql92Node; readonly right: Sql92Node }
  | { readonly kind: 'is-null'; readonly operand: Sql92Node; readonly negated: boolean }
  | { readonly kind: 'in'; readonly property: string; readonly values: ReadonlySet<string>; readonly negated: boolean }
  | {
      readonly kind: 'text';
      readonly op: TextOperator;
      readonly operand: Sql92Node;
      readonly literal: string;
      readonly negated: boolean;
    };

/** Nodes whose value is TRUE, FALSE or NULL (Java's BooleanExpression). */
export function isBooleanNode(node: Sql92Node): boolean {
  if (node.kind === 'literal') return node.value === null || typeof node.value === 'boolean';
  return (
    node.kind === 'not' ||
    node.kind === 'and' ||
    node.kind === 'or' ||
    node.kind === 'compare' ||
    node.kind === 'is-null' ||
    node.kind === 'in' ||
    node.kind === 'text'
  );
}

/** The node as RocketMQ prints it in its errors, e.g. `(a = 'x')`. */
export function showNode(node: Sql92Node): string {
  switch (node.kind) {
    case 'literal':
      return showValue(node.value);
    case 'property':
      return node.name;
    case 'negate':
      return `(- ${showNode(node.operand)})`;
    case 'not':
      return `(NOT ${showNode(node.operand)})`;
    case 'and':
    case 'or':
      return `(${showNode(node.left)} ${node.kind.toUpperCase()} ${showNode(node.right)})`;
    case 'compare':
      return `(${showNode(node.left)} ${node.op} ${showNode(node.right)})`;
    case 'is-null':
      return `(${showNode(node.operand)} IS ${node.negated ? 'NOT ' : ''}NULL)`;
    case 'in':
      return `(${node.property} ${node.negated ? 'NOT ' : ''}IN (${[...node.values].map(showValue).join(', ')}))`;
    case 'text':
      return `(${showNode(node.operand)} ${node.negated ? 'NOT ' : ''}${node.op} ${showValue(node.literal)})`;
  }
}

function showValue(value: Sql92Value): string {
  if (value === null) return 'NULL';
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (typeof value === 'string') return `'${value.replaceAll("'", "''")}'`;
  return String(value.value);
}
