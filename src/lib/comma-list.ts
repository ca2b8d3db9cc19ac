// The entries of a comma-separated setting (DATABASE_HOSTS, CSV_URL_ALLOWLIST, TRUST_PROXY): trimmed, empty ones
// dropped.
export function commaSeparated(text: string): string[] {
  return text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}
