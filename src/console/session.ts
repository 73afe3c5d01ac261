// Who is using the console and whether they may write, per service: from the services' permissions
// endpoints; where a service has none (older servers), writes are shown and a refusal says why.
import { api, ApiError, has, type Service } from "./api.ts";

export interface Permissions {
  user: string | null;
  readOnly: boolean;
  /** The registry's global config resource (Config:): what the user may do with it; absent on older servers. */
  config?: "Read" | "Write" | null;
}

const permissions: Record<Service, Permissions> = {
  registry: { user: null, readOnly: false },
  connect: { user: null, readOnly: false },
};

const PATHS: Record<Service, string> = { registry: "/v1/sluice/permissions", connect: "/sluice/permissions" };

export async function loadPermissions(): Promise<void> {
  await Promise.all(
    (["registry", "connect"] as const).filter(has).map(async (service) => {
      try {
        const answer = await api<Partial<Permissions>>(service, PATHS[service]);
        permissions[service] = {
          user: answer.user ?? null,
          readOnly: answer.readOnly === true,
          ...(answer.config !== undefined ? { config: answer.config } : {}),
        };
      } catch (err) {
        // 403 on the question itself: this user may do nothing here beyond what it is refused.
        if (err instanceof ApiError && err.status === 403) permissions[service] = { user: null, readOnly: true };
      }
    }),
  );
}

export function canWrite(service: Service): boolean {
  return !permissions[service].readOnly;
}

/** Whether the user may change the service's own settings (the registry's global config, its exporters). */
export function canConfigure(service: Service): boolean {
  const p = permissions[service];
  return !p.readOnly && (p.config === undefined || p.config === "Write");
}

export function userName(): string | null {
  return permissions.registry.user ?? permissions.connect.user;
}
