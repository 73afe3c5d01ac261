// A schema as people read it: JSON schemas (Avro, JSON Schema) indented, Protobuf as written; and where
// in that text a JSON pointer (a compatibility message's path) or a field name is.

/** Indented JSON when the text is JSON; anything else as it is. */
export function formatSchema(schema: string, format?: string): string {
  if ((format ?? "AVRO").toUpperCase() === "PROTOBUF") return schema;
  try {
    return JSON.stringify(JSON.parse(schema), null, 2);
  } catch {
    return schema;
  }
}

/**
 * The line (1-based) each JSON value starts on, by JSON pointer ("" for the root, "/fields/1" ...),
 * read from the text as typed; a text that is not JSON gives what was read before the fault.
 */
export function pointerLines(text: string): Map<string, number> {
  const lines = new Map<string, number>();
  let i = 0;
  let line = 1;
  const space = () => {
    while (i < text.length && /\s/.test(text[i]!)) {
      if (text[i] === "\n") line++;
      i++;
    }
  };
  const string = (): string => {
    let out = "";
    i++;
    while (i < text.length && text[i] !== '"') {
      if (text[i] === "\\") {
        out += text[i + 1] ?? "";
        i += 2;
      } else out += text[i++];
    }
    i++;
    return out;
  };
  const value = (pointer: string): void => {
    space();
    lines.set(pointer, line);
    const c = text[i];
    if (c === "{") {
      i++;
      space();
      while (i < text.length && text[i] !== "}") {
        space();
        if (text[i] !== '"') throw new Error("key expected");
        const keyLine = line;
        const key = string();
        space();
        if (text[i] !== ":") throw new Error(": expected");
        i++;
        const child = `${pointer}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`;
        value(child);
        // A member is where its key is, not where its value starts.
        lines.set(child, keyLine);
        space();
        if (text[i] === ",") i++;
        space();
      }
      i++;
    } else if (c === "[") {
      i++;
      let index = 0;
      space();
      while (i < text.length && text[i] !== "]") {
        value(`${pointer}/${index++}`);
        space();
        if (text[i] === ",") i++;
        space();
      }
      i++;
    } else if (c === '"') {
      string();
    } else {
      while (i < text.length && !/[\s,\]}]/.test(text[i]!)) i++;
    }
  };
  try {
    value("");
  } catch {
    // Partial: the lines found so far still place what they can.
  }
  return lines;
}

/** A compatibility message (Confluent's text) placed on the draft: its path, else its field name. */
export function reasonLine(message: string, text: string, pointers: Map<string, number>): number | undefined {
  const path = /path '([^']*)'/.exec(message)?.[1];
  if (path !== undefined && path !== "/" && path !== "") {
    // The nearest enclosing value the draft has (the path may name what the draft lacks).
    for (let p = path.replace(/\/$/, ""); p; p = p.slice(0, p.lastIndexOf("/"))) {
      const found = pointers.get(p) ?? pointers.get(p.replace(/^#/, ""));
      if (found !== undefined) return found;
    }
  }
  const field = /field '([^']+)'/.exec(message)?.[1] ?? /\b(?:field|property) "?([\w.]+)"?/.exec(message)?.[1];
  if (field) {
    const lines = text.split("\n");
    const at = lines.findIndex(
      (l) => l.includes(`"${field}"`) || new RegExp(`\\b${field.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\s*=`).test(l),
    );
    if (at >= 0) return at + 1;
  }
  return undefined;
}

/**
 * A verbose compatibility message as people read it. Confluent's are Java toString text:
 * `{errorType:'…', description:'…', additionalInfo:'…'}` for a reason, `{oldSchemaVersion: 2}` and the
 * like for what was compared; `reason` false for those.
 */
export function readMessage(message: string): { reason: boolean; text: string } {
  const type = /^\{errorType:'([^']*)'/.exec(message)?.[1];
  if (!type) return { reason: false, text: message.replace(/^\{|\}$/g, "") };
  const description = /description:'([\s\S]*?)'(?:, additionalInfo:|\}$)/.exec(message)?.[1] ?? message;
  return { reason: true, text: `${type}: ${description}` };
}

/** The reasons by the line they concern (0: none of the draft's), and the context the registry added. */
export function placeReasons(messages: string[], text: string): { lines: Map<number, string[]>; context: string[] } {
  const pointers = pointerLines(text);
  const lines = new Map<number, string[]>();
  const context: string[] = [];
  for (const message of messages) {
    const read = readMessage(message);
    if (!read.reason) {
      context.push(read.text);
      continue;
    }
    const line = reasonLine(read.text, text, pointers) ?? 0;
    lines.set(line, [...(lines.get(line) ?? []), read.text]);
  }
  return { lines, context };
}
