/** One sample line of the Prometheus text format: `name{label="value",...} value`. */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** A parsed scrape: the samples in order and each family's TYPE. */
export interface Exposition {
  readonly samples: readonly Sample[];
  readonly types: ReadonlyMap<string, string>;
}

/** The text format says nothing else can follow a sample name. */
const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;

/**
 * Parses Prometheus' text exposition format 0.0.4 (what `registry.metrics()` serves), strictly: a line it cannot
 * read throws, so a test reading a scrape fails on a malformed one instead of missing a sample.
 */
export function parseExposition(text: string): Exposition {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const [index, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    if (line.startsWith('#')) {
      const type = /^# TYPE (\S+) (counter|gauge|histogram|summary|untyped)$/.exec(line);
      if (type) types.set(type[1]!, type[2]!);
      continue;
    }
    samples.push(parseSample(line, index + 1));
  }
  return { samples, types };
}

function parseSample(line: string, lineNo: number): Sample {
  const fail = (why: string): never => {
    throw new SyntaxError(`exposition line ${lineNo}: ${why}: ${line}`);
  };
  const name = NAME.exec(line)?.[0] ?? fail('no metric name');
  let at = name.length;
  const labels: Record<string, string> = {};
  if (line[at] === '{') {
    at++;
    while (line[at] !== '}') {
      const label = /^([a-zA-Z_][a-zA-Z0-9_]*)="/.exec(line.slice(at)) ?? fail('bad label');
      at += label[0].length;
      let value = '';
      for (; line[at] !== '"'; at++) {
        if (at >= line.length) fail('unterminated label value');
        if (line[at] === '\\') {
          const escaped = line[++at];
          value += escaped === 'n' ? '\n' : escaped === '\\' || escaped === '"' ? escaped : fail('bad escape');
        } else value += line[at];
      }
      labels[label[1]!] = value;
      at++;
      if (line[at] === ',') at++;
      else if (line[at] !== '}') fail('expected , or }');
    }
    at++;
  }
  const [raw, ...rest] = line.slice(at).trim().split(/\s+/);
  if (raw === undefined || raw === '' || rest.length > 1) fail('expected a value and at most a timestamp');
  return { name, labels, value: parseValue(raw!, fail) };
}

function parseValue(raw: string, fail: (why: string) => never): number {
  if (raw === '+Inf') return Infinity;
  if (raw === '-Inf') return -Infinity;
  if (raw === 'NaN') return NaN;
  const value = Number(raw);
  return Number.isNaN(value) ? fail(`bad value ${raw}`) : value;
}
