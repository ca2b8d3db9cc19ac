// What deployments request in all (CPU in cores, memory and storage in bytes). Pure.
import { parseQuantity } from '../../platform/kubernetes/quantities.js';

/** A quantity as a number, 0 for text that is not one (an unset request asks for nothing). */
const requested = (text: string) => parseQuantity(text) ?? 0;

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
      cpu += requested(component.cpu) * pods;
      memory += requested(component.memory) * pods;
      storage += requested(component.storage) * pods;
    }
  return { cpu: Math.round(cpu * 1000) / 1000, memory: Math.round(memory), storage: Math.round(storage) };
}
