import { parseExposition, type Exposition, type Sample } from './exposition';

/** A scrape read by name and labels, for tests and health checks. */
export class Scrape {
  readonly exposition: Exposition;

  constructor(readonly text: string) {
    this.exposition = parseExposition(text);
  }

  /** GETs a /metrics endpoint and parses what it serves. */
  static async fetch(url: string): Promise<Scrape> {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`GET ${url}: HTTP ${response.status}`);
    return new Scrape(await response.text());
  }

  /** Samples of `name` whose labels include `labels`. */
  samples(name: string, labels: Readonly<Record<string, string>> = {}): Sample[] {
    return this.exposition.samples.filter(
      (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
    );
  }

  /** The sum of the matching samples' values; 0 when none matches (a counter not yet incremented). */
  value(name: string, labels: Readonly<Record<string, string>> = {}): number {
    return this.samples(name, labels).reduce((sum, s) => sum + s.value, 0);
  }

  /** How many samples the scrape holds, every family together: what label cardinality adds up to. */
  get seriesCount(): number {
    return this.exposition.samples.length;
  }
}
