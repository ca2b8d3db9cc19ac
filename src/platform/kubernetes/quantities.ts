// Kubernetes quantities (resource.Quantity) as numbers: CPU in cores, memory and storage in bytes. The one parser;
// a caller that accepts fewer forms than Kubernetes writes (a request body, a shape with fixed units) names them.
// Imports nothing, so it does not load the Kubernetes client.
const QUANTITY = /^(\d+(?:\.\d+)?)(e\d+)?(n|u|m|k|K|Ki|M|Mi|G|Gi|T|Ti|P|Pi|E|Ei)?$/;
const FACTORS: Record<string, number> = {
  '': 1,
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  k: 1e3,
  K: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

export interface QuantityForm {
  /** The suffixes accepted, '' for none; every suffix Kubernetes writes when absent. */
  suffixes?: readonly string[];
  /** Whole numbers only (no decimal point). */
  integer?: boolean;
  /** Exponent notation (1e3) and surrounding white space, as metrics-server and pod specs may write them. */
  lenient?: boolean;
  /** Zero is not a quantity. */
  positive?: boolean;
}

/** Everything Kubernetes and metrics-server write (nanocores included). */
const AS_KUBERNETES_WRITES: QuantityForm = { lenient: true };

/** A quantity as a number, or undefined when the text is not one in the given form. */
export function parseQuantity(text: string | undefined, form: QuantityForm = AS_KUBERNETES_WRITES): number | undefined {
  if (text === undefined) return undefined;
  const match = QUANTITY.exec(form.lenient ? text.trim() : text);
  if (!match) return undefined;
  const [, digits, exponent, suffix = ''] = match;
  if (exponent && !form.lenient) return undefined;
  if (form.integer && digits!.includes('.')) return undefined;
  if (form.suffixes && !form.suffixes.includes(suffix)) return undefined;
  const value = Number(`${digits}${exponent ?? ''}`) * FACTORS[suffix]!;
  if (form.positive && !(Number.isFinite(value) && value > 0)) return undefined;
  return value;
}
