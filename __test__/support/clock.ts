/**
 * Shifts `Date.now()` forward by `ms` (time keeps running) until `restore()`: lets a test pass
 * the processor's full re-check interval or Mastra's staleness cooldown without sleeping.
 */
export function shiftClock(ms: number): { restore(): void } {
  const realNow = Date.now;
  Date.now = () => realNow.call(Date) + ms;
  return {
    restore: () => {
      Date.now = realNow;
    },
  };
}
