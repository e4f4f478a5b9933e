/**
 * .NET `TimeSpan` text as ASP.NET configuration and the reference API write durations:
 * `hh:mm:ss` or `d.hh:mm:ss` (hours 0-23, minutes and seconds 0-59 once the day part is used or not).
 */
const TIME_SPAN = /^(?:(\d{1,7})\.)?(\d{1,2}):(\d{2}):(\d{2})$/;

/** Whole seconds of a `hh:mm:ss` / `d.hh:mm:ss` value, or undefined when it is not one. */
export function parseTimeSpan(text: string): number | undefined {
  const match = TIME_SPAN.exec(text.trim());
  if (!match) return undefined;
  const [days, hours, minutes, seconds] = [Number(match[1] ?? 0), Number(match[2]), Number(match[3]), Number(match[4])];
  if (hours > 23 || minutes > 59 || seconds > 59) return undefined;
  return ((days * 24 + hours) * 60 + minutes) * 60 + seconds;
}

/** `seconds` as `hh:mm:ss`, with a `d.` day part from one day on. */
export function formatTimeSpan(totalSeconds: number): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  const days = Math.floor(totalSeconds / 86_400);
  const rest = totalSeconds % 86_400;
  const clock = `${pad(Math.floor(rest / 3600))}:${pad(Math.floor((rest % 3600) / 60))}:${pad(rest % 60)}`;
  return days > 0 ? `${days}.${clock}` : clock;
}
