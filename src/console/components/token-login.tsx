// Sign-in of a console whose services take only bearer tokens: the user pastes an access token from
// the identity provider (for instance `curl -d grant_type=client_credentials ... /token`).
import { useState } from "preact/hooks";
import { setToken } from "../token.ts";

export function TokenLogin() {
  const [value, setValue] = useState("");
  const submit = (event: Event) => {
    event.preventDefault();
    if (!value.trim()) return;
    setToken(value);
    location.reload();
  };
  return (
    <main>
      <h1>Sluice console</h1>
      <form onSubmit={submit} class="token-login">
        <p>This service takes OAuth bearer tokens. Paste an access token from your identity provider.</p>
        <textarea
          data-testid="token"
          rows={6}
          cols={80}
          value={value}
          onInput={(e) => setValue((e.target as HTMLTextAreaElement).value)}
        />
        <p>
          <button type="submit">Sign in</button>
        </p>
      </form>
    </main>
  );
}
