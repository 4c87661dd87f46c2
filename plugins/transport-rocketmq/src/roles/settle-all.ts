/**
 * Runs requests to several brokers at once. Resolves when none was tried or at least one succeeded (each failure
 * is reported to `onError` with its index); rejects with the first failure when every one failed. RocketMQ's
 * client does the same for heartbeats and unregistrations: one broker down must not fail the whole group.
 */
export async function settleAll(
  tasks: readonly Promise<unknown>[],
  onError: (error: Error, index: number) => void,
): Promise<void> {
  const results = await Promise.allSettled(tasks);
  const failures = results.flatMap((r, i) => (r.status === 'rejected' ? [{ error: r.reason as Error, i }] : []));
  if (failures.length > 0 && failures.length === results.length) throw failures[0]!.error;
  for (const { error, i } of failures) onError(error, i);
}
