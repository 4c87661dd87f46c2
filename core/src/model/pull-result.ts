import type { MessageRecord } from './message';

/** RocketMQ's PullStatus. */
export const PullStatus = {
  FOUND: 'FOUND',
  NO_NEW_MSG: 'NO_NEW_MSG',
  NO_MATCHED_MSG: 'NO_MATCHED_MSG',
  OFFSET_ILLEGAL: 'OFFSET_ILLEGAL',
} as const;
export type PullStatus = (typeof PullStatus)[keyof typeof PullStatus];

/** The answer to one pull, as RocketMQ's PullResult. */
export interface PullResult {
  readonly status: PullStatus;
  readonly nextBeginOffset: number;
  readonly minOffset: number;
  readonly maxOffset: number;
  /** Present (possibly empty) when status is FOUND; already filtered by tag hash at the broker. */
  readonly messages: readonly MessageRecord[];
}
