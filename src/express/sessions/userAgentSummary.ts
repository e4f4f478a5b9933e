/** What the session list shows of a browser: its name and the device or system it runs on. */
export interface UserAgentSummary {
  /** e.g. `Chrome`, `Safari`, `Firefox`, `Edge`; `Other` when unknown. */
  browser: string;
  /** e.g. `iPhone`, `Android`, `Windows`, `macOS`, `Linux`; `Other` when unknown. */
  device: string;
}

// The first match wins: Edge, Opera and Samsung Internet also say "Chrome", Chrome also says "Safari".
const BROWSERS: [RegExp, string][] = [
  [/\bEdg(?:e|A|iOS)?\//, 'Edge'],
  [/\bOPR\/|\bOPT\//, 'Opera'],
  [/\bSamsungBrowser\//, 'Samsung Internet'],
  [/\bFirefox\/|\bFxiOS\//, 'Firefox'],
  [/\bCriOS\/|\b(?:Headless)?Chrom(?:e|ium)\//, 'Chrome'],
  [/\bVersion\/[\d.]+.*\bSafari\//, 'Safari'],
];

// Phones and tablets before the systems they run on (an iPad says "Mac OS X", Android says "Linux").
const DEVICES: [RegExp, string][] = [
  [/\biPhone\b/, 'iPhone'],
  [/\biPad\b/, 'iPad'],
  [/\bAndroid\b/, 'Android'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bWindows\b/, 'Windows'],
  [/\bMacintosh\b|\bMac OS X\b/, 'macOS'],
  [/\bLinux\b/, 'Linux'],
];

/**
 * The browser and device of a User-Agent header, coarsely: enough for a user to tell their
 * sessions apart ("Firefox on Windows", "Safari on iPhone"), no versions. A dozen patterns rather
 * than ua-parser-js, so that the middleware takes no dependency for a label; a header that says
 * nothing known is `Other`. It is what the browser claims, not a proof.
 */
export function userAgentSummary(userAgent: string | undefined): UserAgentSummary {
  const ua = (userAgent ?? '').slice(0, 512);
  const browser = BROWSERS.find(([pattern]) => pattern.test(ua))?.[1] ?? 'Other';
  const device = DEVICES.find(([pattern]) => pattern.test(ua))?.[1] ?? 'Other';
  return { browser, device };
}
