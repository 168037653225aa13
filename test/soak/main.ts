import { DRIVERS, type Driver } from './service';
import { soak, type SoakReport } from './soak';

/**
 * `npm run soak [-- --minutes N] [--driver in-process|bullmq|both]`: N minutes (default 30) of
 * soak per driver, one after the other, each cycle three times the short form's traffic; exits 1
 * when any assertion failed.
 */
const SCALE = 3;

function parse(args: string[]): { minutes: number; drivers: Driver[] } {
  let minutes = 30;
  let driver = 'both';
  for (let i = 0; i < args.length; i++) {
    const [flag, inline] = args[i].split('=', 2);
    const value = inline ?? args[++i];
    if (flag === '--minutes') minutes = Number(value);
    else if (flag === '--driver') driver = value;
    else throw new Error(`unknown option ${args[i]} (use --minutes N, --driver in-process|bullmq|both)`);
  }
  if (!Number.isFinite(minutes) || minutes <= 0) throw new Error('--minutes takes a positive number');
  if (driver !== 'both' && !DRIVERS.includes(driver as Driver))
    throw new Error('--driver takes in-process, bullmq or both');
  return { minutes, drivers: driver === 'both' ? DRIVERS : [driver as Driver] };
}

async function main(): Promise<void> {
  const { minutes, drivers } = parse(process.argv.slice(2));
  const reports: SoakReport[] = [];
  for (const driver of drivers)
    reports.push(await soak({ driver, minutes, scale: SCALE, print: (line) => process.stdout.write(`${line}\n`) }));
  for (const report of reports) {
    process.stdout.write(
      `soak ${report.driver}: ${report.cycles.length} cycles, ${report.failures.length === 0 ? 'every assertion held' : `${report.failures.length} failures`}\n`,
    );
  }
  if (reports.some((report) => report.failures.length > 0 || report.cycles.length === 0)) process.exitCode = 1;
}

main().catch((error: unknown) => {
  process.stderr.write(`soak: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
