// java.lang.String's trim and split, where they differ from JavaScript's: Kafka trims connector names
// and setting values, Double.parseDouble trims its input, and transforms split their specs.

/** Java's String.trim(): strips every char up to U+0020 (control chars too) from both ends, nothing else. */
export function javaTrim(text: string): string {
  return text.replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, "");
}

/**
 * Java's String.split(regex) for a regex that matches a literal separator (`":"`, `"\\."`): trailing
 * empty strings are removed, so `"a::"` gives `["a"]` and `":"` gives none; `""` gives `[""]`.
 */
export function javaSplit(text: string, separator: string): string[] {
  const parts = text.split(separator);
  while (parts.length > 1 && parts[parts.length - 1] === "") parts.pop();
  if (parts.length === 1 && parts[0] === "" && text !== "") return [];
  return parts;
}
