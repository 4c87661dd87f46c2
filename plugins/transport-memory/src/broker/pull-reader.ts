import { PullStatus, type PullRequest, type PullResult } from '@mqkit/core';
import type { ConsumeQueue, PullWaiter } from './consume-queue';
import { messageFilter } from './message-filter';
import type { StoredMessage } from './stored-message';

/** RocketMQ scans a bounded slice of the consume queue per pull when filtering. */
const MAX_SCAN = 800;

function abortError(): Error {
  const error = new Error('pull aborted');
  error.name = 'AbortError';
  return error;
}

/**
 * One pull against one queue with RocketMQ's statuses: FOUND, NO_MATCHED_MSG past a filtered range,
 * OFFSET_ILLEGAL out of range, and at the end of the queue a long poll held until a message arrives, the hold
 * expires (NO_NEW_MSG) or the signal aborts. Answers on a later turn of the event loop, as a network reply would.
 */
export function pullFrom(
  queue: ConsumeQueue,
  request: PullRequest,
  signal?: AbortSignal,
  brokerAlive?: AbortSignal,
): Promise<PullResult> {
  const immediate = readQueue(queue, request);
  // Resolving in a microtask would let a consumer with a backlog run pull after pull without ever yielding to
  // timers and I/O.
  if (immediate) return new Promise((resolve) => setImmediate(resolve, immediate));
  if (signal?.aborted) return Promise.reject(abortError());
  if (brokerAlive?.aborted) return Promise.reject(brokerAlive.reason);
  return new Promise<PullResult>((resolve, reject) => {
    const waiter: PullWaiter = {
      wake: () => {
        const result = readQueue(queue, request);
        if (result) finish(() => resolve(result));
        else queue.park(waiter);
      },
    };
    const timer = setTimeout(() => finish(() => resolve(noNewMessage(queue, request.offset))), request.suspendMs);
    const onAbort = (): void => finish(() => reject(abortError()));
    // The broker crashed while holding the pull: it ends as a lost connection would.
    const onCrash = (): void => finish(() => reject(brokerAlive!.reason));
    const finish = (settle: () => void): void => {
      clearTimeout(timer);
      queue.unpark(waiter);
      signal?.removeEventListener('abort', onAbort);
      brokerAlive?.removeEventListener('abort', onCrash);
      settle();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    brokerAlive?.addEventListener('abort', onCrash, { once: true });
    queue.park(waiter);
  });
}

/** The answer a pull gets now, or undefined when it should be held (offset == max). */
function readQueue(queue: ConsumeQueue, request: PullRequest): PullResult | undefined {
  const { offset } = request;
  const max = queue.maxOffset;
  const min = queue.minOffset;
  if (max === 0) {
    if (offset !== 0)
      return { status: PullStatus.OFFSET_ILLEGAL, nextBeginOffset: 0, minOffset: min, maxOffset: max, messages: [] };
    return undefined;
  }
  if (offset < min)
    return { status: PullStatus.OFFSET_ILLEGAL, nextBeginOffset: min, minOffset: min, maxOffset: max, messages: [] };
  if (offset > max)
    return { status: PullStatus.OFFSET_ILLEGAL, nextBeginOffset: max, minOffset: min, maxOffset: max, messages: [] };
  if (offset === max) return undefined;
  const matches = messageFilter(request.subscription);
  if (!matches) return readRange(queue, request, min, max);
  const messages: StoredMessage[] = [];
  let bytes = 0;
  let next = offset;
  const limit = Math.min(max, offset + MAX_SCAN);
  for (; next < limit && messages.length < request.maxMsgs; next++) {
    const m = queue.messages[next]!;
    if (!matches(m)) continue;
    const size = m.body.length;
    if (messages.length > 0 && bytes + size > request.maxBytes) break;
    messages.push(m);
    bytes += size;
  }
  if (messages.length === 0)
    return { status: PullStatus.NO_MATCHED_MSG, nextBeginOffset: next, minOffset: min, maxOffset: max, messages };
  return { status: PullStatus.FOUND, nextBeginOffset: next, minOffset: min, maxOffset: max, messages };
}

/** No filter: a contiguous range, cut at maxMsgs and at maxBytes (at least one message), copied with one slice. */
function readRange(queue: ConsumeQueue, request: PullRequest, min: number, max: number): PullResult {
  const { offset } = request;
  const limit = Math.min(max, offset + request.maxMsgs);
  let end = offset + 1;
  let bytes = queue.messages[offset]!.body.length;
  while (end < limit) {
    const size = queue.messages[end]!.body.length;
    if (bytes + size > request.maxBytes) break;
    bytes += size;
    end++;
  }
  return {
    status: PullStatus.FOUND,
    nextBeginOffset: end,
    minOffset: min,
    maxOffset: max,
    messages: queue.messages.slice(offset, end),
  };
}

function noNewMessage(queue: ConsumeQueue, offset: number): PullResult {
  return {
    status: PullStatus.NO_NEW_MSG,
    nextBeginOffset: offset,
    minOffset: queue.minOffset,
    maxOffset: queue.maxOffset,
    messages: [],
  };
}
