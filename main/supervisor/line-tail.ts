/** The last lines of a stream (a server's stderr), bounded in count and line length. */
export class LineTail {
  private readonly buffer: string[] = [];
  private partial = '';

  constructor(
    private readonly maxLines: number,
    private readonly maxLineLength: number,
  ) {}

  /** Adds raw output; complete lines are kept, the rest waits for its newline. */
  push(chunk: Buffer | string): void {
    const text = this.partial + chunk.toString();
    const parts = text.split('\n');
    this.partial = parts.pop()!.slice(0, this.maxLineLength);
    for (const line of parts) this.pushLine(line);
  }

  pushLine(line: string): void {
    const clipped =
      line.length > this.maxLineLength ? `${line.slice(0, this.maxLineLength)}…` : line;
    this.buffer.push(clipped);
    if (this.buffer.length > this.maxLines)
      this.buffer.splice(0, this.buffer.length - this.maxLines);
  }

  lines(): string[] {
    return this.partial ? [...this.buffer, this.partial] : [...this.buffer];
  }
}
