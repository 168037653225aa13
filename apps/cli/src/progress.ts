/** A one-line progress bar on a terminal; silent for short runs and when stderr is not a terminal. */
export class ProgressBar {
  private count = 0;
  private readonly active: boolean;

  constructor(
    private readonly total: number,
    private readonly stream: NodeJS.WriteStream,
    minimum = 10,
  ) {
    this.active = total >= minimum && stream.isTTY === true;
  }

  tick(): void {
    this.count++;
    if (!this.active) return;
    const width = 30;
    const filled = Math.round((this.count / this.total) * width);
    this.stream.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${this.count}/${this.total}`);
  }

  done(): void {
    if (this.active) this.stream.write('\n');
  }
}
