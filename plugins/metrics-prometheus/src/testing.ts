/** Reading a scrape in tests: a strict parser of the Prometheus text format and lookups by name and labels. */
export { parseExposition, type Exposition, type Sample } from './exposition';
export { Scrape } from './scrape';
