/**
 * A number field of a posted form, for the API's schema to judge: digits become a number, anything
 * else (a sign, an exponent, a decimal point, a list from a repeated field) goes through as it was
 * sent, so that the schema refuses it with its own message instead of it being read as 0 or NaN.
 */
export function formWholeNumber(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const text = value.trim();
  return /^\d{1,10}$/.test(text) ? Number(text) : value;
}
