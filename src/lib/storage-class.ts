// A StorageClass as the server reads it from Kubernetes and as graphdb-admin lists it (GET /api/system/storage-classes):
// one type for the adapter that reads it and the CLI that prints it.
export interface StorageClass {
  name: string;
  provisioner: string;
  reclaimPolicy?: string;
  volumeBindingMode?: string;
  allowVolumeExpansion?: boolean;
  isDefault: boolean;
  createdAt: string;
}
