/** Where resources come from: the Kubernetes API or a directory of manifests. Both fill the same store. */
export interface ResourceSource {
  /** Resolves once the first full view of every kind is in the store. */
  start(): Promise<void>;
  close(): Promise<void>;
  /** True once started and not stopped for good; readiness follows it. */
  isSynced(): boolean;
}
