/** A value {@link stringifyFastJson} can write: JSON values, bigint, and Maps whose keys may be objects. */
export type FastJsonWritable =
  | null
  | boolean
  | number
  | bigint
  | string
  | readonly FastJsonWritable[]
  | ReadonlyMap<FastJsonWritable, FastJsonWritable>
  | { readonly [key: string]: FastJsonWritable | undefined };

/**
 * Writes JSON the way fastjson writes RocketMQ's bodies, including what standard JSON cannot say: a Map with
 * object keys becomes `{{"brokerName":"b","queueId":0,"topic":"t"}:5}` (ConsumerRunningInfo.mqTable,
 * ResetOffsetBody.offsetTable), which RocketMQ's admin tools read back with fastjson. bigint is written as a bare
 * number (a Java long); undefined object fields are left out, as fastjson leaves out nulls. Object keys are
 * written in insertion order: callers sort them as fastjson does (alphabetically) when bytes must match.
 */
export function stringifyFastJson(value: FastJsonWritable): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'bigint':
      return value.toString();
    case 'string':
      return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map((v) => stringifyFastJson(v as FastJsonWritable)).join(',')}]`;
  if (value instanceof Map) {
    const parts: string[] = [];
    for (const [k, v] of value as ReadonlyMap<FastJsonWritable, FastJsonWritable>)
      parts.push(`${stringifyFastJson(k)}:${stringifyFastJson(v)}`);
    return `{${parts.join(',')}}`;
  }
  const object = value as { readonly [key: string]: FastJsonWritable | undefined };
  const parts: string[] = [];
  for (const key of Object.keys(object)) {
    const v = object[key];
    if (v !== undefined) parts.push(`${JSON.stringify(key)}:${stringifyFastJson(v)}`);
  }
  return `{${parts.join(',')}}`;
}
