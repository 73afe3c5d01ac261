// Runs the exporters on the registry leader, continuously: each pass reads the `_schemas` records an
// exporter has not exported yet (from the offset its state keeps), and brings the subjects they touch
// that it selects to the destination as the source has them now: every version with its id (the
// destination subject in IMPORT mode), soft and hard deletes, and the subject's config. Then it moves
// the offset to where it read up to. Bringing a subject to the source's state is idempotent, so a
// pass cut short (a crash, a leader change) is simply done again by the next leader.
import type { Broker } from "../../broker/broker.ts";
import { logger } from "../../platform/log.ts";
import { qualifyWithParent } from "../contexts.ts";
import { ForwardToLeader } from "../errors.ts";
import type { SchemaLog } from "../store/schema-log.ts";
import { decodeRecord } from "../store/records.ts";
import type { RegistryState, SchemaVersion } from "../store/state.ts";
import { configFields } from "../subject-config.ts";
import { DestinationRegistry } from "./destination.ts";
import { destinationSubject, selects, type Naming } from "./naming.ts";
import type { ExporterInfo, ExporterStatus } from "./records.ts";
import { openSecrets, type PasswordEncoder } from "./secrets.ts";
import type { SchemaExporters } from "./service.ts";

const log = logger("schema-exporters");

export interface ExporterRunnerOptions {
  /** The `_schemas` topic (kafkastore.topic). */
  schemasTopic: string;
  /** How often a pass looks for new records (and how soon after a change it starts). */
  pollMs: number;
  /** How long an exporter in ERROR waits before it is tried again. */
  retryMs: number;
  /** password.encoder.secret's, to decrypt the destination's secrets. */
  encoder?: PasswordEncoder;
  /** AUTO's context: the source registry's Kafka cluster id, as a context. */
  autoContext: () => Promise<string>;
}

const CATCH_UP_MS = 30_000;
const SUBJECT_NOT_FOUND = 40401;
const CONFIG_NOT_FOUND = 40408;
const MODE_NOT_FOUND = 40409;

export class ExporterRunner {
  private running = false;
  /** Aborted on stop: a call to a slow destination does not hold up a leader change or shutdown. */
  private abort = new AbortController();
  private loop?: Promise<void>;
  private wake?: () => void;
  private readonly destinations = new Map<string, { info: ExporterInfo; registry: DestinationRegistry }>();

  constructor(
    private readonly broker: Broker,
    private readonly schemaLog: SchemaLog,
    private readonly exporters: SchemaExporters,
    private readonly options: ExporterRunnerOptions,
  ) {}

  /** The exporters run only on the leader: they start when it is elected and stop when it is not. */
  async leadershipChanged(leader: boolean): Promise<void> {
    if (leader) this.start();
    else await this.stop();
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.abort = new AbortController();
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.abort.abort();
    this.wake?.();
    await this.loop;
  }

  /** Starts a pass now (after a create, update or resume). */
  nudge(): void {
    this.wake?.();
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        await this.pass();
      } catch (err) {
        if (!(err instanceof ForwardToLeader))
          log.warn({ err: err instanceof Error ? err.message : String(err) }, "exporters' pass failed; retrying");
      }
      if (!this.running) break;
      // Waits for the next pass: the poll interval, or less when nudged.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.options.pollMs);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }

  private async pass(): Promise<void> {
    const end = (await this.broker.endOffsets(this.options.schemasTopic))[0] ?? 0;
    const names = this.exporters.names();
    for (const cached of this.destinations.keys()) if (!names.includes(cached)) this.destinations.delete(cached);
    for (const name of names) {
      if (!this.running) return;
      const status = this.exporters.states.state.get(name)?.value ?? this.exporters.status(name);
      if (status.state === "PAUSED") continue;
      if (status.state === "ERROR" && Date.now() - status.ts < this.options.retryMs) continue;
      if (status.state === "RUNNING" && status.offset >= end) continue;
      try {
        await this.export(name, status, end);
        await this.exporters.progress(name, status, { state: "RUNNING", offset: end });
      } catch (err) {
        if (err instanceof ForwardToLeader || !this.running) throw err;
        const trace = err instanceof Error ? err.message : String(err);
        log.warn({ exporter: name, err: trace }, "exporter failed; it is tried again");
        await this.exporters
          .progress(name, status, { state: "ERROR", offset: status.offset, trace })
          .catch((e) => log.warn({ exporter: name, err: String(e) }, "could not record the exporter's error"));
      }
    }
  }

  private destination(info: ExporterInfo): DestinationRegistry {
    const cached = this.destinations.get(info.name);
    if (cached && cached.info === info) return cached.registry;
    const registry = new DestinationRegistry(openSecrets(info.config, this.options.encoder));
    this.destinations.set(info.name, { info, registry });
    return registry;
  }

  private async export(name: string, status: ExporterStatus, end: number): Promise<void> {
    const info = this.exporters.info(name);
    const destination = this.destination(info);
    // The state holds at least every record up to `end` once caught up (given longer than a client
    // write's kafkastore.timeout.ms: nobody waits on this but the exporter).
    await this.schemaLog.catchUp(Date.now() + CATCH_UP_MS);
    const state = this.schemaLog.state;
    const touched =
      status.offset === 0
        ? new Set([...state.subjectNames(), ...[...state.configs.keys()].filter((s): s is string => s !== null)])
        : await this.touchedSince(status.offset, end);
    const subjects = [...touched].filter((s) => selects(info.subjects, s)).sort();
    if (subjects.length === 0) return;
    const sync = new SubjectSync(state, destination, info, await this.options.autoContext(), this.abort.signal);
    await sync.run(subjects);
    log.info(
      { exporter: name, subjects: subjects.length, destination: destination.where, offset: end },
      "exported subjects",
    );
  }

  /** The subjects named by the `_schemas` records from `from` up to `end`. */
  private async touchedSince(from: number, end: number): Promise<Set<string>> {
    const out = new Set<string>();
    let position = from;
    while (position < end) {
      const records = await this.broker.fetch(this.options.schemasTopic, 0, position, { maxWaitMs: 200 });
      if (records.length === 0) break; // compacted away up to the end
      for (const r of records) {
        if (r.offset >= end) return out;
        const record = decodeRecord(r.key, r.value);
        if (record && "subject" in record && typeof record.subject === "string") out.add(record.subject);
        position = r.offset + 1;
      }
    }
    return out;
  }
}

interface Plan {
  source: string;
  target: string;
  versions: SchemaVersion[];
  /** The destination's versions, soft-deleted included, and those not deleted. */
  all: Set<number>;
  live: Set<number>;
}

const path = (subject: string) => encodeURIComponent(subject);

/** One pass's work for one exporter: the destination's subjects brought to the source's state. */
class SubjectSync {
  private readonly importing = new Set<string>();

  constructor(
    private readonly state: RegistryState,
    private readonly destination: DestinationRegistry,
    private readonly naming: Naming,
    private readonly autoContext: string,
    private readonly signal: AbortSignal,
  ) {}

  private call<T>(method: string, at: string, body?: unknown, allowed: number[] = []) {
    return this.destination.expect<T>(method, at, body, allowed, this.signal);
  }

  private target(subject: string): string {
    return destinationSubject(subject, this.naming, this.autoContext);
  }

  async run(subjects: string[]): Promise<void> {
    const plans: Plan[] = [];
    for (const source of subjects) {
      const target = this.target(source);
      const ids = await this.idsAt(target);
      const versions = this.state.versions(source);
      // Another schema under a version number is the destination's own: never overwritten.
      for (const v of versions) {
        const there = ids.get(v.version);
        if (there !== undefined && there !== v.id)
          throw new Error(
            `destination subject '${target}' version ${v.version} holds schema id ${there}, not the source's ${v.id}: it is not overwritten`,
          );
      }
      plans.push({ source, target, versions, all: new Set(ids.keys()), live: await this.liveAt(target) });
    }
    // New versions first, in id order across subjects: a referenced schema is there before its referrers.
    const missing = plans
      .flatMap((p) => p.versions.filter((v) => !p.all.has(v.version)).map((v) => ({ plan: p, v })))
      .sort((a, b) => a.v.id - b.v.id || a.v.version - b.v.version);
    for (const { plan, v } of missing) {
      await this.register(plan.target, v);
      plan.all.add(v.version);
      plan.live.add(v.version);
    }
    // Deletes, newest ids first: referrers go before what they reference.
    const deletes = plans
      .flatMap((p) => {
        const kept = new Map(p.versions.map((v) => [v.version, v]));
        return [...p.all].flatMap((version) => {
          const v = kept.get(version);
          const soft = p.live.has(version) && (v === undefined || v.deleted);
          const hard = v === undefined;
          return soft || hard ? [{ plan: p, version, soft, hard, id: v?.id ?? Number.MAX_SAFE_INTEGER }] : [];
        });
      })
      .sort((a, b) => b.id - a.id || b.version - a.version);
    for (const d of deletes) {
      const at = `/subjects/${path(d.plan.target)}/versions/${d.version}`;
      if (d.soft) await this.call("DELETE", at);
      if (d.hard) await this.call("DELETE", `${at}?permanent=true`);
    }
    for (const p of plans) await this.syncConfig(p);
  }

  /** The destination's versions of a subject, soft-deleted included, with their ids. */
  private async idsAt(subject: string): Promise<Map<number, number>> {
    const answer = await this.call<{ subject: string; version: number; id: number }[]>(
      "GET",
      `/schemas?deleted=true&subjectPrefix=${path(subject)}`,
    );
    const ids = new Map<number, number>();
    for (const v of Array.isArray(answer.body) ? answer.body : []) if (v.subject === subject) ids.set(v.version, v.id);
    return ids;
  }

  private async liveAt(subject: string): Promise<Set<number>> {
    const answer = await this.call<number[]>("GET", `/subjects/${path(subject)}/versions`, undefined, [
      SUBJECT_NOT_FOUND,
    ]);
    return new Set(answer.status === 200 && Array.isArray(answer.body) ? answer.body : []);
  }

  /** The destination subject in IMPORT mode, so it takes the source's ids and versions. */
  private async importMode(subject: string): Promise<void> {
    if (this.importing.has(subject)) return;
    const current = await this.call<{ mode?: string }>(
      "GET",
      `/mode/${path(subject)}?defaultToGlobal=false`,
      undefined,
      [MODE_NOT_FOUND, SUBJECT_NOT_FOUND],
    );
    if (current.status !== 200 || current.body?.mode !== "IMPORT")
      await this.call("PUT", `/mode/${path(subject)}?force=true`, { mode: "IMPORT" });
    this.importing.add(subject);
  }

  private async register(target: string, v: SchemaVersion): Promise<void> {
    await this.importMode(target);
    const references = v.references.map((r) => ({
      name: r.name,
      subject: this.target(qualifyWithParent(v.subject, r.subject)),
      version: r.version,
    }));
    await this.call("POST", `/subjects/${path(target)}/versions`, {
      schema: v.schema,
      ...(v.schemaType !== "AVRO" ? { schemaType: v.schemaType } : {}),
      ...(references.length > 0 ? { references } : {}),
      ...(v.metadata ? { metadata: v.metadata } : {}),
      ...(v.ruleSet ? { ruleSet: v.ruleSet } : {}),
      id: v.id,
      version: v.version,
    });
  }

  /** The subject's own config, as the source has it (or none). */
  private async syncConfig(plan: Plan): Promise<void> {
    const own = this.state.configs.get(plan.source)?.value;
    const current = await this.call<Record<string, unknown>>(
      "GET",
      `/config/${path(plan.target)}?defaultToGlobal=false`,
      undefined,
      [CONFIG_NOT_FOUND, SUBJECT_NOT_FOUND],
    );
    const there = current.status === 200 ? current.body : undefined;
    if (!own) {
      if (there)
        await this.call("DELETE", `/config/${path(plan.target)}`, undefined, [CONFIG_NOT_FOUND, SUBJECT_NOT_FOUND]);
      return;
    }
    const wanted = configFields(own, "compatibilityLevel");
    if (there && sameJson(there, wanted)) return;
    await this.call("PUT", `/config/${path(plan.target)}`, configFields(own, "compatibility"));
  }
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(sorted(a)) === JSON.stringify(sorted(b));
}

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value && typeof value === "object")
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sorted((value as Record<string, unknown>)[k])]),
    );
  return value;
}
