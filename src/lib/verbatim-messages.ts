// Validation messages that a specification fixes word for word. A zod check declared with `verbatim(text)`
// is reported as exactly `text`, without the usual `<part>.<field>: ` prefix.
const registered = new Set<string>();

export function verbatim(message: string): string {
  registered.add(message);
  return message;
}

export function isVerbatim(message: string | undefined): boolean {
  return message !== undefined && registered.has(message);
}
