// GET /schemas/ids/{id}, the hot path of every deserializer: its bodies, cached per id until the
// state changes (the most read ones only), and who may read an id. Shared by the route and by the
// cached-read path in front of the router (./cached-reads.ts).
import { LruCache } from "../../platform/lru.ts";
import { errors } from "../errors.ts";
import type { RegistryService } from "../service.ts";
import type { RegistryAccess } from "./access.ts";
import { typed } from "./entities.ts";

export class SchemasById {
  private cacheGeneration = -1;
  private readonly bodies: LruCache<number, string>;

  constructor(
    private readonly service: RegistryService,
    /** Bodies kept (schema.response.cache.size). */
    cacheSize: number,
    private readonly access?: RegistryAccess,
  ) {
    this.bodies = new LruCache(cacheSize);
  }

  /** The body of GET /schemas/ids/{id} (no query); 404 bodies are thrown as RegistryErrors. */
  body(id: number): string {
    if (this.cacheGeneration !== this.service.state.generation) {
      this.bodies.clear();
      this.cacheGeneration = this.service.state.generation;
    }
    let body = this.bodies.get(id);
    if (body === undefined) {
      const v = this.service.schemaById(id);
      body = JSON.stringify({ ...typed(v), schema: v.schema });
      this.bodies.set(id, body);
    }
    return body;
  }

  /**
   * Karapace's rule: an id may be read by whoever may read one of the subjects holding it (in the
   * context `subject` finds it in; the default context without one).
   */
  checkReadable(request: Request, id: number, subject?: string): void {
    const readable = this.access?.readable(request);
    if (readable && !this.service.versionsOfId(id, true, subject).some((h) => readable(h.subject)))
      throw errors.forbidden("Read", `Schema: ${id}`);
  }

  readableVersions(
    request: Request,
    id: number,
    deleted: boolean,
    subject?: string,
  ): { subject: string; version: number }[] {
    this.checkReadable(request, id, subject);
    const readable = this.access?.readable(request) ?? (() => true);
    return this.service.versionsOfId(id, deleted, subject).filter((h) => readable(h.subject));
  }
}
