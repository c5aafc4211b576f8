// Preloaded into a benchmarked worker process (NODE_OPTIONS=--import): on
// SIGUSR2 it collects garbage (when --expose-gc is on) and writes
// process.memoryUsage() as JSON to $ZUNO_BENCH_MEM_FILE. Bench-only.
import { writeFileSync } from 'node:fs';

process.on('SIGUSR2', () => {
  if (typeof globalThis.gc === 'function') globalThis.gc();
  writeFileSync(process.env.ZUNO_BENCH_MEM_FILE, JSON.stringify(process.memoryUsage()));
});
