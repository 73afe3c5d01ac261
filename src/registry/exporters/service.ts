// The schema exporters' rules (Confluent's exporter resource), without HTTP: definitions go to
// `_exporter_configs`, states to `_exporter_states`, both through their logs' one writer (the leader;
// a follower's write throws ForwardToLeader before any check). ./runner.ts does the exporting.
import { clientTls } from "../../platform/tls.ts";
import { exporterErrors } from "./errors.ts";
import type { ConfigLog, StatusLog } from "./logs.ts";
import { badContextName, badSubjectPattern, CONTEXT_TYPES, type ContextType } from "./naming.ts";
import type { ExporterInfo, ExporterStatus } from "./records.ts";
import { hideSecrets, hideUrlPassword, isSealed, sealSecrets, type PasswordEncoder } from "./secrets.ts";

export { hideSecrets };

export interface SchemaExportersOptions {
  /** exporter.max.exporters: then 40964. */
  maxExporters: number;
  /** password.encoder.secret's: the destination's secrets are stored encrypted with it. */
  encoder?: PasswordEncoder;
  now?: () => number;
}

const NAME = /^[A-Za-z0-9_.-]{1,256}$/;

export class SchemaExporters {
  /** Called after a change the runner should act on at once (create, update, resume, reset). */
  changed?: () => void;

  constructor(
    readonly configs: ConfigLog,
    readonly states: StatusLog,
    private readonly options: SchemaExportersOptions,
  ) {}

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  names(): string[] {
    return this.configs.state.names();
  }

  /** An exporter's definition as stored (secrets included: for the runner). */
  info(name: string): ExporterInfo {
    const found = this.configs.state.get(name);
    if (!found) throw exporterErrors.notFound(name);
    return found.value;
  }

  /** The definition as answered: secrets hidden. */
  shown(name: string): ExporterInfo {
    const info = this.info(name);
    return { ...info, config: hideSecrets(info.config) };
  }

  status(name: string): ExporterStatus {
    this.info(name);
    return this.states.state.get(name)?.value ?? { name, state: "STARTING", offset: 0, ts: 0 };
  }

  async create(body: Record<string, unknown>): Promise<string> {
    const name = body.name;
    if (typeof name !== "string" || !NAME.test(name))
      throw exporterErrors.invalidName("a name of letters, digits, '.', '_' or '-' is required");
    const info = this.sealed(parseInfo(name, body, undefined));
    await this.configs.exclusive(async () => {
      if (this.configs.state.get(name)) throw exporterErrors.alreadyExists(name);
      if (this.configs.state.size >= this.options.maxExporters) throw exporterErrors.tooMany(this.options.maxExporters);
      return { records: [{ name, value: info }], result: undefined };
    });
    await this.writeStatus(name, () => ({ name, state: "STARTING", offset: 0, ts: this.now() }));
    this.changed?.();
    return name;
  }

  /** PUT /exporters/{name}: the fields given replace the stored ones; config entries are merged in. */
  async update(name: string, body: Record<string, unknown>): Promise<string> {
    let renamed = false;
    await this.configs.exclusive(async () => {
      const old = this.info(name);
      const info = this.sealed(parseInfo(name, body, old));
      renamed =
        info.contextType !== old.contextType ||
        info.context !== old.context ||
        info.subjectRenameFormat !== old.subjectRenameFormat ||
        JSON.stringify(info.subjects) !== JSON.stringify(old.subjects);
      return { records: [{ name, value: info, rawKey: this.configs.state.get(name)!.key }], result: undefined };
    });
    // Other subjects or other names: everything the exporter takes is exported again, from the start.
    // A failed exporter is tried again at once with what was changed (a password, a URL).
    await this.writeStatus(name, (s) =>
      renamed || s.state === "ERROR"
        ? { name, state: s.state === "ERROR" ? "STARTING" : s.state, offset: renamed ? 0 : s.offset, ts: this.now() }
        : s,
    );
    this.changed?.();
    return name;
  }

  /** PUT /exporters/{name}/config: entries merged into the destination's config. */
  updateConfig(name: string, config: unknown): Promise<string> {
    return this.update(name, { config });
  }

  async delete(name: string): Promise<void> {
    await this.configs.exclusive(async () => {
      const found = this.configs.state.get(name);
      if (!found) throw exporterErrors.notFound(name);
      // Checked by the leader (a follower forwards before any check).
      if (this.status(name).state !== "PAUSED") throw exporterErrors.notPaused(name);
      return { records: [{ name, value: null, rawKey: found.key }], result: undefined };
    });
    await this.states.exclusive(async () => {
      const found = this.states.state.get(name);
      return { records: found ? [{ name, value: null, rawKey: found.key }] : [], result: undefined };
    });
  }

  async pause(name: string): Promise<string> {
    await this.writeStatus(name, (s) =>
      s.state === "PAUSED" ? s : { name, state: "PAUSED", offset: s.offset, ts: this.now() },
    );
    return name;
  }

  async resume(name: string): Promise<string> {
    await this.writeStatus(name, (s) => {
      if (s.state !== "PAUSED" && s.state !== "ERROR") throw exporterErrors.alreadyRunning(name);
      return { name, state: "STARTING", offset: s.offset, ts: this.now() };
    });
    this.changed?.();
    return name;
  }

  async reset(name: string): Promise<string> {
    await this.writeStatus(name, (s) => {
      if (s.state !== "PAUSED") throw exporterErrors.notPaused(name);
      return { name, state: "PAUSED", offset: 0, ts: this.now() };
    });
    return name;
  }

  /**
   * The runner's progress: written only while the exporter still exists and is in the state the
   * runner read (a pause or reset in between wins).
   */
  async progress(name: string, expected: ExporterStatus, next: Omit<ExporterStatus, "name" | "ts">): Promise<void> {
    await this.writeStatus(name, (s) =>
      s.state === expected.state && s.offset === expected.offset && s.ts === expected.ts
        ? { name, ...next, ts: this.now() }
        : s,
    );
  }

  private sealed(info: ExporterInfo): ExporterInfo {
    return { ...info, config: sealSecrets(info.config, this.options.encoder) };
  }

  private async writeStatus(name: string, change: (old: ExporterStatus) => ExporterStatus): Promise<void> {
    await this.states.exclusive(async () => {
      const old = this.status(name);
      const next = change(old);
      if (next === old) return { records: [], result: undefined };
      return { records: [{ name, value: next, rawKey: this.states.state.get(name)?.key }], result: undefined };
    });
  }
}

/** The definition a create (no `old`) or an update makes of a request body, with Confluent's checks. */
export function parseInfo(name: string, body: Record<string, unknown>, old: ExporterInfo | undefined): ExporterInfo {
  const contextType = parseContextType(body.contextType, old?.contextType ?? "AUTO");
  const context = optionalString(body.context, "context", old?.context);
  if (contextType === "CUSTOM") {
    const bad = badContextName(context ?? "");
    if (bad) throw exporterErrors.invalidConfig(bad);
  }
  const subjects = parseSubjects(body.subjects, old?.subjects ?? ["*"]);
  const subjectRenameFormat = optionalString(body.subjectRenameFormat, "subjectRenameFormat", old?.subjectRenameFormat);
  const config = { ...(old?.config ?? {}), ...parseConfig(body.config, old === undefined) };
  checkDestination(config);
  return {
    name,
    contextType,
    ...(context !== undefined && contextType === "CUSTOM" ? { context } : {}),
    subjects,
    ...(subjectRenameFormat ? { subjectRenameFormat } : {}),
    config,
  };
}

function parseContextType(value: unknown, fallback: ContextType): ContextType {
  if (value === undefined || value === null) return fallback;
  const found = CONTEXT_TYPES.find((t) => typeof value === "string" && t === value.toUpperCase());
  if (!found) throw exporterErrors.invalidConfig(`contextType must be one of ${CONTEXT_TYPES.join(", ")}`);
  return found;
}

function optionalString(value: unknown, field: string, fallback: string | undefined): string | undefined {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== "string") throw exporterErrors.invalidConfig(`${field} must be a string`);
  return value;
}

function parseSubjects(value: unknown, fallback: string[]): string[] {
  if (value === undefined || value === null) return fallback;
  if (!Array.isArray(value) || value.some((s) => typeof s !== "string"))
    throw exporterErrors.invalidSubjects("subjects must be a list of subject names");
  const subjects = value as string[];
  if (subjects.length === 0) return ["*"];
  for (const s of subjects) {
    const bad = badSubjectPattern(s);
    if (bad) throw exporterErrors.invalidSubjects(bad);
  }
  return subjects;
}

function parseConfig(value: unknown, required: boolean): Record<string, string> {
  if (value === undefined || value === null) {
    if (required) throw exporterErrors.invalidConfig("config with schema.registry.url is required");
    return {};
  }
  if (typeof value !== "object" || Array.isArray(value)) throw exporterErrors.invalidConfig("config must be an object");
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) {
    if (typeof v !== "string" && typeof v !== "number" && typeof v !== "boolean")
      throw exporterErrors.invalidConfig(`config value of '${k}' must be a string`);
    out[k] = String(v);
  }
  return out;
}

function checkDestination(config: Record<string, string>): void {
  const urls = (config["schema.registry.url"] ?? "")
    .split(",")
    .map((u) => u.trim())
    .filter(Boolean);
  if (urls.length === 0) throw exporterErrors.invalidConfig("schema.registry.url is required");
  for (const u of urls) {
    let url: URL;
    try {
      url = new URL(u);
    } catch {
      throw exporterErrors.invalidConfig(`schema.registry.url '${hideUrlPassword(u)}' is not a URL`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:")
      throw exporterErrors.invalidConfig("schema.registry.url must be http or https");
  }
  const basic = config["basic.auth.credentials.source"];
  if (basic !== undefined && !["USER_INFO", "URL", "SASL_INHERIT"].includes(basic))
    throw exporterErrors.invalidConfig("basic.auth.credentials.source must be USER_INFO or URL");
  const userInfo = config["basic.auth.user.info"];
  if (basic === "USER_INFO" && !(userInfo !== undefined && (isSealed(userInfo) || userInfo.includes(":"))))
    throw exporterErrors.invalidConfig("basic.auth.user.info must be user:password with USER_INFO");
  try {
    clientTls(config, "schema.registry.");
  } catch (err) {
    throw exporterErrors.invalidConfig(err instanceof Error ? err.message : String(err));
  }
  const bearer = config["bearer.auth.credentials.source"];
  if (bearer !== undefined && !["STATIC_TOKEN", "OAUTHBEARER"].includes(bearer))
    throw exporterErrors.invalidConfig("bearer.auth.credentials.source must be STATIC_TOKEN or OAUTHBEARER");
  if (bearer === "STATIC_TOKEN" && !config["bearer.auth.token"])
    throw exporterErrors.invalidConfig("bearer.auth.token is required with STATIC_TOKEN");
  if (bearer === "OAUTHBEARER")
    for (const k of ["bearer.auth.issuer.endpoint.url", "bearer.auth.client.id", "bearer.auth.client.secret"])
      if (!config[k]) throw exporterErrors.invalidConfig(`${k} is required with OAUTHBEARER`);
}
