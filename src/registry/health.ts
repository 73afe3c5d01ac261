// GET /health: ready only when the registry can do its job. Confluent's registry has no readiness
// endpoint (GET / answers {} whatever the store's state), so this one follows Kafka Connect's
// KIP-1017 /health: {"status","message"}, 200 when healthy, 503 otherwise.

export interface RegistryHealth {
  status: "healthy" | "starting" | "unhealthy";
  message: string;
  httpStatus: 200 | 503;
}

/** What the schemas log tells about itself. */
export interface StoreProgress {
  /** The topic was read to its end at start-up: the state is complete. */
  loaded: boolean;
  /** Why the log cannot read the topic right now (the broker is unreachable), if it cannot. */
  lastReadError?: string;
}

export function registryHealth(store: StoreProgress): RegistryHealth {
  if (!store.loaded)
    return { status: "starting", message: "Schema registry is still reading the schemas topic.", httpStatus: 503 };
  if (store.lastReadError !== undefined) {
    return {
      status: "unhealthy",
      message: `Schema registry cannot read the schemas topic: ${store.lastReadError}`,
      httpStatus: 503,
    };
  }
  return {
    status: "healthy",
    message: "Schema registry has read the schemas topic and is ready to handle requests.",
    httpStatus: 200,
  };
}
