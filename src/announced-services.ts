// Where a running sluice's services answer, written where SLUICE_HEALTH_DIR says (the image sets it):
// `sluice healthcheck` (the Dockerfile's HEALTHCHECK) then probes the services the container's command
// runs, on the listeners its properties file and flags gave, rather than guessing both from the
// environment. Without SLUICE_HEALTH_DIR nothing is written.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export type Service = "registry" | "connect";

const healthDir = () => process.env.SLUICE_HEALTH_DIR || undefined;

/** Records the URL that tells whether `service` is healthy; the returned stop removes it. */
export function announce(service: Service, probeUrl: string): { stop(): Promise<void> } {
  const dir = healthDir();
  if (!dir) return { stop: async () => {} };
  const file = join(dir, `${service}.url`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, `${probeUrl}\n`);
  return { stop: async () => rmSync(file, { force: true }) };
}

/** The URL a running sluice recorded for `service`, if one did. */
export function announced(service: Service): string | undefined {
  const dir = healthDir();
  if (!dir) return undefined;
  try {
    return readFileSync(join(dir, `${service}.url`), "utf8").trim() || undefined;
  } catch {
    return undefined;
  }
}
