// Schema contexts, as Confluent's QualifiedSubject spells them: `:.ctx:subject` names `subject` in
// context `.ctx`; a name without that prefix (or with `:.:`) is in the default context `.`; `:*:` is
// the wildcard of subject prefixes. Single-tenant: Confluent's tenant is always "default" here.
// Pure: the registry's state and service ask these rules, nothing here reads the store.
import { errors } from "./errors.ts";

export const DEFAULT_CONTEXT = ".";
export const CONTEXT_WILDCARD = ":*:";
/** Config and mode set on this context apply where a context has none of its own. */
export const GLOBAL_CONTEXT = ".__GLOBAL";

export interface QualifiedSubject {
  /** "." (the default), ".ctx", or "*" for the wildcard. */
  context: string;
  subject: string;
}

/** Splits a subject name into its context and the subject within it. */
export function parseSubject(name: string): QualifiedSubject {
  if (name.startsWith(":.")) {
    const end = name.indexOf(":", 2);
    // ":.ctx" without the closing colon names the context alone.
    return end < 0
      ? { context: name.slice(1), subject: "" }
      : { context: name.slice(1, end), subject: name.slice(end + 1) };
  }
  if (name.startsWith(CONTEXT_WILDCARD)) return { context: "*", subject: name.slice(CONTEXT_WILDCARD.length) };
  return { context: DEFAULT_CONTEXT, subject: name };
}

/** `:.ctx:` for a context, "" for the default one. */
export function contextPrefix(context: string): string {
  return context === DEFAULT_CONTEXT ? "" : `:${context}:`;
}

export function qualifiedName(q: QualifiedSubject): string {
  return contextPrefix(q.context) + q.subject;
}

/** The name Confluent stores a subject under: `:.:orders` is `orders`, `:.ctx` is `:.ctx:`. */
export function normalizeSubject(name: string): string {
  return qualifiedName(parseSubject(name));
}

/** The context a subject is in ("." for the default). */
export function contextOf(subject: string): string {
  return parseSubject(subject).context;
}

/**
 * A reference's subject as the referring subject's context reads it: an unqualified reference from
 * `:.ctx:a` to `b` means `:.ctx:b`; a qualified one stays where it points.
 */
export function qualifyWithParent(parent: string, reference: string): string {
  const ref = parseSubject(reference);
  if (ref.context !== DEFAULT_CONTEXT) return qualifiedName(ref);
  const context = contextOf(parent);
  return context === DEFAULT_CONTEXT ? reference : qualifiedName({ context, subject: reference });
}

/** Java's String.compareTo (UTF-16 code units). */
function compareJava(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The order Confluent's store keeps subjects in: by context, then by subject within it. */
export function compareQualified(a: QualifiedSubject, b: QualifiedSubject): number {
  return compareJava(a.context, b.context) || compareJava(a.subject, b.subject);
}

const MAX_CHAR = "\uffff";

/**
 * Which subjects a `subjectPrefix` selects, as Confluent's range scan over its (context, subject)
 * ordered store does: `orders` selects `orders…` in the default context only; `:.ctx:o` selects
 * `o…` in `.ctx`; `:.ct` every context from `.ct` to `.ct\uffff` (a prefix of context names);
 * `:*:` every subject of every context; `:*:o` `o…` in the default context and in each context of
 * `contexts` (the contexts the registry has records of).
 */
export function subjectPrefixMatcher(prefix: string, contexts: ReadonlySet<string>): (subject: string) => boolean {
  const wildcard = prefix.indexOf(CONTEXT_WILDCARD);
  if (wildcard >= 0) {
    const before = prefix.slice(0, wildcard);
    const rest = prefix.slice(wildcard + CONTEXT_WILDCARD.length);
    if (rest !== "") {
      const inDefault = inRange(before + rest, before + rest + MAX_CHAR);
      return (subject) => {
        if (inDefault(subject)) return true;
        const q = parseSubject(subject);
        return contexts.has(q.context) && q.subject.startsWith(rest);
      };
    }
    return inRange(`${before}:.:`, `${before}:.${MAX_CHAR}:`);
  }
  return inRange(prefix, prefix + MAX_CHAR);
}

/** Subjects from `start` to `end` (both as subject names) in the store's order, both included. */
function inRange(start: string, end: string): (subject: string) => boolean {
  const from = parseSubject(start);
  const to = parseSubject(end);
  return (subject) => {
    const q = parseSubject(subject);
    return compareQualified(q, from) >= 0 && compareQualified(q, to) <= 0;
  };
}

/**
 * Confluent's QualifiedSubject.isValidSubject: no control characters, no `__GLOBAL`/`__EMPTY` subject
 * (in any context), and the `:.__GLOBAL:` context only for config and mode.
 */
export function validateSubject(subject: string, configOrMode = false): void {
  // Typed as a string, but a subject the HTTP layer failed to decode must never pass as one.
  // eslint-disable-next-line no-control-regex
  if (typeof subject !== "string" || subject === "" || /[\u0000-\u001f\u007f-\u009f]/.test(subject))
    throw errors.invalidSubject(subject);
  const q = parseSubject(subject);
  if (q.subject === "__GLOBAL" || q.subject === "__EMPTY" || (!configOrMode && q.context === GLOBAL_CONTEXT))
    throw errors.invalidSubject(subject);
}
