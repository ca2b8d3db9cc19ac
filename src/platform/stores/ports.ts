// Storage ports for the admin API: one named ConfigMap-like document and Secret-like key/value objects,
// each with an opaque version for optimistic concurrency. Adapters: Kubernetes and local files.
import { MANAGED_BY_LABEL, MANAGED_BY_THIS_SERVER } from '../../lib/kubernetes-labels.js';
import { PortError } from '../port-errors.js';

export interface Versioned<T> {
  value: T;
  /** Opaque; a write given a stale version fails with StaleVersionError. */
  version: string;
}

/** Data of a ConfigMap or a (decoded) Secret: string keys to string values. */
export type DataMap = Record<string, string>;

export class StaleVersionError extends PortError {
  constructor(what: string) {
    super('conflict', `${what} was changed by someone else`);
    this.name = 'StaleVersionError';
  }
}

export class AlreadyExistsError extends PortError {
  constructor(what: string) {
    super('conflict', `${what} already exists`);
    this.name = 'AlreadyExistsError';
  }
}

/** The store or platform rejected the object or operation as invalid (Kubernetes 422, or not possible here). */
export class StoreRejectedError extends PortError {
  constructor(message: string) {
    super('rejected', message);
    this.name = 'StoreRejectedError';
  }
}

export interface ConfigMapPort {
  readonly description: string;
  read(): Promise<Versioned<DataMap> | undefined>;
  /** Creates when `version` is undefined (AlreadyExistsError if it exists), else replaces that version. */
  write(data: DataMap, version: string | undefined): Promise<Versioned<DataMap>>;
}

/** The label every object this server creates carries (both adapters). */
export const MANAGED_BY: Readonly<Record<string, string>> = Object.freeze({
  [MANAGED_BY_LABEL]: MANAGED_BY_THIS_SERVER,
});

/** Labels of a Secret (Kubernetes metadata labels; a side file in the file store). */
export type Labels = Record<string, string>;

/** A Secret as read: its decoded data, version and labels. */
export interface StoredSecret extends Versioned<DataMap> {
  labels: Labels;
}

export interface SecretPort {
  read(name: string): Promise<StoredSecret | undefined>;
  /**
   * Creates the Secret (labelled as ours, plus `labels`) when `version` is undefined, else replaces that version's
   * data and keeps its labels.
   */
  write(name: string, data: DataMap, version: string | undefined, labels?: Labels): Promise<Versioned<DataMap>>;
}

export interface AdminStores {
  settings: ConfigMapPort;
  /** Custom roles and group mappings (`rbac.json`): ConfigMap `graphdb-rbac`, or `DATA_DIR/admin/rbac.json`. */
  rbac: ConfigMapPort;
  secrets: SecretPort;
}
