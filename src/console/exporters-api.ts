// The registry's schema exporters (Confluent's /exporters): the shapes the exporters page reads, and
// its write calls (they need the registry's Config: permission, as global config does).
import { api, ApiError, enc } from "./api.ts";

export interface ExporterInfo {
  name: string;
  contextType: string;
  context?: string;
  subjects: string[];
  subjectRenameFormat?: string;
  /** The destination's client settings, secrets hidden. */
  config: Record<string, string>;
}

export interface ExporterStatus {
  name: string;
  state: string;
  /** The next _schemas offset to export. */
  offset: number;
  ts: number;
  trace?: string;
}

export interface Exporter {
  info: ExporterInfo;
  status: ExporterStatus;
}

const e = (name: string) => `/exporters/${enc(name)}`;

/** Every exporter with its definition and status (one call each, in parallel). */
export async function exporters(): Promise<Exporter[]> {
  const names = await api<string[]>("registry", "/exporters");
  const all = await Promise.all(
    [...names].sort().map(async (name) => {
      try {
        const [info, status] = await Promise.all([
          api<ExporterInfo>("registry", e(name)),
          api<ExporterStatus>("registry", `${e(name)}/status`),
        ]);
        return { info, status };
      } catch (err) {
        // Deleted since it was listed.
        if (err instanceof ApiError && err.status === 404) return null;
        throw err;
      }
    }),
  );
  return all.filter((x): x is Exporter => x !== null);
}

export const exporterActions = {
  pause: (name: string) => api("registry", `${e(name)}/pause`, { method: "PUT" }),
  resume: (name: string) => api("registry", `${e(name)}/resume`, { method: "PUT" }),
  reset: (name: string) => api("registry", `${e(name)}/reset`, { method: "PUT" }),
};
