// JSON text exactly as Kafka's JsonSerializer (Jackson 2.x UTF8JsonGenerator) writes it, where that
// differs from JSON.stringify: control characters as \u00XX in upper-case hex (but \b \t \n \f \r
// short), and every UTF-16 surrogate — paired or not — as its own \uXXXX escape, so "😀" is written
// "\uD83D\uDE00". Everything else (including "/" and U+2028) is written raw as UTF-8.

// Characters Jackson escapes: controls, '"', '\\' and surrogates.
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;
const SHORT_ESCAPES: Record<number, string> = { 0x08: "\\b", 0x09: "\\t", 0x0a: "\\n", 0x0c: "\\f", 0x0d: "\\r", 0x22: '\\"', 0x5c: "\\\\" };

export function jsonString(s: string): string {
  if (!NEEDS_ESCAPE.test(s)) return '"' + s + '"';
  let out = '"';
  let from = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c !== 0x22 && c !== 0x5c && (c < 0xd800 || c > 0xdfff)) continue;
    out += s.slice(from, i) + (SHORT_ESCAPES[c] ?? "\\u" + c.toString(16).toUpperCase().padStart(4, "0"));
    from = i + 1;
  }
  return out + s.slice(from) + '"';
}

/** Standard base64 with padding, as Jackson writes binary nodes. */
export function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
}

const utf8 = new TextEncoder();

/** Text → UTF-8 bytes. Our escaping leaves no lone surrogate in the text, so nothing is replaced. */
export function utf8Bytes(text: string): Uint8Array {
  return utf8.encode(text);
}
