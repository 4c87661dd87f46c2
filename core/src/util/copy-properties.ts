/**
 * A copy of a properties object that stays a fast (in-object) one when keys are added to it afterwards. V8 turns an
 * object built by spreading another (`{ ...p }`, `{ ...p, [k]: v }`) into a dictionary once keys are added: measured
 * on Node 20 at about four times the memory and five times the time per message, paid by every send and store.
 */
export function copyProperties(properties: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const copy: Record<string, string> = {};
  if (properties) for (const key in properties) copy[key] = properties[key]!;
  return copy;
}
