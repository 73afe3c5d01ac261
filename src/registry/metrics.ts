// The registry's /metrics: HTTP traffic, what the store holds, and whether this instance is the
// leader. Everything but HTTP is read at scrape time; store figures are recounted only when the state
// changed.
import { HttpMetrics, newRegistry, sampledGauge, type Registry } from "../platform/metrics.ts";
import type { RegistryState } from "./store/state.ts";

export class RegistryMetrics {
  readonly registry: Registry = newRegistry();
  readonly http = new HttpMetrics(this.registry);
  private counted?: { generation: number; schemas: number; subjects: number };

  constructor(
    private readonly state: RegistryState,
    isLeader: () => boolean,
  ) {
    const r = this.registry;
    sampledGauge(
      r,
      "sluice_registry_schemas",
      "Distinct schemas (ids) used by at least one subject version that is not deleted.",
      () => this.counts().schemas,
    );
    sampledGauge(
      r,
      "sluice_registry_subjects",
      "Subjects with at least one version that is not deleted.",
      () => this.counts().subjects,
    );
    sampledGauge(
      r,
      "sluice_registry_max_schema_id",
      "Highest schema id ever registered (where the id allocator stands).",
      () => state.maxId,
    );
    sampledGauge(
      r,
      "sluice_registry_leader",
      "1 while this instance is the elected leader (the one that writes), else 0.",
      () => (isLeader() ? 1 : 0),
    );
  }

  private counts(): { schemas: number; subjects: number } {
    if (this.counted?.generation !== this.state.generation) {
      const ids = new Set<number>();
      let subjects = 0;
      for (const subject of this.state.subjectNames()) {
        const live = this.state.versions(subject).filter((v) => !v.deleted);
        if (live.length > 0) subjects++;
        for (const v of live) ids.add(v.id);
      }
      this.counted = { generation: this.state.generation, schemas: ids.size, subjects };
    }
    return this.counted;
  }
}
