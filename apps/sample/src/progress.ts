/**
 * The live progress line on stderr: rewritten in place on a TTY, one line per second otherwise (so logs of
 * a CI run stay readable).
 */
export class ProgressLine {
  private lastPlain = 0;
  private wrote = false;

  constructor(private readonly stream: NodeJS.WriteStream = process.stderr) {}

  update(text: string): void {
    if (this.stream.isTTY) {
      const width = this.stream.columns ?? 120;
      this.stream.write(`\r\x1b[2K${text.length > width - 1 ? `${text.slice(0, width - 2)}…` : text}`);
      this.wrote = true;
    } else if (Date.now() - this.lastPlain >= 1000) {
      this.lastPlain = Date.now();
      this.stream.write(`${text}\n`);
    }
  }

  /** Ends the in-place line so later output starts on a fresh line. */
  done(text?: string): void {
    if (this.stream.isTTY && this.wrote) this.stream.write(`\r\x1b[2K`);
    if (text) this.stream.write(`${text}\n`);
  }
}
