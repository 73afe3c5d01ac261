// The registry schemas the *Data mappings derive from Connect schemas: each distinct text is parsed
// once (equal Connect schemas held by different objects share it; at most schemas.cache.config of
// them are kept), and a text the format refuses is a DataException.
import { LruCache } from "../../platform/lru.ts";
import { DataException } from "../api/data/index.ts";

export class DerivedSchemas<P> {
  private readonly byText: LruCache<string, P>;

  /** `invalid` starts the DataException's message; the parser's message follows it. */
  constructor(
    size: number,
    private readonly parseText: (text: string) => P,
    private readonly invalid: string,
  ) {
    this.byText = new LruCache(size);
  }

  /** The parsed schema of `text`, from the cache when it was parsed before. */
  parse(text: string): P {
    const cached = this.byText.get(text);
    if (cached !== undefined) return cached;
    let parsed: P;
    try {
      parsed = this.parseText(text);
    } catch (err) {
      throw new DataException(`${this.invalid}: ${(err as Error).message}`, { cause: err });
    }
    this.byText.set(text, parsed);
    return parsed;
  }
}
