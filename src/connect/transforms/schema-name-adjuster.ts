// Debezium's schema.name.adjustment.mode for the schema names a transform derives from topic names:
// `none` leaves them; `avro` replaces each character Avro does not allow in a full name by `_` (a
// leading digit is kept after its `_`); `avro_unicode` by `_uXXXX`. Two names that become the same
// replacement fail, as Debezium's adjuster does.
import { DataException } from "../api/data/index.ts";

export type SchemaNameAdjustmentMode = "none" | "avro" | "avro_unicode";
export const SCHEMA_NAME_ADJUSTMENT_MODES: readonly SchemaNameAdjustmentMode[] = ["none", "avro", "avro_unicode"];

const isLetter = (c: string) => (c >= "a" && c <= "z") || (c >= "A" && c <= "Z");
const isDigit = (c: string) => c >= "0" && c <= "9";

/** Integer.toHexString padded as Debezium's UnicodeReplacementFunction pads it (to at least 3 digits). */
function unicodeEscape(c: string): string {
  const hex = c.charCodeAt(0).toString(16);
  return `_u${hex.length <= 2 ? `00${hex}` : hex}`;
}

export class SchemaNameAdjuster {
  private readonly originals = new Map<string, string>();

  constructor(readonly mode: SchemaNameAdjustmentMode) {}

  adjust(name: string): string {
    if (this.mode === "none" || name === "") return name;
    const unicode = this.mode === "avro_unicode";
    const validFirst = (c: string) => isLetter(c) || (!unicode && c === "_");
    const validNext = (c: string) => validFirst(c) || c === "." || isDigit(c);
    const replace = (c: string) => (unicode ? unicodeEscape(c) : "_");
    const first = name.charAt(0);
    let out = validFirst(first) ? first : replace(first) + (!unicode && isDigit(first) ? first : "");
    for (let i = 1; i < name.length; i++) out += validNext(name.charAt(i)) ? name.charAt(i) : replace(name.charAt(i));
    if (out === name) return name;
    const earlier = this.originals.get(out);
    if (earlier !== undefined && earlier !== name)
      throw new DataException(
        `The Kafka Connect schema name '${name}' is not a valid Avro schema name and its replacement '${out}' conflicts with another different schema '${earlier}'`,
      );
    this.originals.set(out, name);
    return out;
  }
}
