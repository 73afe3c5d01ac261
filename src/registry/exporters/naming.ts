// Which subjects an exporter takes and what it calls them at the destination, as Confluent's schema
// exporters decide: `subjects` entries name subjects (qualified `:.ctx:s` for another context), a
// trailing `*` matches a prefix within that context and `:*:` every context; the destination context
// is the source's under contextType (AUTO: a context named after the source, CUSTOM: `context`, NONE:
// the source's own, DEFAULT: the default one) and subjectRenameFormat renames the subject in it.
// Pure: tested directly.
import { DEFAULT_CONTEXT, parseSubject, qualifiedName } from "../contexts.ts";

export const CONTEXT_TYPES = ["AUTO", "CUSTOM", "NONE", "DEFAULT"] as const;
export type ContextType = (typeof CONTEXT_TYPES)[number];

export const SUBJECT_PLACEHOLDER = "${subject}";

export interface Naming {
  contextType: ContextType;
  /** CUSTOM's context (with or without its leading dot). */
  context?: string;
  subjectRenameFormat?: string;
}

/** Whether an exporter with these `subjects` entries exports `subject` (a qualified name). */
export function selects(patterns: readonly string[], subject: string): boolean {
  const q = parseSubject(subject);
  return patterns.some((pattern) => {
    const p = parseSubject(pattern);
    if (p.context !== "*" && p.context !== q.context) return false;
    // `:*:` alone: every subject of every context.
    if (p.context === "*" && p.subject === "") return true;
    return p.subject.endsWith("*") ? q.subject.startsWith(p.subject.slice(0, -1)) : p.subject === q.subject;
  });
}

/** A context under another: `.a` then `.b` is `.a.b`; the default context adds nothing. */
export function nestedContext(outer: string, inner: string): string {
  const base = outer.startsWith(".") ? outer : `.${outer}`;
  return inner === DEFAULT_CONTEXT ? base : base + inner;
}

/**
 * The destination's name of a source subject. `autoContext` is the context AUTO puts subjects under
 * (the source registry's Kafka cluster id, as a context).
 */
export function destinationSubject(subject: string, naming: Naming, autoContext: string): string {
  const q = parseSubject(subject);
  const format = naming.subjectRenameFormat || SUBJECT_PLACEHOLDER;
  const renamed = format.split(SUBJECT_PLACEHOLDER).join(q.subject);
  const context =
    naming.contextType === "NONE"
      ? q.context
      : naming.contextType === "DEFAULT"
        ? DEFAULT_CONTEXT
        : nestedContext(naming.contextType === "CUSTOM" ? (naming.context ?? "") : autoContext, q.context);
  return qualifiedName({ context, subject: renamed });
}

/** Why a subjects entry cannot select anything, if so (40952). */
export function badSubjectPattern(pattern: string): string | undefined {
  if (pattern === "") return "an empty subject";
  if (parseSubject(pattern).subject.slice(0, -1).includes("*"))
    return `'${pattern}' has a '*' that is not its last character`;
  return undefined;
}

/** Why a context cannot be a CUSTOM context, if so. */
export function badContextName(context: string): string | undefined {
  const bare = context.startsWith(".") ? context.slice(1) : context;
  if (bare === "") return "CUSTOM needs a context";
  if (!/^[A-Za-z0-9_.-]+$/.test(bare) || bare.includes("..") || bare.endsWith("."))
    return `'${context}' is not a context name (letters, digits, '_', '-', dot-separated parts)`;
  return undefined;
}

/** The AUTO context of a source registry: its Kafka cluster id, as a context name. */
export function autoContextOf(clusterId: string | undefined): string {
  return `.${(clusterId ?? "sluice").replace(/[^A-Za-z0-9_-]/g, "_")}`;
}
