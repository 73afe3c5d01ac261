// A schema with line numbers and syntax colour; notes (compatibility reasons) under the lines they
// concern. And two schemas side by side with their differences marked.
import { sideBySide } from "../diff.ts";
import { highlight, type Token } from "../highlight.ts";

function Tokens({ tokens }: { tokens: Token[] }) {
  return (
    <>
      {tokens.map((t, i) =>
        t.kind === "plain" ? (
          t.text
        ) : (
          <span key={i} class={`t-${t.kind}`}>
            {t.text}
          </span>
        ),
      )}
    </>
  );
}

export function Code({ text, format, notes }: { text: string; format?: string; notes?: Map<number, string[]> }) {
  const lines = highlight(text, format);
  return (
    <pre class="code">
      {lines.map((tokens, i) => (
        <div key={i} class={notes?.has(i + 1) ? "line noted" : "line"}>
          <span class="ln">{i + 1}</span>
          <Tokens tokens={tokens} />
          {notes?.get(i + 1)?.map((n, j) => (
            <div key={j} class="note" role="note">
              {n}
            </div>
          ))}
        </div>
      ))}
    </pre>
  );
}

export function Diff({ left, right, format }: { left: string; right: string; format?: string }) {
  const rows = sideBySide(left, right);
  const hl = (text: string) => highlight(text, format === "PROTOBUF" ? "PROTOBUF" : "JSON")[0] ?? [];
  const changes = rows.filter((r) => r.kind !== "same").length;
  return (
    <div>
      <p class="muted">{changes === 0 ? "No differences." : `${changes} line${changes === 1 ? "" : "s"} differ.`}</p>
      <table class="diff">
        <tbody>
          {rows.map((r, i) => (
            <tr key={i} class={`d-${r.kind}`}>
              <td class="dn">{r.left?.n}</td>
              <td class="side left">{r.left && <Tokens tokens={hl(r.left.text)} />}</td>
              <td class="dn">{r.right?.n}</td>
              <td class="side right">{r.right && <Tokens tokens={hl(r.right.text)} />}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
