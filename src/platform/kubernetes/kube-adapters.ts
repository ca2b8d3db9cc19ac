// The Kubernetes adapters as one module, which services.ts imports only when the configuration names a Kubernetes
// source: @kubernetes/client-node costs tens of MiB and hundreds of milliseconds to load, and embedded mode never
// talks to Kubernetes (test/process/lazy-adapters.test.ts).
export { isCredentialRefusal, kubernetesReadiness, loadKubeConfig, serviceAccountNamespace } from './kube-config.js';
export { createKubeAdminStores } from './kube-stores.js';
export { createKubeClusterInfo } from './kube-cluster-info.js';
export { createKubePodTelemetry } from './kube-pod-telemetry.js';
export { createKubeBlocksClusters } from './kubeblocks.js';
export { detectKubeBlocks } from './kubeblocks-api.js';
export { createKubeBlocksBackups } from './kubeblocks-backups.js';
