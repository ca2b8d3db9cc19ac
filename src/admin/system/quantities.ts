// Kubernetes quantities as numbers, for summing what deployments request: CPU in cores, memory and storage in
// bytes. Pure. Text that is not a quantity counts as 0 (an unset request asks for nothing).
const QUANTITY = /^(\d+(?:\.\d+)?)(m|k|Ki|M|Mi|G|Gi|T|Ti|P|Pi|E|Ei)?$/;
const FACTORS: Record<string, number> = {
  '': 1,
  m: 1e-3,
  k: 1e3,
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

export function quantityValue(text: string): number {
  const match = QUANTITY.exec(text.trim());
  if (!match) return 0;
  return Number(match[1]) * FACTORS[match[2] ?? '']!;
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
