import {
  CONTENT_SPLITOR as C,
  FIELD_SPLITOR as F,
  traceBean,
  type MessageType,
  type TraceContext,
  type TraceTransactionState,
} from './trace-context';

/** One encoded trace context: its records and the keys its trace message is indexed by (TraceTransferBean). */
export interface TraceTransfer {
  readonly data: string;
  /** Every bean's msgId and each of its keys, without duplicates: QUERY_MESSAGE by a msgId finds the record. */
  readonly keys: readonly string[];
}

/** Java's StringBuilder.append of a possibly-null String or a primitive. */
const text = (value: string | number | boolean | null | undefined): string =>
  value === null || value === undefined ? 'null' : String(value);

/**
 * TraceDataEncoder.encoderFromContextBean of RocketMQ 5.3.3, field for field: `\u0001` between fields, `\u0002` after
 * each record; Pub and EndTransaction encode their first bean, SubBefore and SubAfter one record per bean. Pub has
 * 14 fields (no client host: readers take the trace message's born host); SubAfter ends with the time and the group
 * unless the access channel is CLOUD.
 */
export function encodeTraceContext(ctx: TraceContext): TraceTransfer {
  let data = '';
  const first = ctx.traceBeans[0];
  switch (ctx.traceType) {
    case 'Pub':
      if (first) {
        data =
          fields(
            ctx.traceType,
            ctx.timeStamp,
            ctx.regionId,
            ctx.groupName,
            first.topic,
            first.msgId,
            first.tags,
            first.keys,
            first.storeHost,
            first.bodyLength,
            ctx.costTime,
            first.msgType,
            first.offsetMsgId,
            ctx.success,
          ) + F;
      }
      break;
    case 'SubBefore':
      for (const bean of ctx.traceBeans) {
        data +=
          fields(
            ctx.traceType,
            ctx.timeStamp,
            ctx.regionId,
            ctx.groupName,
            ctx.requestId,
            bean.msgId,
            bean.retryTimes,
            bean.keys,
          ) + F;
      }
      break;
    case 'SubAfter':
      for (const bean of ctx.traceBeans) {
        data +=
          fields(ctx.traceType, ctx.requestId, bean.msgId, ctx.costTime, ctx.success, bean.keys, ctx.contextCode) + C;
        if (ctx.accessChannel !== 'CLOUD') data += fields(ctx.timeStamp, ctx.groupName);
        data += F;
      }
      break;
    case 'EndTransaction':
      if (first) {
        data =
          fields(
            ctx.traceType,
            ctx.timeStamp,
            ctx.regionId,
            ctx.groupName,
            first.topic,
            first.msgId,
            first.tags,
            first.keys,
            first.storeHost,
            first.msgType,
            first.transactionId,
            first.transactionState,
            first.fromTransactionCheck ?? false,
          ) + F;
      }
      break;
    case 'Recall':
      if (first)
        data =
          fields(ctx.traceType, ctx.timeStamp, ctx.regionId, ctx.groupName, first.topic, first.msgId, ctx.success) + F;
      break;
  }
  const keys = new Set<string>();
  for (const bean of ctx.traceBeans) {
    keys.add(bean.msgId);
    // MessageConst.KEY_SEPARATOR is one space; String.split drops trailing empty strings but keeps inner ones.
    if (bean.keys) for (const key of trimTrailingEmpty(bean.keys.split(' '))) keys.add(key);
  }
  return { data, keys: [...keys] };
}

function fields(...values: (string | number | boolean | null | undefined)[]): string {
  return values.map(text).join(C);
}

/**
 * TraceDataEncoder.decoderFromTraceDataString: the contexts of a trace message's body, one bean each, with the
 * same tolerance for the shorter records older clients wrote (Pub without offsetMsgId, SubAfter without context
 * code, time and group). Unknown record types are skipped, as Java does.
 */
export function decodeTraceData(traceData: string): TraceContext[] {
  const contexts: TraceContext[] = [];
  for (const record of trimTrailingEmpty(traceData.split(F))) {
    const line = trimTrailingEmpty(record.split(C));
    const at = (i: number): string => line[i] ?? '';
    const base = {
      requestId: '',
      contextCode: 0,
      costTime: 0,
      success: true,
      regionId: '',
      groupName: '',
      timeStamp: 0,
    };
    switch (line[0]) {
      case 'Pub': {
        const offsetMsgId = line.length >= 14 ? at(12) : '';
        // Shorter than 13 fields: Java keeps TraceContext's default, success.
        const success = line.length < 13 ? true : bool(line.length === 13 ? at(12) : at(13));
        const bean = traceBean({
          topic: at(4),
          msgId: at(5),
          tags: at(6),
          keys: at(7),
          storeHost: at(8),
          bodyLength: int(at(9)),
          msgType: int(at(11)) as MessageType,
          offsetMsgId,
          ...(line.length >= 15 ? { clientHost: at(14) } : {}),
        });
        contexts.push({
          ...base,
          traceType: 'Pub',
          timeStamp: int(at(1)),
          regionId: at(2),
          groupName: at(3),
          costTime: int(at(10)),
          success,
          traceBeans: [bean],
        });
        break;
      }
      case 'SubBefore':
        contexts.push({
          ...base,
          traceType: 'SubBefore',
          timeStamp: int(at(1)),
          regionId: at(2),
          groupName: at(3),
          requestId: at(4),
          traceBeans: [traceBean({ msgId: at(5), retryTimes: int(at(6)), keys: at(7) })],
        });
        break;
      case 'SubAfter':
        contexts.push({
          ...base,
          traceType: 'SubAfter',
          requestId: at(1),
          costTime: int(at(3)),
          success: bool(at(4)),
          contextCode: line.length >= 7 ? int(at(6)) : 0,
          ...(line.length >= 9 ? { timeStamp: int(at(7)), groupName: at(8) } : {}),
          traceBeans: [traceBean({ msgId: at(2), keys: at(5) })],
        });
        break;
      case 'EndTransaction': {
        const bean = traceBean({
          topic: at(4),
          msgId: at(5),
          tags: at(6),
          keys: at(7),
          storeHost: at(8),
          msgType: int(at(9)) as MessageType,
          transactionId: at(10),
          transactionState: at(11) as TraceTransactionState,
          fromTransactionCheck: bool(at(12)),
        });
        contexts.push({
          ...base,
          traceType: 'EndTransaction',
          timeStamp: int(at(1)),
          regionId: at(2),
          groupName: at(3),
          traceBeans: [bean],
        });
        break;
      }
      case 'Recall':
        contexts.push({
          ...base,
          traceType: 'Recall',
          timeStamp: int(at(1)),
          regionId: at(2),
          groupName: at(3),
          success: bool(at(6)),
          traceBeans: [traceBean({ topic: at(4), msgId: at(5) })],
        });
        break;
      default:
    }
  }
  return contexts;
}

/** Java's String.split(regex) without a limit: trailing empty strings are removed. */
function trimTrailingEmpty(parts: string[]): string[] {
  let end = parts.length;
  while (end > 0 && parts[end - 1] === '') end--;
  return end === parts.length ? parts : parts.slice(0, end);
}

const int = (value: string): number => Number.parseInt(value, 10) || 0;
/** Boolean.parseBoolean: "true" in any case, everything else false. */
const bool = (value: string): boolean => value.toLowerCase() === 'true';
