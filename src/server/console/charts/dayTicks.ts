/** Up to `count` day numbers from `first` to `last`, both included and evenly spread, for the labels of a time axis. */
export function dayTicks(first: number, last: number, count = 5): number[] {
  if (last <= first) return [first];
  const span = last - first;
  const intervals = Math.min(span, Math.max(1, count - 1));
  const ticks: number[] = [];
  for (let i = 0; i <= intervals; i++) ticks.push(first + Math.round((i * span) / intervals));
  return ticks;
}
