// Line diff of two texts (longest common subsequence), laid out side by side: a removed run facing an
// added run is one changed block, each side keeping its own line numbers.

export type DiffKind = "same" | "removed" | "added" | "changed";

export interface DiffRow {
  kind: DiffKind;
  left?: { n: number; text: string };
  right?: { n: number; text: string };
}

type Op = { kind: "same" | "removed" | "added"; a?: number; b?: number };

/** The edit script turning lines `a` into lines `b`. */
export function lineDiff(a: string[], b: string[]): Op[] {
  // Common head and tail first: versions of a schema mostly differ in a few places.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const n = a.length - head - tail;
  const m = b.length - head - tail;
  // lcs[i][j]: the longest common subsequence of a[head+i..] and b[head+j..].
  const lcs = new Uint32Array((n + 1) * (m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * (m + 1) + j] =
        a[head + i] === b[head + j]
          ? lcs[(i + 1) * (m + 1) + j + 1]! + 1
          : Math.max(lcs[(i + 1) * (m + 1) + j]!, lcs[i * (m + 1) + j + 1]!);
    }
  }
  const ops: Op[] = [];
  for (let k = 0; k < head; k++) ops.push({ kind: "same", a: k, b: k });
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[head + i] === b[head + j]) {
      ops.push({ kind: "same", a: head + i++, b: head + j++ });
    } else if (j < m && (i === n || lcs[i * (m + 1) + j + 1]! >= lcs[(i + 1) * (m + 1) + j]!)) {
      ops.push({ kind: "added", b: head + j++ });
    } else {
      ops.push({ kind: "removed", a: head + i++ });
    }
  }
  for (let k = 0; k < tail; k++) ops.push({ kind: "same", a: a.length - tail + k, b: b.length - tail + k });
  return ops;
}

export function sideBySide(left: string, right: string): DiffRow[] {
  const a = left.split("\n");
  const b = right.split("\n");
  const ops = lineDiff(a, b);
  const rows: DiffRow[] = [];
  for (let k = 0; k < ops.length; ) {
    const op = ops[k]!;
    if (op.kind === "same") {
      rows.push({ kind: "same", left: { n: op.a! + 1, text: a[op.a!]! }, right: { n: op.b! + 1, text: b[op.b!]! } });
      k++;
      continue;
    }
    const removed: number[] = [];
    const added: number[] = [];
    while (k < ops.length && ops[k]!.kind !== "same") {
      const o = ops[k++]!;
      if (o.kind === "removed") removed.push(o.a!);
      else added.push(o.b!);
    }
    for (let r = 0; r < Math.max(removed.length, added.length); r++) {
      const l = removed[r];
      const g = added[r];
      rows.push({
        kind: l !== undefined && g !== undefined ? "changed" : l !== undefined ? "removed" : "added",
        left: l === undefined ? undefined : { n: l + 1, text: a[l]! },
        right: g === undefined ? undefined : { n: g + 1, text: b[g]! },
      });
    }
  }
  return rows;
}
