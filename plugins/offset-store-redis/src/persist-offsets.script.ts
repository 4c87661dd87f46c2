/**
 * The one script a flush runs (EVALSHA, sent as EVAL the first time on a connection by ioredis).
 *
 * KEYS: the group's topic hashes touched by this flush (all with the `{<group>}` hash tag, so one cluster slot).
 * ARGV: one 4-tuple per queue: index into KEYS (1-based), field `<brokerName>:<queueId>`, offset, and `1` for an
 * explicit reset (admin reset, reset-to-timestamp, OFFSET_ILLEGAL repair) or `0` for an ordinary commit.
 *
 * An ordinary commit raises the stored value only when it is higher, so a stale member (one that lost the queue
 * in a rebalance but flushes late) can never move an offset backwards; a reset is written as given. A stored value
 * that is not a plain non-negative integer (at most 16 digits, as read() accepts) is left alone and reported (a reset overwrites it: that is the repair).
 *
 * Returns `{ applied, skipped, key1, field1, key2, field2, ... }`: writes done, commits not higher than the stored
 * value, then the fields holding unreadable values.
 */
export const PERSIST_OFFSETS_LUA = `
local applied = 0
local skipped = 0
local bad = {}
for i = 1, #ARGV, 4 do
  local key = KEYS[tonumber(ARGV[i])]
  local field = ARGV[i + 1]
  local offset = ARGV[i + 2]
  if ARGV[i + 3] == '1' then
    redis.call('HSET', key, field, offset)
    applied = applied + 1
  else
    local current = redis.call('HGET', key, field)
    if not current then
      redis.call('HSET', key, field, offset)
      applied = applied + 1
    elseif #current > 16 or not string.match(current, '^%d+$') then
      bad[#bad + 1] = key
      bad[#bad + 1] = field
    elseif tonumber(offset) > tonumber(current) then
      redis.call('HSET', key, field, offset)
      applied = applied + 1
    else
      skipped = skipped + 1
    end
  end
end
local result = { applied, skipped }
for i = 1, #bad do
  result[#result + 1] = bad[i]
end
return result
`;

/** The name the script is registered under with ioredis' defineCommand. */
export const PERSIST_OFFSETS_COMMAND = 'mqkitPersistOffsets';

/** What the script answered. */
export interface PersistOffsetsReply {
  readonly applied: number;
  readonly skipped: number;
  /** Fields whose stored value is not a number, as `{ key, field }`. */
  readonly unreadable: ReadonlyArray<{ readonly key: string; readonly field: string }>;
}

export function parsePersistOffsetsReply(reply: unknown): PersistOffsetsReply {
  if (!Array.isArray(reply) || reply.length < 2)
    throw new TypeError(`unexpected reply from the persist-offsets script: ${JSON.stringify(reply)}`);
  const unreadable: Array<{ key: string; field: string }> = [];
  for (let i = 2; i + 1 < reply.length; i += 2) unreadable.push({ key: String(reply[i]), field: String(reply[i + 1]) });
  return { applied: Number(reply[0]), skipped: Number(reply[1]), unreadable };
}
