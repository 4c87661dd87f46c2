/**
 * Parses fastjson output that may have unquoted integer map keys (`{"brokerAddrs":{0:"127.0.0.1:10911"}}`):
 * the name server writes GET_BROKER_CLUSTER_INFO bodies that way whatever the request version
 * (docs/remoting-protocol.md#fastjson-quirks). Quotes such keys outside strings, then uses JSON.parse.
 */
export function parseFastjson(text: string): unknown {
  let out = '';
  let inString = false;
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (inString) {
      out += ch;
      if (ch === '\\') out += text[++i] ?? '';
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') {
      inString = true;
      expectKey = false;
      out += ch;
    } else if (ch === '{' || ch === ',') {
      expectKey = true;
      out += ch;
    } else if (expectKey && (ch === '-' || (ch >= '0' && ch <= '9'))) {
      let j = i + 1;
      while (j < text.length && text[j]! >= '0' && text[j]! <= '9') j++;
      let k = j;
      while (k < text.length && /\s/.test(text[k]!)) k++;
      // Only a number followed by ':' is a key; a number after ',' in an array stays a number.
      out += text[k] === ':' ? `"${text.slice(i, j)}"` : text.slice(i, j);
      i = j - 1;
      expectKey = false;
    } else {
      if (!/\s/.test(ch)) expectKey = false;
      out += ch;
    }
  }
  return JSON.parse(out);
}
