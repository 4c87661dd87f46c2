/**
 * Java's String.hashCode: h = 31 * h + c over UTF-16 code units, wrapped to a signed 32-bit int.
 * RocketMQ filters tags at the broker by this value, so it must match Java exactly.
 */
export function javaStringHashCode(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}
