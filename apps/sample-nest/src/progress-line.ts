/** A status line on stderr: rewritten in place on a TTY, at most one line a second otherwise (CI logs). */
export class ProgressLine {
  private lastPlain = 0;
  private wrote = false;

  constructor(private readonly stream: NodeJS.WriteStream = process.stderr) {}

  update(text: string): void {
    if (this.stream.isTTY) {
      this.stream.write(`\r\x1b[2K${text}`);
      this.wrote = true;
    } else if (Date.now() - this.lastPlain >= 1000) {
      this.lastPlain = Date.now();
      this.stream.write(`${text}\n`);
    }
  }

  /** Ends an in-place line so what follows starts on a fresh one. */
  done(): void {
    if (this.stream.isTTY && this.wrote) this.stream.write('\n');
    this.wrote = false;
  }
}
