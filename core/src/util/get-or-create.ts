/**
 * The value under `key`; when there is none (or it is `undefined`), the value `create` makes, stored under `key`
 * before it is returned. `create` runs only on such a miss.
 */
export function getOrCreate<K, V>(map: Map<K, V>, key: K, create: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = create();
    map.set(key, value);
  }
  return value;
}
