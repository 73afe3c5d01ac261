// What would make an incompatible draft acceptable, from the registry's verbose reasons: the change to
// make (a default to add, a field or type to keep), and the compatibility level that would take the draft
// as it is, where the reasons say so. Pure: the draft page shows what this answers.

const TYPE = /^\{errorType:'([^']*)'/;
const DESCRIPTION = /description:'([\s\S]*?)'(?:, additionalInfo:|\}$)/;
const INFO = /additionalInfo:'([\s\S]*?)'(?:, \w+:|\}$)/;

/** Suggestions for the reasons (verbose compatibility messages), each once. */
export function suggestedFixes(messages: string[]): string[] {
  const level = messages.map((m) => /compatibility: '([A-Z_]+)'/.exec(m)?.[1]).find(Boolean) ?? "";
  const reasons = messages.flatMap((m) => {
    const type = TYPE.exec(m)?.[1];
    return type ? [{ type, description: DESCRIPTION.exec(m)?.[1] ?? "", info: INFO.exec(m)?.[1] ?? "" }] : [];
  });
  const fixes = new Set<string>();
  for (const { type, description, info } of reasons) {
    const field = /The field '([^']+)'/.exec(description)?.[1] ?? info;
    switch (type) {
      case "READER_FIELD_MISSING_DEFAULT_VALUE":
        fixes.add(
          level.startsWith("FORWARD")
            ? `Keep field ${field}: readers of the current version need it, as it has no default there.`
            : `Give field ${field} a default value (for an optional field: type ["null", …] with "default": null).`,
        );
        break;
      case "TYPE_MISMATCH":
        fixes.add(
          `Keep the type the field had (${info || description}), or one Avro promotes it to: int → long → float → double, string ↔ bytes.`,
        );
        break;
      case "NAME_MISMATCH":
        fixes.add("Keep the record's name, or list the old name in its aliases.");
        break;
      case "MISSING_UNION_BRANCH":
        fixes.add("Keep every branch the union had.");
        break;
      case "MISSING_ENUM_SYMBOLS":
        fixes.add("Keep the enum's symbols, or give the enum a default symbol.");
        break;
    }
  }
  const onlyMissingDefaults =
    reasons.length > 0 && reasons.every((r) => r.type === "READER_FIELD_MISSING_DEFAULT_VALUE");
  if (onlyMissingDefaults && (level === "BACKWARD" || level === "FORWARD"))
    fixes.add(`Or: the compatibility level ${level === "BACKWARD" ? "FORWARD" : "BACKWARD"} would accept it as it is.`);
  return [...fixes];
}
