/** Redraws at most this often: a 10,000-row file must not write 10,000 lines of escape codes. */
const REDRAW_MS = 100;
const WIDTH = 30;

/** `1:02:03`, `2:03` or `45s`. */
function duration(seconds: number): string {
  const whole = Math.max(0, Math.round(seconds));
  const [h, m, s] = [Math.floor(whole / 3600), Math.floor((whole % 3600) / 60), whole % 60];
  if (h > 0) return `${h}:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}`;
  return m > 0 ? `${m}:${String(s).padStart(2, '0')}` : `${s}s`;
}

/**
 * A one-line progress bar with the rate so far and an ETA, on a terminal only: when stderr is a file or a
 * pipe nothing is drawn (stdout never carries progress), and short runs are left alone.
 */
export class ProgressBar {
  private count = 0;
  private drawnAt = 0;
  private readonly active: boolean;
  private readonly started = Date.now();

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
    const now = Date.now();
    if (now - this.drawnAt < REDRAW_MS && this.count < this.total) return;
    this.drawnAt = now;
    this.draw(now);
  }

  done(): void {
    if (this.active) this.stream.write('\n');
  }

  private draw(now: number): void {
    const filled = Math.round((this.count / this.total) * WIDTH);
    const elapsed = (now - this.started) / 1000;
    const rate = elapsed > 0 ? this.count / elapsed : 0;
    const eta =
      this.count >= this.total
        ? `done in ${duration(elapsed)}`
        : rate > 0
          ? `ETA ${duration((this.total - this.count) / rate)}`
          : 'ETA --';
    const percent = Math.floor((this.count / this.total) * 100);
    // \x1b[K clears what a longer previous line left behind.
    this.stream.write(
      `\r[${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}] ${this.count}/${this.total} ${percent}%  ${rate.toFixed(1)}/s  ${eta}\x1b[K`,
    );
  }
}
