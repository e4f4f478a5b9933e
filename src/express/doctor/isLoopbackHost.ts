/** localhost, a name under .localhost, 127.0.0.0/8 or ::1: what browsers treat as a secure context without TLS. */
export function isLoopbackHost(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return name === 'localhost' || name.endsWith('.localhost') || /^127(\.\d{1,3}){3}$/.test(name) || name === '::1';
}
