// Storage ports for the admin API: one named ConfigMap-like document and Secret-like key/value objects,
// each with an opaque version for optimistic concurrency. Adapters: Kubernetes and local files.

export interface Versioned<T> {
  value: T;
  /** Opaque; a write given a stale version fails with StaleVersionError. */
  version: string;
}

/** Data of a ConfigMap or a (decoded) Secret: string keys to string values. */
export type DataMap = Record<string, string>;

export class StaleVersionError extends Error {
  constructor(what: string) {
    super(`${what} was changed by someone else`);
    this.name = 'StaleVersionError';
  }
}

export class AlreadyExistsError extends Error {
  constructor(what: string) {
    super(`${what} already exists`);
    this.name = 'AlreadyExistsError';
  }
}

/** The store refused or could not be reached; `status` is what the HTTP layer should answer. */
export class StoreUnavailableError extends Error {
  constructor(
    message: string,
    readonly status: 500 | 503,
  ) {
    super(message);
    this.name = 'StoreUnavailableError';
  }
}

/** The store rejected the object as invalid (Kubernetes 422). */
export class StoreRejectedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreRejectedError';
  }
}

export interface ConfigMapPort {
  readonly description: string;
  read(): Promise<Versioned<DataMap> | undefined>;
  /** Creates when `version` is undefined (AlreadyExistsError if it exists), else replaces that version. */
  write(data: DataMap, version: string | undefined): Promise<Versioned<DataMap>>;
}

export interface SecretPort {
  read(name: string): Promise<Versioned<DataMap> | undefined>;
  /** Creates the Secret (labelled as ours) when `version` is undefined, else replaces that version. */
  write(name: string, data: DataMap, version: string | undefined): Promise<Versioned<DataMap>>;
}

export interface AdminStores {
  settings: ConfigMapPort;
  secrets: SecretPort;
}
