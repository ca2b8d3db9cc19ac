// Kubernetes quantities as numbers (CPU in cores, memory and storage in bytes), as Kubernetes writes them (metrics-
// server included: nanocores), and what deployments request in all. Pure.
const QUANTITY = /^(\d+(?:\.\d+)?(?:e\d+)?)(n|u|m|k|K|Ki|M|Mi|G|Gi|T|Ti|P|Pi|E|Ei)?$/;
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

/** A Kubernetes quantity as a number (CPU in cores, memory in bytes); undefined when it is not one. */
export function parseQuantity(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const match = QUANTITY.exec(text.trim());
  if (!match) return undefined;
  return Number(match[1]) * FACTORS[match[2] ?? '']!;
}

/** A quantity as a number, 0 for text that is not one (an unset request asks for nothing). */
export function quantityValue(text: string): number {
  return parseQuantity(text) ?? 0;
}

/** What a set of deployments requests: every component's per-replica request times its replicas and shards. */
export function requestedResources(
  deployments: readonly {
    components: readonly { cpu: string; memory: string; storage: string; replicas: number; shards?: number }[];
  }[],
): { cpu: number; memory: number; storage: number } {
  let cpu = 0;
  let memory = 0;
  let storage = 0;
  for (const deployment of deployments)
    for (const component of deployment.components) {
      const pods = component.replicas * (component.shards ?? 1);
      cpu += quantityValue(component.cpu) * pods;
      memory += quantityValue(component.memory) * pods;
      storage += quantityValue(component.storage) * pods;
    }
  return { cpu: Math.round(cpu * 1000) / 1000, memory: Math.round(memory), storage: Math.round(storage) };
}
