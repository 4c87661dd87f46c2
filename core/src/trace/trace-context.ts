/*
 * RocketMQ's message trace records (client/.../trace: TraceContext, TraceBean, TraceType, TraceConstants), as plain
 * data. Field names are Java's, so a record read next to TraceDataEncoder needs no translation. Fields Java leaves
 * null (a message without tags or keys, a region the broker did not send) are `null` here too: Java writes them as
 * the text "null", and so does the encoder.
 */

export { RMQ_SYS_TRACE_TOPIC } from '../model/system-topics';

/** MixAll.DEFAULT_TRACE_REGION_ID: a broker's default `regionId`, and what clients use when none was sent. */
export const DEFAULT_TRACE_REGION_ID = 'DefaultRegion';

/** TraceConstants.CONTENT_SPLITOR: between the fields of one record. */
export const CONTENT_SPLITOR = '\u0001';

/** TraceConstants.FIELD_SPLITOR: after each record. */
export const FIELD_SPLITOR = '\u0002';

/** TraceConstants.GROUP_NAME_PREFIX: the start of a trace producer's group. */
export const TRACE_GROUP_NAME_PREFIX = '_INNER_TRACE_PRODUCER';

/** TraceType's constants; records start with the name. */
export type TraceType = 'Pub' | 'Recall' | 'SubBefore' | 'SubAfter' | 'EndTransaction';

/** MessageType's constants in declaration order: a record carries the ordinal. */
export const MessageType = {
  Normal_Msg: 0,
  Trans_Msg_Half: 1,
  Trans_msg_Commit: 2,
  Delay_Msg: 3,
  Order_Msg: 4,
} as const;
export type MessageType = (typeof MessageType)[keyof typeof MessageType];

/** ConsumeReturnType's constants in declaration order: SubAfter's context code is the ordinal. */
export const ConsumeReturnType = { SUCCESS: 0, TIME_OUT: 1, EXCEPTION: 2, RETURNNULL: 3, FAILED: 4 } as const;
export type ConsumeReturnType = (typeof ConsumeReturnType)[keyof typeof ConsumeReturnType];

/** LocalTransactionState's names, as EndTransaction records spell them. */
export type TraceTransactionState = 'COMMIT_MESSAGE' | 'ROLLBACK_MESSAGE' | 'UNKNOW';

/** One traced message (TraceBean). */
export interface TraceBean {
  /** Without the namespace. */
  readonly topic: string;
  /** The producer's id (UNIQ_KEY). */
  readonly msgId: string;
  readonly offsetMsgId: string;
  readonly tags: string | null;
  /** The KEYS property as it is: keys separated by spaces. */
  readonly keys: string | null;
  /** `ip:port` of the broker that stored the message. */
  readonly storeHost: string;
  /** Read by the decoder from old Pub records only; the encoder writes none (TraceView takes the trace message's born host). */
  readonly clientHost?: string;
  readonly retryTimes: number;
  readonly bodyLength: number;
  readonly msgType: MessageType;
  readonly transactionId?: string | null;
  readonly transactionState?: TraceTransactionState;
  readonly fromTransactionCheck?: boolean;
}

/** One trace record (TraceContext): what happened to its beans, where and how long it took. */
export interface TraceContext {
  readonly traceType: TraceType;
  /** Epoch ms: Pub and SubBefore when the send or the handler call began; SubAfter and EndTransaction when it ended. */
  readonly timeStamp: number;
  readonly regionId: string | null;
  /** The producer or consumer group, without the namespace. */
  readonly groupName: string;
  /** Ms; SubAfter: the call's time divided by its messages. */
  readonly costTime: number;
  readonly success: boolean;
  /** Pairs a SubBefore with its SubAfter (a MessageClientIDSetter id). */
  readonly requestId: string;
  /** SubAfter: the ConsumeReturnType ordinal. */
  readonly contextCode: number;
  /** CLOUD leaves SubAfter's time and group out; mqkit always writes LOCAL. */
  readonly accessChannel?: 'LOCAL' | 'CLOUD';
  readonly traceBeans: readonly TraceBean[];
}

/** A bean with Java's defaults for what a record type does not carry. */
export function traceBean(fields: Partial<TraceBean> & Pick<TraceBean, 'msgId'>): TraceBean {
  return {
    topic: '',
    offsetMsgId: '',
    tags: '',
    keys: '',
    storeHost: '',
    retryTimes: 0,
    bodyLength: 0,
    msgType: MessageType.Normal_Msg,
    ...fields,
  };
}
