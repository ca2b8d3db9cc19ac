// The Kubernetes object-name rules, in one place: every schema, store and adapter that checks a name uses these.
// Imports nothing, so a module that needs a rule does not load the Kubernetes client.

const LABEL = '[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?';

/** A DNS label of at most 63 characters (RFC 1123): namespaces, deployments, containers, most objects. */
export const KUBERNETES_NAME = new RegExp(`^${LABEL}$`);
/** A namespace name, or `*` for every namespace. */
export const KUBERNETES_NAME_OR_ANY = new RegExp(`^(\\*|${LABEL})$`);
/** The characters of a DNS label, its length checked apart (a tighter bound, or a clearer message). */
export const DNS_LABEL_CHARACTERS = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** A DNS subdomain of at most 253 characters: Secrets, StorageClasses, Backups, OpsRequests, pods. */
export const OBJECT_NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;
/** The characters of a DNS subdomain, its length checked apart. */
export const DNS_SUBDOMAIN_CHARACTERS = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;
/** A Helm release name: a DNS label of at most 53 characters (Helm leaves room for its suffixes). */
export const HELM_RELEASE_NAME = /^[a-z0-9]([-a-z0-9]{0,51}[a-z0-9])?$/;
/** The start of a Secret name (a DNS subdomain), leaving room for what follows it. */
export const OBJECT_NAME_PREFIX = /^[a-z0-9][-a-z0-9.]{0,199}$/;
