// Where a running sluice's services answer, written to each service's data dir: `sluice healthcheck`
// (the Dockerfile's HEALTHCHECK) then probes the services the container's command runs, on the listeners
// its properties file and flags gave, rather than guessing both from the environment.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export type Service = "registry" | "connect";

const fileOf = (dataDir: string, service: Service) => join(dataDir, "health", `${service}.url`);

/** Records the URL that tells whether `service` is healthy; the returned stop removes it. */
export function announce(dataDir: string, service: Service, probeUrl: string): { stop(): Promise<void> } {
  const file = fileOf(dataDir, service);
  mkdirSync(join(dataDir, "health"), { recursive: true });
  writeFileSync(file, `${probeUrl}\n`);
  return { stop: async () => rmSync(file, { force: true }) };
}

/** The URL a running sluice recorded for `service`, if one did. */
export function announced(dataDir: string, service: Service): string | undefined {
  try {
    return readFileSync(fileOf(dataDir, service), "utf8").trim() || undefined;
  } catch {
    return undefined;
  }
}
