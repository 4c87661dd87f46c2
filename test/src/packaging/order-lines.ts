/** The orders the quickstart and the shared-container program send, and the line each prints per handled one. */
export const EXPECTED_ORDERS = ['A-1', 'A-2', 'A-3'] as const;
const ORDER_LINE = /^order (\S+): (-?\d+(?:\.\d+)?)$/;

/** The order ids of the `order <id>: <amount>` lines, in the order printed. */
export function orderIds(lines: readonly string[]): string[] {
  return lines.flatMap((line) => {
    const m = ORDER_LINE.exec(line.trim());
    return m ? [m[1]!] : [];
  });
}

/** Whether every expected order has been handled (in any order). */
export function allOrdersHandled(lines: readonly string[]): boolean {
  const seen = new Set(orderIds(lines));
  return EXPECTED_ORDERS.every((id) => seen.has(id));
}
