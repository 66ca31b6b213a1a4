import { cpus, platform, release, totalmem } from 'node:os';

/** CPU model and count, memory, OS and Node version: printed with every figure. */
export function describeMachine(): string {
  const cores = cpus();
  const model = cores[0]?.model.trim() ?? 'unknown CPU';
  const memGiB = (totalmem() / 2 ** 30).toFixed(1);
  return `${cores.length} × ${model}, ${memGiB} GiB RAM, ${platform()} ${release()}, Node ${process.version}`;
}

/** Today as `YYYY-MM-DD`, the date printed with every figure. */
export function today(): string {
  return new Date().toISOString().slice(0, 10);
}
